import * as v from 'valibot';
import { PROVIDERS } from '../providers/types.ts';
import { listQuery, Metadata } from './common.ts';

/**
 * Connector account bodies (docs/api.md "Providers and connector accounts"). `credentials` is an object whose
 * fields each provider's module checks (shared/providers/<name>/): a wrong or missing field is a 400 naming it, e.g.
 * `credentials.secret_key`. `label` 1–100 characters, trimmed.
 */
const Label = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100), v.examples(['Stripe EU']));
const Credentials = v.pipe(
  v.record(v.string(), v.unknown()),
  v.description(
    'the provider account credentials: stripe {secret_key, webhook_secret?}; adyen {api_key, merchant_account, hmac_key?, live_url_prefix?}; braintree {merchant_id, public_key, private_key, merchant_account_ids?}',
  ),
  v.examples([{ secret_key: 'sk_test_…' }]),
);

/**
 * The account's price for a card payment: `percent` of the amount (0–100, at most 4 decimals) plus `fixed` minor
 * units. Routing's cost and the expected fee of a payout line use it.
 */
export const Fees = v.pipe(
  v.object({
    percent: v.pipe(
      v.number(),
      v.minValue(0),
      v.maxValue(100),
      v.check((n) => Math.abs(n * 10_000 - Math.round(n * 10_000)) < 1e-6, 'a number with at most 4 decimals'),
    ),
    fixed: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100_000)),
  }),
  v.description("the account's card price: percent of the amount plus fixed minor units (default: the provider's standard price)"),
  v.examples([{ percent: 2.9, fixed: 30 }]),
);

export const CreateConnectorBody = v.object({
  provider: v.picklist(PROVIDERS),
  credentials: Credentials,
  label: v.optional(Label),
  fees: v.optional(Fees),
  metadata: v.optional(Metadata),
});

export const UpdateConnectorBody = v.object({
  label: v.optional(Label),
  credentials: v.optional(Credentials),
  status: v.optional(v.picklist(['active', 'disabled'])),
  fees: v.optional(Fees),
  /** replaces the metadata as a whole */
  metadata: v.optional(Metadata),
});

export const ListConnectorsQuery = listQuery('connector');
