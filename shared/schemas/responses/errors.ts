import * as v from 'valibot';
import { type ErrorType, MESSAGES, OPERATION_IN_PROGRESS } from '../../model/errors.ts';
import { Id } from './common.ts';

const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'card_error',
  'rate_limit_error',
  'idempotency_error',
  'api_error',
] as const satisfies readonly ErrorType[];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** A message starts with the status's sentence (docs/api.md "Answers and errors") (429's with the endpoint's limit), then `: ` and a reason. */
const MESSAGE_PATTERN = new RegExp(
  `^(${[...Object.values(MESSAGES), OPERATION_IN_PROGRESS].map((text) => escape(text).replace('100', '\\d+')).join('|')})(: .+)?$`,
);

/** The one error shape (docs/api.md "Answers and errors"), rendered by shared/http/error-mapper.ts. */
export const ErrorBody = v.object({
  error: v.object({
    type: v.picklist(ERROR_TYPES),
    code: v.pipe(v.string(), v.description('machine-readable, e.g. parameter_invalid, invalid_state, card_declined')),
    message: v.pipe(
      v.string(),
      v.regex(MESSAGE_PATTERN),
      v.description(
        "the status's sentence (e.g. `Resource not found`), then `: ` and the reason where one is known, e.g. `Resource not found: no payment pay_… in test mode`",
      ),
    ),
    param: v.optional(v.pipe(v.string(), v.description('the offending field (dot path) or header'))),
    decline_code: v.optional(v.pipe(v.string(), v.examples(['insufficient_funds']))),
    payment_id: v.optional(Id('payment')),
    request_id: v.pipe(v.string(), v.uuid(), v.examples(['3f0c2b1e-8d4a-4c6b-9a51-2f7e6d1c0b9a'])),
  }),
});
