import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { Merchant, SessionHolder } from '../domain/auth.ts';
import type { AuditRequest } from '../model/audit.ts';
import type { Entity, Origin } from '../model/ids.ts';

export type { Merchant, SessionHolder };

/**
 * Who may call an endpoint: anyone; a merchant with a secret API key or session token; (`publishable`) also a
 * publishable key, which may only create payment methods; or (`session`) a sign-in session token only, also one that
 * acts for no merchant yet (sign-out, accepting an invitation).
 */
export type Auth = 'public' | 'merchant' | 'publishable' | 'session';

/** An endpoint that needs a credential. */
export const authenticated = (auth: Auth): auth is 'merchant' | 'publishable' | 'session' => auth !== 'public';

/** What the chain learns about a request on its way to the handler. */
export interface RequestState {
  requestId: string;
  sourceIp: string;
  /** Headers every response of this request carries (Request-Id, rate-limit headers). */
  responseHeaders: Record<string, string>;
  merchant?: Merchant;
  /** with `auth: 'session'`: the sign-in session */
  session?: SessionHolder;
  /** the JSON body as sent (before validation) */
  rawBody: unknown;
  /** the validated body */
  body: unknown;
  query: unknown;
  params: Record<string, string>;
  /** the object the path names (its entity and the id as sent): what a 404 says was not found */
  pathTarget?: { entity: Entity; id: string };
  /** where this API is reached, e.g. `https://abc.execute-api.eu-west-1.amazonaws.com/v1` or `http://localhost:3000` */
  baseUrl: string;
  /** ids and creation time of what the request creates (the same on an idempotent retry) */
  origin: Origin;
  /** the rate limit's verdict on this request: resolves once it is counted, rejects with a 429 if refused */
  admission?: Promise<void>;
  /**
   * the rate limit's hold on this request: `count` counts it (once, however often called) and resolves when the
   * request may go on (a concurrent limit at once: its verdict is `admission`); `peek` sets the headers, counting nothing
   */
  rateLimit?: { count: () => Promise<void>; peek: () => Promise<void> };
  /** an audited request's entry, written by the first commit of its function (shared/http/audit.ts) */
  audit?: AuditRequest;
}

/** A Middy request of the chain (only the parts the state needs). */
type AnyRequest = Pick<Request<APIGatewayProxyEvent, unknown, Error, Context>, 'internal' | 'context'>;

/**
 * The state lives on Middy's `request.internal` (per request, seen by every middleware of the chain), under this
 * name; {@link stateToContext} hands it to the handler on `context`, the way Middy's own middlewares (e.g. @middy/ssm's
 * `setToContext`) hand values to a handler.
 */
const STATE = 'httpRequestState';

export const initState = (request: AnyRequest, state: RequestState): void => {
  (request.internal as Record<string, unknown>)[STATE] = state;
};

/** The request's state; undefined only if the chain failed before request-context ran. */
export const maybeStateOf = (request: AnyRequest): RequestState | undefined =>
  (request.internal as Record<string, unknown>)[STATE] as RequestState | undefined;

export const stateOf = (request: AnyRequest): RequestState => maybeStateOf(request)!;

/** The Lambda context as the handler sees it after {@link stateToContext}. */
export type ContextWithState = Context & { [STATE]: RequestState };

/** The chain's last `before` step: puts the state on `context` for the handler. */
export const stateToContext = (): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: (request) => {
    Object.assign(request.context, { [STATE]: stateOf(request) });
  },
});

/** The state a handler receives (from its `context`, see {@link stateToContext}). */
export const stateOfContext = (context: Context): RequestState => (context as ContextWithState)[STATE];
