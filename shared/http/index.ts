import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type * as v from 'valibot';
import type { Entity, Origin } from '../model/ids.ts';
import { logger } from '../logger.ts';
import { audited } from '../model/audit.ts';
import { auditScope } from './audit.ts';
import { auth as authenticate, sessionAuth } from './auth.ts';
import { permissionCheck } from './permission.ts';
import type { Permission } from '../model/permissions.ts';
import { errorMapper } from './error-mapper.ts';
import { idempotency } from './idempotency.ts';
import { jsonBody } from './json-body.ts';
import { rawBody } from './raw-body.ts';
import { formBody } from './form-body.ts';
import { admission, rateLimit, type RateLimitOptions } from './rate-limit.ts';
import { FileBody, fileResponse, jsonResponse, Redirect, redirectResponse } from './response.ts';

export { FileBody, Redirect };
import { requestContext } from './request-context.ts';
import { type Auth, authenticated, type Merchant, type SessionHolder, stateOfContext, stateToContext } from './types.ts';
import { type AnySchema, pathIds, validate } from './validate.ts';
import { traceInvocation } from '../tracer.ts';

type Out<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;
/** What the function may return: what its response schema accepts (so the schema cannot drift from the view). */
type Returned<R> = R extends v.GenericSchema ? v.InferInput<R> : unknown;

export interface HttpOptions<A extends Auth, B, Q, P extends Record<string, Entity>, R = AnySchema | undefined> {
  auth: A;
  /** what a merchant's credential must hold to call it (required unless `auth` is public or session; the catalog says the same) */
  permission?: Permission;
  body?: B;
  query?: Q;
  /** path parameters → the entity whose id they carry */
  params?: P;
  /** the 200 body (shared/schemas/responses): checked against the function's return type, and documented */
  response?: R;
  /** instead of `response`: the content type of a file answer (`FileBody`), e.g. `application/pdf` */
  file?: string;
  /** error statuses the function itself raises beyond those the options imply (see infra/openapi/statuses.ts) */
  errors?: readonly number[];
  rateLimit?: RateLimitOptions;
  /**
   * honour Idempotency-Key (every merchant POST); `withhold` names response fields shown once (a new secret),
   * which are never stored with the response and so are absent from a replay
   */
  idempotent?: boolean | { withhold: readonly string[] };
  /** the body is not JSON: the function gets it as sent (`raw`), for a signature over its bytes */
  rawBody?: true;
  /** the body is a form a shopper's browser posts (`application/x-www-form-urlencoded`), validated by `body` */
  form?: true;
  /** a shopper-facing page that may send the shopper on (`Redirect`: 303 See Other) instead of answering 200 */
  redirects?: true;
}

export interface HttpInput<A extends Auth, B, Q, P> {
  merchant: A extends 'merchant' | 'publishable' ? Merchant : undefined;
  /** with `auth: 'session'`: the sign-in session (which may act for no merchant yet) */
  session: A extends 'session' ? SessionHolder : undefined;
  body: Out<B>;
  query: Out<Q>;
  params: { [K in keyof P]: string };
  sourceIp: string;
  requestId: string;
  /** the API's public base URL as this request reached it (for links such as an invoice's `pdf_url`) */
  baseUrl: string;
  /** ids and creation time for what the request creates: an idempotent retry gets the same (shared/model/ids.ts) */
  origin: Origin;
  /** with `rawBody`: the body as sent and the (lower-cased) headers */
  raw: { headers: Readonly<Record<string, string | undefined>>; body: string };
  /** with a `concurrent` rate limit: awaited before the function's first write (rejects with the 429); else settled */
  admitted: Promise<void>;
  /** headers the 200 answer carries besides the chain's (a sign-in's `Set-Cookie`); set them once the work is done */
  responseHeaders: Record<string, string>;
}

export type HttpHandler = middy.MiddyfiedHandler<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> & {
  /** the declared options, read by the catalog consistency test and the OpenAPI document */
  readonly options: Readonly<HttpOptions<Auth, AnySchema | undefined, AnySchema | undefined, Record<string, Entity>>>;
};

/**
 * Builds an HTTP Lambda: trace and logger context (Powertools), request id, header normalization, error mapping, auth, permission, rate limit, path ids, JSON body,
 * validation, idempotency, (with a concurrent rate limit) admission and the audit entry's scope, in that order. The function receives validated
 * input and returns the 200 body.
 */
export function http<
  A extends Auth,
  B extends AnySchema | undefined = undefined,
  Q extends AnySchema | undefined = undefined,
  P extends Record<string, Entity> = Record<never, Entity>,
  R extends AnySchema | undefined = undefined,
>(options: HttpOptions<A, B, Q, P, R>, fn: (input: HttpInput<A, B, Q, P>) => Promise<Returned<R>>): HttpHandler {
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(traceInvocation())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(requestContext())
    .use(httpHeaderNormalizer())
    // a shopper-facing answer (the hosted pages and their scripts) gets its errors as a page too
    .use(errorMapper({ page: options.file === 'text/html' || options.file === 'text/javascript' }));
  const merchantOnly = authenticated(options.auth);
  if (options.auth === 'session') chain.use(sessionAuth());
  else if (merchantOnly) {
    if (options.permission === undefined) throw new Error('An endpoint that takes a merchant credential declares its `permission`');
    chain.use(authenticate({ publishable: options.auth === 'publishable' })).use(permissionCheck(options.permission));
  }
  if (options.rateLimit) chain.use(rateLimit(options.rateLimit, { replaysFree: Boolean(options.idempotent) && merchantOnly }));
  if (options.params) chain.use(pathIds(options.params));
  const strictQuery = merchantOnly;
  if (options.rawBody) chain.use(rawBody()).use(validate({ query: options.query, strictQuery }));
  else chain.use(options.form ? formBody() : jsonBody()).use(validate({ body: options.body, query: options.query, strictQuery }));
  if (options.idempotent && merchantOnly) chain.use(idempotency(options.idempotent === true ? {} : options.idempotent));
  if (options.rateLimit?.concurrent) chain.use(admission());
  if (merchantOnly && options.auth !== 'session') chain.use(auditScope(options.permission));
  chain.use(stateToContext());

  const handler = chain.handler(async (event, context) => {
    const state = stateOfContext(context);
    const run = () =>
      fn({
        merchant: state.merchant as HttpInput<A, B, Q, P>['merchant'],
        session: state.session as HttpInput<A, B, Q, P>['session'],
        body: state.body as Out<B>,
        query: state.query as Out<Q>,
        params: state.params as HttpInput<A, B, Q, P>['params'],
        sourceIp: state.sourceIp,
        requestId: state.requestId,
        baseUrl: state.baseUrl,
        origin: state.origin,
        raw: { headers: event.headers ?? {}, body: typeof state.rawBody === 'string' ? state.rawBody : '' },
        admitted: state.admission ?? Promise.resolve(),
        responseHeaders: state.responseHeaders,
      });
    const result = state.audit ? await audited(state.audit, run) : await run();
    if (result instanceof Redirect) return redirectResponse(state, result);
    return result instanceof FileBody ? fileResponse(state, result) : jsonResponse(state, 200, result);
  });
  return Object.assign(handler, { options });
}
