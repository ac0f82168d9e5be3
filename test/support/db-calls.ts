import { db } from '../../shared/store/client.ts';

/** A call of the shared document client as sent (keys not marshalled yet) and as answered. */
export interface SeenCall {
  /** the client's command, e.g. `UpdateItemCommand` */
  command: string;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
}

/** Runs `act` while `watch` sees every call the shared document client sends, once answered. */
export async function watchingDb(watch: (call: SeenCall) => void, act: () => Promise<unknown>): Promise<void> {
  const name = `watch-${crypto.randomUUID()}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      const result = await next(args);
      watch({ command: context.commandName ?? '', input, output: result.output as Record<string, unknown> });
      return result;
    },
    { step: 'initialize', name },
  );
  try {
    await act();
  } finally {
    db.middlewareStack.remove(name);
  }
}
