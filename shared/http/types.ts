import type { Request } from '@middy/core';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { Merchant } from '../domain/auth.ts';
import type { Origin } from '../domain/ids.ts';

export type { Merchant };

/** What the chain learns about a request on its way to the handler. */
export interface RequestState {
  requestId: string;
  sourceIp: string;
  /** Headers every response of this request carries (Request-Id, rate-limit headers). */
  responseHeaders: Record<string, string>;
  merchant?: Merchant;
  /** the JSON body as sent (before validation) */
  rawBody: unknown;
  /** the validated body */
  body: unknown;
  query: unknown;
  params: Record<string, string>;
  /** where this API is reached, e.g. `https://abc.execute-api.eu-west-1.amazonaws.com/v1` or `http://localhost:3000` */
  baseUrl: string;
  /** ids and creation time of what the request creates (the same on an idempotent retry) */
  origin: Origin;
}

type AnyRequest = Pick<Request<APIGatewayProxyEvent, unknown, Error, Context>, 'event'>;

/** The state travels with the event object, so every phase and the handler itself reach the same one. */
const states = new WeakMap<APIGatewayProxyEvent, RequestState>();

export const initState = (event: APIGatewayProxyEvent, state: RequestState): void => void states.set(event, state);
export const stateOfEvent = (event: APIGatewayProxyEvent): RequestState => states.get(event)!;
export const stateOf = (request: AnyRequest): RequestState => stateOfEvent(request.event);
