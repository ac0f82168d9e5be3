/**
 * One webhook POST, SSRF-safe: the host is resolved and checked (`resolveAndCheck`), then the connection is pinned to
 * the checked address through the request's `lookup` option, so the URL's host name still drives the `Host` header and
 * the TLS SNI / certificate check while a second DNS answer (rebinding) can never be used. No redirects are followed
 * (a 3xx is just the status code), the whole exchange — DNS, connect, TLS, response headers and body — is bounded by
 * `timeoutMs`, and at most 64 KB of the response body is read (and discarded). Network problems never throw: they
 * come back as `status_code: 0` with an `error`.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { classifyAddress, resolveAndCheck, type HostLookup } from './ssrf.ts';

export const WEBHOOK_USER_AGENT = 'payments-webhooks/1.0';
/** The response body is read up to this many bytes, then the connection is dropped. */
export const MAX_RESPONSE_BODY_BYTES = 64 * 1024;

export interface WebhookHttpResult {
  /** The HTTP status, or 0 when no response arrived (refused by the SSRF guard, DNS failure, connect error, timeout). */
  status_code: number;
  /** Wall time of the whole attempt, including DNS, in whole milliseconds. */
  latency_ms: number;
  /** Why there is no usable response: `'timeout'`, an SSRF refusal (`refused: …`), a DNS or connection error. */
  error?: string;
}

export interface PostWebhookOptions {
  timeoutMs: number;
  /** Local mode only: lets loopback addresses through the SSRF guard. */
  allowLoopback: boolean;
  /** Injectable resolver (tests); defaults to `dns.promises.lookup(host, { all: true })`. */
  lookup?: HostLookup;
}

/** Headers the client owns: a caller's value for these is dropped. */
const OWNED_HEADERS = new Set(['host', 'content-type', 'content-length', 'transfer-encoding', 'connection']);

const TIMED_OUT = Symbol('timed out');

function describeError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === undefined) return message === '' ? 'request failed' : message;
  if (message === '') return code;
  return message.includes(code) ? message : `${code}: ${message}`;
}

/** Resolves to the promise's value, or to TIMED_OUT once `ms` have passed (the promise is then abandoned). */
function beforeDeadline<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, ms));
  });
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
}

interface Outcome {
  status: number;
  error?: string;
}

function send(
  url: URL,
  hostname: string,
  pinned: { address: string; family: 4 | 6 },
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    // The checked address and nothing else: whatever the OS resolver would answer now is never asked.
    const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
      else callback(null, pinned.address, pinned.family);
    };
    const requestHeaders: Record<string, string | number> = { 'user-agent': WEBHOOK_USER_AGENT };
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      if (!OWNED_HEADERS.has(lower)) requestHeaders[lower] = value;
    }
    requestHeaders['content-type'] = 'application/json';
    requestHeaders['content-length'] = Buffer.byteLength(body);

    let req: http.ClientRequest;
    try {
      req = (url.protocol === 'https:' ? https : http).request({
        protocol: url.protocol,
        hostname, // the name (Host header, SNI, certificate check); the socket goes to the pinned address
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: requestHeaders,
        lookup,
        agent: false, // a fresh connection, never a pooled socket opened to some other address
      });
    } catch (err) {
      // e.g. a header value with a line break
      resolve({ status: 0, error: describeError(err) });
      return;
    }

    let settled = false;
    const finish = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ status: 0, error: 'timeout' }), Math.max(0, timeoutMs));

    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= MAX_RESPONSE_BODY_BYTES) finish({ status }); // enough: the rest is not read
      });
      res.on('end', () => finish({ status }));
      res.on('aborted', () => finish({ status, error: 'connection closed while reading the response body' }));
      res.on('error', () => finish({ status, error: 'connection closed while reading the response body' }));
    });
    req.on('error', (err) => finish({ status: 0, error: describeError(err) }));
    req.end(body);
  });
}

/**
 * POSTs `body` (JSON) with `headers` to `url`, after the SSRF check of every address the host resolves to, on a
 * connection pinned to the checked address. Plain `http:` is sent only to a loopback address. Never throws.
 */
export async function postWebhook(url: URL, body: string, headers: Record<string, string>, options: PostWebhookOptions): Promise<WebhookHttpResult> {
  const started = performance.now();
  const result = (status_code: number, error?: string): WebhookHttpResult => ({
    status_code,
    latency_ms: Math.max(0, Math.round(performance.now() - started)),
    ...(error === undefined ? {} : { error }),
  });
  const remaining = (): number => options.timeoutMs - (performance.now() - started);

  try {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return result(0, `unsupported scheme ${url.protocol}`);
    if (url.username !== '' || url.password !== '') return result(0, 'refused: credentials in the url');
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;

    const checked = await beforeDeadline(resolveAndCheck(hostname, { allowLoopback: options.allowLoopback, lookup: options.lookup }), remaining());
    if (checked === TIMED_OUT) return result(0, 'timeout');
    if (!checked.ok) return result(0, checked.reason);
    if (url.protocol === 'http:' && classifyAddress(checked.address) !== 'loopback') {
      return result(0, `refused: plain http to ${checked.address}; http is allowed only for loopback in local mode`);
    }
    if (remaining() <= 0) return result(0, 'timeout');

    const outcome = await send(url, hostname, checked, body, headers, remaining());
    return result(outcome.status, outcome.error);
  } catch (err) {
    return result(0, describeError(err));
  }
}
