/** The 400 codes docs/api.md "Answers and errors" names (no other 400 code is used). */
export const DOCUMENTED_400_CODES: ReadonlySet<string> = new Set([
  'parameter_invalid',
  'parameter_missing',
  'parameter_unknown',
  'invalid_state',
  'resource_missing',
  'invalid_json',
  'invalid_content_type',
  'body_too_large',
  'amount_too_large',
  'url_not_allowed',
  'idempotency_key_reused',
  'connector_verification_failed',
  'connector_missing',
  'livemode_not_allowed',
  'webhook_verification_failed',
  'customer_has_no_phone',
  'too_many_connectors',
  'too_many_rules',
  'too_many_webhooks',
  'no_webhook_endpoint',
  'test_helper_unavailable',
  'provider_refused',
]);

/** What a message written for people never holds: a validator's words and expected types, a regular expression. */
export const VALIDATOR_JARGON =
  /\b(expected|received|never|invalid type|invalid key|undefined|schema|valibot|picklist|union)\b|\/\^|\$\/|\\d|\\s|\[0-9|\{\d+,\d*\}/i;
