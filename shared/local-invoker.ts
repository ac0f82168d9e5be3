/**
 * Locally (APP_ENV=local) a private function runs in the calling process, by the invoker the local runtime or the
 * test setup registers here. A leaf module on purpose: registering imports no handler and no configuration, so a test
 * file can still set its environment before the handlers it imports read it.
 */
export type LocalInvoker = (name: string, payload: unknown) => Promise<unknown>;

let registered: LocalInvoker | undefined;

export const useLocalInvoker = (invoker: LocalInvoker): void => void (registered = invoker);

export const localInvoker = (): LocalInvoker | undefined => registered;
