/** Sign-in, API keys and customers as the API returns them (shared/domain/otp.ts, api-keys.ts, customers.ts). */
import * as v from 'valibot';
import { GRANTABLE, type Group } from '../../model/permissions.ts';
import { Email, Id, list, Livemode, Metadata, Phone, Timestamp } from './common.ts';

export const OtpRequested = v.object({
  request_id: Id('otpRequest'),
  expires_in: v.pipe(v.number(), v.integer(), v.description('seconds the code stays valid'), v.examples([600])),
});

const PublishableKey = v.pipe(
  v.string(),
  v.regex(/^pk_(live|test)_[0-9A-Za-z]{43}$/),
  v.description('a publishable key, in full: public by design'),
  v.examples(['pk_test_7Hq2mL9vT4kR1pZ8wN3bC6yF0hJ5dG2sA4eU7iO1qW3']),
);

const Level = v.picklist(['read', 'write']);

const apiKeyEntries = {
  id: Id('apiKey'),
  object: v.literal('api_key'),
  type: v.picklist(['secret', 'publishable', 'restricted']),
  name: v.pipe(v.string(), v.examples(['Checkout server'])),
  prefix: v.pipe(v.string(), v.regex(/^[spr]k_(live|test)_$/), v.examples(['sk_test_'])),
  last4: v.pipe(v.string(), v.length(4), v.examples(['x9Qa'])),
  mode: v.picklist(['live', 'test']),
  status: v.pipe(v.picklist(['active', 'rolled', 'revoked']), v.description('`rolled`: it has a successor and works until `expires_at`')),
  permissions: v.pipe(
    v.nullable(
      v.object(Object.fromEntries(GRANTABLE.map((group) => [group, v.optional(Level)])) as Record<Group, v.OptionalSchema<typeof Level, undefined>>),
    ),
    v.description("a restricted key's groups, each `read` or `write`; null for other keys"),
    v.examples([{ payments: 'write', customers: 'read' }]),
  ),
  expires_at: v.pipe(v.nullable(Timestamp), v.description('when the key stops working, or null')),
  allowed_ips: v.pipe(
    v.nullable(v.array(v.string())),
    v.description('the CIDRs the key may be used from, or null (anywhere)'),
    v.examples([['203.0.113.0/24']]),
  ),
  created_at: Timestamp,
  last_used: v.nullable(Timestamp),
};

/** A key as listed: a secret key by `prefix` and `last4`, never the key itself; a publishable key in full. */
export const ApiKey = v.object({ ...apiKeyEntries, key: v.optional(PublishableKey) });

/** A new key: the full `key` is in this answer only. */
export const NewApiKey = v.object({
  ...apiKeyEntries,
  key: v.optional(
    v.union([
      v.pipe(
        v.string(),
        v.regex(/^[sr]k_(live|test)_[0-9A-Za-z]{43}$/),
        v.description('A secret or restricted key, in this answer only: it is stored as a hash, so an idempotent replay of the create omits it.'),
        v.examples(['sk_test_4eC39HqLyjWDarjtT1zdp7dcXz81Kf0pLm3Rt7Ux9Qa']),
      ),
      PublishableKey,
    ]),
  ),
});

export const ApiKeyList = list(ApiKey);

export const Customer = v.object({
  id: Id('customer'),
  object: v.literal('customer'),
  livemode: Livemode,
  test_clock: v.pipe(v.nullable(Id('testClock')), v.description('the test clock its billing follows (test mode), or null')),
  email: Email,
  name: v.nullable(v.pipe(v.string(), v.examples(['Jane Doe']))),
  phone: v.nullable(Phone),
  metadata: Metadata,
  default_payment_method: v.pipe(v.nullable(Id('paymentMethod')), v.description('charged by default: the first attached, unless changed')),
  created_at: Timestamp,
});

export const CustomerList = list(Customer);

export const DeletedCustomer = v.object({ id: Id('customer'), object: v.literal('customer'), deleted: v.literal(true) });

export const Settings = v.object({
  object: v.literal('settings'),
  livemode: Livemode,
  checkout_origins: v.pipe(
    v.array(v.string()),
    v.description('origins whose pages may frame the hosted card fields, as browsers send them'),
    v.examples([['https://shop.example']]),
  ),
  business_name: v.pipe(v.string(), v.description('the name shoppers see (both modes); the sign-up e-mail until set'), v.examples(['Acme Tees'])),
  brand_color: v.pipe(v.nullable(v.string()), v.description('#rrggbb, the accent of the shopper pages; null: the default'), v.examples(['#0f766e'])),
  support_email: v.pipe(
    v.nullable(v.string()),
    v.description('shown to shoppers on pages and receipts; null: none'),
    v.examples(['help@acme.example']),
  ),
  updated_at: v.pipe(v.nullable(Timestamp), v.description('null until the first change')),
});
