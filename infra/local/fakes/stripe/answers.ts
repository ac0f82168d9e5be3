import { errorBody, type StripeErrorBody } from './objects.ts';

/** What the fake answers: HTTP status and body; `saved` when Stripe keeps it under the Idempotency-Key (an endpoint ran). */
export interface Answer {
  status: number;
  body: unknown;
  saved: boolean;
}

export const ok = (body: unknown): Answer => ({ status: 200, body, saved: true });
/** A parameter Stripe rejects before the endpoint runs: nothing is saved under the key. */
export const badParam = (param: string, message: string, code?: string): Answer => ({
  status: 400,
  body: errorBody({ type: 'invalid_request_error', param, message, ...(code ? { code } : {}) }),
  saved: false,
});
export const missing = (param: string, id: string, status = 400): Answer => ({
  status,
  body: errorBody({ type: 'invalid_request_error', code: 'resource_missing', param, message: `No such ${param}: '${id}'` }),
  saved: false,
});
/** The endpoint ran and refused (the object is in another state, an amount too large): saved under the key. */
export const refused = (error: Omit<StripeErrorBody, 'type'>): Answer => ({
  status: 400,
  body: errorBody({ type: 'invalid_request_error', ...error }),
  saved: true,
});

/** A `/_fake/*` control request that cannot be carried out (no such object, or not in a state that allows it). */
export class FakeControlError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}
