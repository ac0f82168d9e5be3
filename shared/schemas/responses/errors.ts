import * as v from 'valibot';
import { type ErrorType, MESSAGES, OPERATION_IN_PROGRESS } from '../../domain/errors.ts';
import { Id } from './common.ts';

const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'card_error',
  'rate_limit_error',
  'idempotency_error',
  'api_error',
] as const satisfies readonly ErrorType[];

/** The one error shape (DECISIONS.md "Wire conventions"), rendered by shared/http/error-mapper.ts. */
export const ErrorBody = v.object({
  error: v.object({
    type: v.picklist(ERROR_TYPES),
    code: v.pipe(v.string(), v.description('machine-readable, e.g. parameter_invalid, invalid_state, card_declined')),
    message: v.picklist([...Object.values(MESSAGES), OPERATION_IN_PROGRESS]),
    param: v.optional(v.pipe(v.string(), v.description('the offending field (dot path) or header'))),
    decline_code: v.optional(v.pipe(v.string(), v.examples(['insufficient_funds']))),
    payment_id: v.optional(Id('payment')),
    request_id: v.pipe(v.string(), v.uuid(), v.examples(['3f0c2b1e-8d4a-4c6b-9a51-2f7e6d1c0b9a'])),
  }),
});
