import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A merchant's webhook endpoint on 127.0.0.1: answers each request with the next status of `statuses` (the last
 * one repeats) and lets a test await the n-th request instead of sleeping.
 */
export async function startReceiver(statuses: number[] = [200]) {
  const received: ReceivedWebhook[] = [];
  const waiters: Array<{ done: (received: ReceivedWebhook[]) => boolean; resolve: () => void }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      const status = statuses[Math.min(received.length - 1, statuses.length - 1)]!;
      res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
      for (const w of [...waiters]) if (w.done(received)) w.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const waitUntil = (done: (received: ReceivedWebhook[]) => boolean) =>
    done(received) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ done, resolve }));
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** resolves once `count` requests have arrived (fails the test by its timeout otherwise) */
    waitFor: (count: number) => waitUntil((all) => all.length >= count),
    /** resolves once what has arrived satisfies `done` */
    waitUntil,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
