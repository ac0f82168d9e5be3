import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handler as inbound } from '../../functions/connectors/webhooks.ts';
import { apiEvent, invokeHttp } from './lambda.ts';

/**
 * What API Gateway would be for a provider's notifications: a local HTTP server that hands every
 * `POST /api/connectors/:id/webhooks` to the handler, raw body and headers as sent. A provider fake posts here.
 */
export async function startInboundGateway() {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      void deliver(req.url ?? '/', headers, Buffer.concat(chunks).toString('utf8')).then(
        (answer) => res.writeHead(answer.status, { 'content-type': answer.headers['content-type'] ?? 'text/plain' }).end(answer.rawBody),
        () => res.writeHead(500).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    /** the connector's webhook_url, at this gateway */
    urlFor: (connectorId: string) => `${origin}/api/connectors/${connectorId}/webhooks`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One notification to the handler, as a provider sends it (the test's own deliveries, e.g. shuffled or forged). */
export const deliver = (path: string, headers: Record<string, string>, body: string) =>
  invokeHttp(inbound, apiEvent({ method: 'POST', path: new URL(path, 'http://x').pathname, headers, body }));
