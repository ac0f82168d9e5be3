import * as v from 'valibot';
import { PROVIDERS } from '../providers/types.ts';
import { listQuery, Metadata } from './common.ts';

/**
 * Connector account bodies (DECISIONS "Providers, connector accounts and routing"). `credentials` is an object whose
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

export const CreateConnectorBody = v.object({
  provider: v.picklist(PROVIDERS),
  credentials: Credentials,
  label: v.optional(Label),
  metadata: v.optional(Metadata),
});

export const UpdateConnectorBody = v.object({
  label: v.optional(Label),
  credentials: v.optional(Credentials),
  status: v.optional(v.picklist(['active', 'disabled'])),
  /** replaces the metadata as a whole */
  metadata: v.optional(Metadata),
});

export const ListConnectorsQuery = listQuery('connector');
