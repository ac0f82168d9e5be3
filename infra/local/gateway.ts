/**
 * The local API Gateway: a Node HTTP server that turns each request into the REST proxy event API Gateway would
 * send, runs the catalog's function in this process (so in-memory adapters such as the local outbox are shared),
 * and writes the proxy result back.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FunctionSpec, HttpFunctionSpec } from '../../functions/catalog.ts';
import type { DashboardFiles } from '../../dashboard/build.ts';
import { dashboardRoutes } from './dashboard.ts';
import { docsRoutes, type StaticAnswer } from './docs.ts';
import { apiGatewayEvent, invokeFunction, loadHandler, normalizeProxyResult, type HandlerLoader } from './lambda.ts';
import { matchRoute, methodsForPath } from './router.ts';

/** API Gateway's payload limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** The request line and headers together, as Node's default (stated, so the 400 can name it). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** Why Node's parser refused a request (its `HPE_…` codes), in words: [reason, param]. */
const PARSE_FAULTS: Record<string, readonly [string, string?]> = {
  HPE_HEADER_OVERFLOW: [`the request line and headers are over ${MAX_HEADER_BYTES / 1024} KB in all`],
  HPE_INVALID_METHOD: ['the request line is malformed: it must be a method, a path and HTTP/1.1'],
  HPE_INVALID_URL: ['the request line is malformed: the path is not a valid URL path'],
  HPE_INVALID_VERSION: ['the request line is malformed: the version must be HTTP/1.0 or HTTP/1.1'],
  HPE_INVALID_CONSTANT: ['the request line is malformed: it must end with HTTP/1.1'],
  HPE_INVALID_HEADER_TOKEN: ['a header line is malformed: a header is a name, a colon and a value'],
  HPE_INVALID_CONTENT_LENGTH: ['the Content-Length header must be one number of bytes', 'Content-Length'],
  HPE_UNEXPECTED_CONTENT_LENGTH: ['a request cannot have both Content-Length and Transfer-Encoding', 'Content-Length'],
  HPE_INVALID_TRANSFER_ENCODING: ['the Transfer-Encoding header must end with chunked', 'Transfer-Encoding'],
  HPE_INVALID_CHUNK_SIZE: ['the chunked body is malformed'],
  ERR_HTTP_REQUEST_TIMEOUT: ['the request did not arrive in time'],
};

/** The gateway's own answers, in the error shape of docs/api.md "Answers and errors" like the deployed API's gateway responses. */
export const routeNotFound = (requestId: string) => ({
  error: { type: 'invalid_request_error', code: 'route_not_found', message: 'Resource not found', request_id: requestId },
});
export const payloadTooLarge = (requestId: string) => ({
  error: { type: 'invalid_request_error', code: 'body_too_large', message: 'Invalid request body', request_id: requestId },
});
/**
 * A request Node's HTTP parser refuses (headers over MAX_HEADER_BYTES, a malformed request line or header): 400 in the
 * error shape, with the reason in words (docs/api.md "Requests": 400 is the status of any malformed request).
 */
export const unparsedRequest = (requestId: string, reason: string, param?: string) => ({
  error: {
    type: 'invalid_request_error',
    code: 'parameter_invalid',
    message: `Invalid request body: ${reason}`,
    ...(param && { param }),
    request_id: requestId,
  },
});
export const internalError = (requestId: string) => ({
  error: { type: 'api_error', code: 'internal_error', message: 'Internal server error', request_id: requestId },
});

export interface GatewayOptions {
  /** 0 = any free port. */
  port: number;
  /** Default `127.0.0.1`. */
  host?: string;
  catalog: readonly FunctionSpec[];
  /** How handlers are loaded (tests inject fakes). Default: import `functions/<name>.ts`. */
  loader?: HandlerLoader;
  /** Request log line sink; `false` = silent. Default `console.log`. */
  log?: ((line: string) => void) | false;
  /** Extra local-only routes (`GET /_local/...`): path → JSON body producer. Default: `/_local/outbox`. */
  localRoutes?: Record<string, () => Promise<unknown> | unknown>;
  /** Serve `GET /api/openapi.json` and the docs page `GET /docs` (docs.ts). Default true. */
  docs?: boolean;
  /** Serve the dashboard at `/dashboard` (and `/` → there) from this build (dashboard.ts). Default: not served. */
  dashboard?: () => Promise<DashboardFiles>;
  /**
   * The address every request seems to come from, instead of the socket's. Tests give each gateway its own, so the
   * per-address limits (hosted pages, sign-in) count one test file's requests, not every file's on 127.0.0.1.
   */
  clientIp?: string;
}

export interface Gateway {
  url: string;
  port: number;
  close(): Promise<void>;
}

interface Route {
  method: string;
  path: string;
  spec: HttpFunctionSpec;
}

/** `GET /_local/outbox`: messages the local e-mail/SQS adapters sent, newest last. */
async function localOutbox(): Promise<unknown> {
  const { listLocalOutbox } = await import('../../shared/messaging/local-outbox.ts');
  return { data: listLocalOutbox() };
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const routes: Route[] = options.catalog
    .filter((f): f is HttpFunctionSpec => f.trigger.type === 'http')
    .map((spec) => ({ method: spec.trigger.method, path: spec.trigger.path, spec }));
  const loader = options.loader ?? loadHandler;
  const log = options.log === false ? () => undefined : (options.log ?? ((line: string) => console.log(line)));
  const localRoutes = options.localRoutes ?? { '/_local/outbox': localOutbox };
  let url = '';
  const docs = options.docs === false ? async () => undefined : docsRoutes(() => url);
  const dashboard = options.dashboard ? dashboardRoutes(options.dashboard) : async () => undefined;

  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    // Every answer carries its request id, the gateway's own 500 included.
    const requestId = randomUUID();
    handle(req, res, requestId).catch((err: unknown) => {
      console.error('[gateway] unexpected error', err);
      if (res.headersSent) return void res.destroy();
      // Whatever was half-written (a handler's headers) is dropped: the answer is the error alone.
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      sendJson(res, 500, internalError(requestId), requestId);
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const rawQuery = q === -1 ? '' : rawUrl.slice(q + 1);
    const done = (status: number, fn = '') =>
      log(`${method} ${rawUrl} → ${status} ${Math.round(performance.now() - started)} ms${fn ? `  [${fn}]` : ''}`);

    const local = Object.hasOwn(localRoutes, path) ? localRoutes[path] : undefined;
    if (local && method === 'GET') {
      try {
        sendJson(res, 200, await local(), requestId);
        done(200, 'local');
      } catch (err) {
        console.error(`[gateway] ${path} failed:`, err);
        sendJson(res, 500, internalError(requestId), requestId);
        done(500, 'local');
      }
      return;
    }
    const page = await dashboard(method, path, res);
    if (page) {
      done(page.status, 'dashboard');
      return;
    }
    const doc = method === 'GET' ? await docs(path) : undefined;
    if (doc) {
      sendStatic(res, doc, requestId);
      done(200, 'docs');
      return;
    }

    const match = matchRoute(routes, method, path);
    if (!match) {
      // API Gateway answers 403 "Missing Authentication Token" here; the API documents a 404 in its error shape.
      await drain(req);
      sendJson(res, 404, routeNotFound(requestId), requestId);
      const methods = methodsForPath(routes, path);
      done(404, methods.length ? `no ${method}; ${methods.join(', ')} exist` : 'no route');
      return;
    }

    const body = await readBody(req);
    if (body === undefined) {
      // API Gateway's own limit (the API's 64 KB rule is the handlers' business).
      sendJson(res, 413, payloadTooLarge(requestId), requestId);
      done(413);
      return;
    }

    const spec = match.route.spec;
    const event = apiGatewayEvent({
      method,
      path,
      resource: match.resource,
      pathParameters: match.pathParameters,
      headers: pairs(req.rawHeaders),
      rawQuery,
      body: body.length > 0 ? body.toString('utf8') : null,
      sourceIp: options.clientIp ?? clientIp(req),
      // API Gateway's own name for the API (what links are built on), never the client's Host header.
      domainName: new URL(url).host,
      requestId,
      operationName: spec.name,
    });

    let result;
    try {
      result = normalizeProxyResult(await invokeFunction(spec, event, { loader }));
    } catch (err) {
      console.error(`[gateway] ${spec.name} failed:`, err);
      sendJson(res, 500, internalError(requestId), requestId);
      done(500, spec.name);
      return;
    }
    res.statusCode = result.statusCode;
    for (const [name, values] of Object.entries(result.headers)) {
      res.setHeader(name, values.length === 1 ? values[0]! : values);
    }
    if (!res.hasHeader('x-amzn-requestid')) res.setHeader('x-amzn-RequestId', requestId);
    res.setHeader('Content-Length', result.body.length);
    res.end(result.body);
    done(result.statusCode, spec.name);
  }

  // Requests Node's HTTP parser refuses before there is a request (headers over MAX_HEADER_BYTES, a malformed request
  // line or header): answered 400 in the error shape with a request id too, not with Node's bare status line.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const requestId = randomUUID();
    const [reason, param] = PARSE_FAULTS[err.code ?? ''] ?? ['the request is not valid HTTP/1.1'];
    const payload = JSON.stringify(unparsedRequest(requestId, reason, param));
    log(`(unparsed request) → 400  [${err.code ?? err.message}]`);
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nRequest-Id: ${requestId}\r\n` +
        `x-amzn-RequestId: ${requestId}\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
    );
    // A client still sending (the rest of 70 KB of headers) is read to its end, not reset: a reset could discard
    // the answer before the client reads it. A client that never stops is cut after a few seconds.
    socket.resume();
    setTimeout(() => socket.destroy(), 5000).unref();
  });

  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', fail);
      ready();
    });
  });
  const { port } = server.address() as AddressInfo;
  const displayHost = !options.host || options.host === '127.0.0.1' || options.host === '0.0.0.0' ? 'localhost' : options.host;
  url = `http://${displayHost}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    close: () =>
      (closing ??= new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeIdleConnections();
        // Requests still running get a short grace period, then their connections are cut.
        setTimeout(() => server.closeAllConnections(), 1000).unref();
      })),
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, requestId?: string): void {
  const payload = Buffer.from(JSON.stringify(body));
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  if (requestId) {
    res.setHeader('Request-Id', requestId);
    res.setHeader('x-amzn-RequestId', requestId);
  }
  res.setHeader('Content-Length', payload.length);
  res.end(payload);
}

function sendStatic(res: ServerResponse, answer: StaticAnswer, requestId: string): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', answer.contentType);
  res.setHeader('Request-Id', requestId);
  res.setHeader('Content-Length', Buffer.byteLength(answer.body));
  res.end(answer.body);
}

/** Node's flat `rawHeaders` → [name, value] pairs, original case and order. */
function pairs(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}

function clientIp(req: IncomingMessage): string {
  const ip = req.socket.remoteAddress ?? '127.0.0.1';
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

/** The whole body, or undefined when it exceeds API Gateway's limit. */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) tooLarge = true;
    if (!tooLarge) chunks.push(chunk);
  }
  return tooLarge ? undefined : Buffer.concat(chunks);
}

async function drain(req: IncomingMessage): Promise<void> {
  for await (const _chunk of req) {
    // discard
  }
}
