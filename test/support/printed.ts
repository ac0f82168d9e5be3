import { format } from 'node:util';

/**
 * What this process prints from now on (the functions run in it behind the in-process gateway, as `npm start` runs
 * them), and a wait for something in it. `stop()` puts the console and stdout back.
 */
export function printedFromNow() {
  let output = '';
  const waiters = new Set<() => void>();
  const keep = (text: string) => {
    output += text;
    for (const w of waiters) w();
  };
  // Powertools prints through the console (in dev mode) or to stdout and stderr: all are read.
  const streams = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
      return (write as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
    }) as typeof stream.write;
    return () => void (stream.write = write);
  });
  const methods = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) => {
    const print = console[method];
    console[method] = (...args: unknown[]) => (keep(`${format(...args)}\n`), print(...args));
    return () => void (console[method] = print);
  });
  return {
    output: () => output,
    stop: () => [...streams, ...methods].forEach((restore) => restore()),
    /** Resolves with what `find` returns once it returns something (checked on every write); 30 s catch a hang. */
    waitFor: <T>(find: (output: string) => T | undefined) =>
      new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => (waiters.delete(check), reject(new Error(`not printed within 30 s:\n${output.slice(-4000)}`))), 30_000);
        function check() {
          const found = find(output);
          if (found === undefined) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        }
        waiters.add(check);
        check();
      }),
  };
}
