import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_RESPONSE_BODY_BYTES, postWebhook, WEBHOOK_USER_AGENT } from '../../shared/webhooks/http-client.ts';
import type { HostLookup } from '../../shared/webhooks/ssrf.ts';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local receiver on 127.0.0.1 (random port) that records every request and answers with `respond`. */
async function receiver(respond: (res: ServerResponse, req: Received) => void) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const record = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(record);
      respond(res, record);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, port, received, url: (path = '/hook') => new URL(`http://127.0.0.1:${port}${path}`) };
}
type Receiver = Awaited<ReturnType<typeof receiver>>;

const BODY = JSON.stringify({ id: 'evt_01J0000000000000000000000', type: 'payment.succeeded', data: { object: { amount: 5000 } } });
const HEADERS = {
  'webhook-id': 'evt_01J0000000000000000000000',
  'webhook-timestamp': '1700000000',
  'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
};
const local = { timeoutMs: 2_000, allowLoopback: true };

let ok: Receiver;
let redirect: Receiver;
let redirectTarget: Receiver;
let silent: Receiver;
let slowBody: Receiver;
let big: Receiver;
let closedPort: number;

beforeAll(async () => {
  ok = await receiver((res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  redirectTarget = await receiver((res) => res.writeHead(200).end());
  redirect = await receiver((res) => res.writeHead(302, { location: redirectTarget.url('/elsewhere').href }).end());
  silent = await receiver(() => {
    /* never answers */
  });
  slowBody = await receiver((res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('partial'); // headers and a first chunk, then nothing: the body never ends
  });
  big = await receiver((res) => {
    // An endless body: a client that read it all would never finish.
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = 'x'.repeat(16 * 1024);
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  });
  const closed = await receiver(() => undefined);
  closedPort = closed.port;
  await new Promise<void>((resolve) => closed.server.close(() => resolve()));
});

afterAll(async () => {
  for (const r of [ok, redirect, redirectTarget, silent, slowBody, big]) {
    if (r === undefined) continue;
    r.server.closeAllConnections();
    await new Promise<void>((resolve) => r.server.close(() => resolve()));
  }
});

beforeEach(() => {
  for (const r of [ok, redirect, redirectTarget, silent, slowBody, big]) r.received.length = 0;
});

describe('postWebhook', () => {
  it('returns 200 and a latency for a receiver that answers 200', async () => {
    // Act
    const result = await postWebhook(ok.url(), BODY, HEADERS, local);
    // Assess
    expect(result.status_code).toBe(200);
    expect(result.error).toBeUndefined();
    expect(result.latency_ms).toBeGreaterThanOrEqual(0);
    expect(Number.isInteger(result.latency_ms)).toBe(true);
    expect(ok.received).toHaveLength(1);
  });

  it('sends one POST with the exact body, the given headers, JSON content type and the user agent', async () => {
    await postWebhook(ok.url('/hook/path?merchant=42'), BODY, HEADERS, local);
    const [request] = ok.received;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/hook/path?merchant=42');
    expect(request?.body).toBe(BODY);
    expect(request?.headers).toMatchObject({
      ...HEADERS,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(BODY)),
      'user-agent': WEBHOOK_USER_AGENT,
      host: `127.0.0.1:${ok.port}`,
    });
  });

  it('keeps the content type and Host its own, whatever the caller passes', async () => {
    await postWebhook(ok.url(), BODY, { 'Content-Type': 'text/plain', Host: 'evil.example', 'X-Extra': 'yes' }, local);
    expect(ok.received[0]?.headers).toMatchObject({
      'content-type': 'application/json',
      host: `127.0.0.1:${ok.port}`,
      'x-extra': 'yes',
    });
  });

  it('sends a non-ASCII body with the right length', async () => {
    const body = JSON.stringify({ name: 'Zoë — 支払い' });
    await postWebhook(ok.url(), body, {}, local);
    expect(ok.received[0]?.body).toBe(body);
  });

  it('returns a 302 as it is and does not follow it', async () => {
    const result = await postWebhook(redirect.url(), BODY, HEADERS, local);
    await new Promise((resolve) => setTimeout(resolve, 100)); // time for a (wrongly) followed redirect to land
    expect(result.status_code).toBe(302);
    expect(redirect.received).toHaveLength(1);
    expect(redirectTarget.received).toHaveLength(0);
  });

  it('gives up on a receiver that never answers: status 0, timeout', async () => {
    const started = Date.now();
    const result = await postWebhook(silent.url(), BODY, HEADERS, { timeoutMs: 300, allowLoopback: true });
    expect(result).toMatchObject({ status_code: 0, error: 'timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(result.latency_ms).toBeGreaterThanOrEqual(250);
    expect(silent.received).toHaveLength(1);
  });

  it('bounds the body too: headers then a stalled body is a timeout', async () => {
    const result = await postWebhook(slowBody.url(), BODY, HEADERS, { timeoutMs: 300, allowLoopback: true });
    expect(result).toMatchObject({ status_code: 0, error: 'timeout' });
  });

  it('reads at most 64 KB of the response body (an endless one too) and still reports the status', async () => {
    expect(MAX_RESPONSE_BODY_BYTES).toBe(65_536);
    const result = await postWebhook(big.url(), BODY, HEADERS, local);
    expect(result.status_code).toBe(200);
    expect(result.error).toBeUndefined();
  });

  it('returns status 0 for a closed port', async () => {
    const result = await postWebhook(new URL(`http://127.0.0.1:${closedPort}/hook`), BODY, HEADERS, local);
    expect(result.status_code).toBe(0);
    expect(result.error).toContain('ECONNREFUSED');
  });

  it('refuses loopback outside local mode without connecting', async () => {
    const result = await postWebhook(ok.url(), BODY, HEADERS, { timeoutMs: 2_000, allowLoopback: false });
    expect(result.status_code).toBe(0);
    expect(result.error).toBe('refused: 127.0.0.1 is a non-public address (category: loopback)');
    expect(ok.received).toHaveLength(0);
  });

  it('refuses a host that resolves to a private address without connecting', async () => {
    const lookup = vi.fn<HostLookup>(async () => [{ address: '10.0.0.5', family: 4 }]);
    const result = await postWebhook(new URL('https://hooks.test/hook'), BODY, HEADERS, { ...local, lookup });
    expect(result).toMatchObject({ status_code: 0, error: expect.stringContaining('category: private') });
  });

  it('refuses plain http to a public address', async () => {
    const lookup = vi.fn<HostLookup>(async () => [{ address: '93.184.215.14', family: 4 }]);
    const result = await postWebhook(new URL('http://hooks.test/hook'), BODY, HEADERS, { ...local, lookup });
    expect(result).toMatchObject({ status_code: 0, error: expect.stringContaining('plain http') });
  });

  it('reports a DNS failure as status 0', async () => {
    const lookup = vi.fn<HostLookup>(async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND hooks.test'), { code: 'ENOTFOUND' });
    });
    const result = await postWebhook(new URL('https://hooks.test/hook'), BODY, HEADERS, { ...local, lookup });
    expect(result).toMatchObject({ status_code: 0, error: 'DNS lookup failed for hooks.test (ENOTFOUND)' });
  });

  it('counts a DNS lookup that hangs against the timeout', async () => {
    const lookup: HostLookup = () => new Promise(() => undefined);
    const result = await postWebhook(new URL('https://hooks.test/hook'), BODY, HEADERS, { timeoutMs: 300, allowLoopback: true, lookup });
    expect(result).toMatchObject({ status_code: 0, error: 'timeout' });
  });

  it('pins the connection to the checked address and keeps the host name in the Host header', async () => {
    // Prepare: hooks.test does not exist in real DNS; the second answer (a rebinding attempt) must never be used.
    const answers = [[{ address: '127.0.0.1', family: 4 }], [{ address: '169.254.169.254', family: 4 }]];
    const lookup = vi.fn<HostLookup>(async () => answers.shift() ?? []);
    // Act
    const result = await postWebhook(new URL(`http://hooks.test:${ok.port}/pinned`), BODY, HEADERS, { ...local, lookup });
    // Assess
    expect(result.status_code).toBe(200);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(lookup).toHaveBeenCalledWith('hooks.test');
    expect(ok.received).toHaveLength(1);
    expect(ok.received[0]?.url).toBe('/pinned');
    expect(ok.received[0]?.headers.host).toBe(`hooks.test:${ok.port}`);
  });

  it('over https, sends the host name (not the pinned address) as TLS SNI', async () => {
    // Prepare: a TLS listener that records the SNI of the ClientHello, then fails the handshake (no certificate needed).
    const sni: string[] = [];
    const tlsServer = createTlsServer({
      SNICallback: (servername, callback) => {
        sni.push(servername);
        callback(new Error('no certificate in this test'), undefined);
      },
    });
    tlsServer.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    const { port } = tlsServer.address() as AddressInfo;
    const lookup = vi.fn<HostLookup>(async () => [{ address: '127.0.0.1', family: 4 }]);
    try {
      // Act
      const result = await postWebhook(new URL(`https://hooks.test:${port}/hook`), BODY, HEADERS, { ...local, lookup });
      // Assess
      expect(sni).toEqual(['hooks.test']);
      expect(result.status_code).toBe(0);
      expect(result.error).toBeDefined();
    } finally {
      await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
    }
  });

  it('does not throw on a header value the HTTP layer rejects', async () => {
    const result = await postWebhook(ok.url(), BODY, { 'x-bad': 'a\r\nInjected: yes' }, local);
    expect(result.status_code).toBe(0);
    expect(result.error).toBeDefined();
    expect(ok.received).toHaveLength(0);
  });

  it('does not send to a non-http scheme', async () => {
    const result = await postWebhook(new URL('ftp://127.0.0.1/hook'), BODY, HEADERS, local);
    expect(result).toMatchObject({ status_code: 0, error: 'unsupported scheme ftp:' });
  });

  it('reports a TLS failure against a plain-HTTP port as status 0', async () => {
    const result = await postWebhook(new URL(`https://127.0.0.1:${ok.port}/hook`), BODY, HEADERS, local);
    expect(result.status_code).toBe(0);
    expect(result.error).toBeDefined();
  });
});
