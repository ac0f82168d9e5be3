/**
 * The private functions (catalog trigger `invoke`) run in this process when a public one invokes them locally
 * (shared/invoke.ts), as Lambda would run them: the catalog's handler, its own context. Import it after the
 * environment is set (shared/config.ts reads it at import).
 */
import { catalog as fullCatalog, type FunctionSpec } from '../../functions/catalog.ts';
import { useLocalInvoker } from '../../shared/local-invoker.ts';
import { contextFor, loadHandler } from './lambda.ts';

export function runPrivateFunctionsInProcess(catalog: readonly FunctionSpec[] = fullCatalog): void {
  useLocalInvoker((name, payload) => runPrivateFunction(name, payload, catalog));
}

/** Runs the catalog's private function `name` on `payload` in this process. */
export async function runPrivateFunction(name: string, payload: unknown, catalog: readonly FunctionSpec[] = fullCatalog): Promise<unknown> {
  const spec = catalog.find((f) => f.name === name && f.trigger.type === 'invoke');
  if (!spec) throw new Error(`No private function "${name}" in the catalog`);
  return (await loadHandler(name))(payload, contextFor(spec));
}
