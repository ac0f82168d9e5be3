/**
 * HTTP requests with exactly the headers given: names in their own case and order, repeated names as separate lines
 * (fetch lower-cases, merges repeats and silently drops a header named `__proto__`). Body as bytes, any size.
 */
import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Lower-cased names, as Node parses them. */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface RawRequest {
  method?: string;
  /** Path and query, sent as given (not normalized or re-encoded). */
  path: string;
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: string | Buffer;
}

export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const headers: string[] = [];
  for (const [name, value] of req.headers ?? []) headers.push(name, value);
  if (!(req.headers ?? []).some(([name]) => name.toLowerCase() === 'host')) headers.push('Host', `${hostname}:${port}`);
  if (req.body !== undefined) headers.push('Content-Length', String(Buffer.byteLength(req.body)));
  return new Promise((resolve, reject) => {
    const r = request(
      // `localhost` may resolve to ::1 first while the gateway listens on 127.0.0.1.
      { host: hostname === 'localhost' ? '127.0.0.1' : hostname, port, method: req.method ?? 'GET', path: req.path, headers, setHost: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          let json: unknown;
          try {
            json = JSON.parse(body.toString('utf8'));
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
        });
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });
}

/**
 * Bytes written to a plain socket as they are (a malformed request line or header that no HTTP client would send),
 * and the answer read to the server's close: its status, lower-cased headers and JSON body.
 */
export function rawExchange(baseUrl: string, bytes: string): Promise<{ status: number; headers: Record<string, string>; json: unknown }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect({ host: hostname === 'localhost' ? '127.0.0.1' : hostname, port: Number(port) }, () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, json });
    });
  });
}
