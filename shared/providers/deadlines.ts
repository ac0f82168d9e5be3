/**
 * How long one provider may take to authorize before the attempt's outcome is `unknown` (then resolved by a look-up
 * under the same idempotency key, within `lookupMs`), and a capture, void or refund before its outcome is unknown
 * (the reconciler asks again under the same key). Three attempts fit in the create function's 10 s with room for
 * the writes. Tests shorten them.
 */
export const providerDeadlines = { authorizeMs: 2_500, lookupMs: 1_000, operationMs: 2_500 };
