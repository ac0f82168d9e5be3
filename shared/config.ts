import * as v from 'valibot';
import { arnVariableOf, SECRET_PURPOSES, SECRETS, type SecretVariable } from './secret-purposes.ts';

/**
 * Every environment variable the functions read, validated once at cold start.
 * `APP_ENV=local` switches the adapters that cannot run on a laptop (SES) to local ones.
 */
/** What a sandbox provider can be told to do wrong (shared/providers/sandbox.ts). */
export const SANDBOX_FAULTS = ['accept_then_timeout', 'accept_then_drop', 'accept_then_down'] as const;

/** An origin such as `http://127.0.0.1:12111`. */
const origin = v.optional(v.pipe(v.string(), v.url()));

/** `name=value,…` (blanks around names and values ignored), each value read by `value`. */
const namedValues = <T>(value: v.GenericSchema<string, T>) =>
  v.optional(
    v.pipe(
      v.string(),
      v.transform((text) => Object.fromEntries(text.split(',').flatMap((pair) => (pair.trim() ? [pair.split('=').map((s) => s.trim())] : [])))),
      v.record(v.pipe(v.string(), v.minLength(1)), value),
    ),
    '',
  );

/** Each purpose's secret (shared/secret-purposes.ts): the value (local only), or its Secrets Manager ARN (AWS). */
const secretValue = v.optional(v.pipe(v.string(), v.minLength(32)));
const secretArn = v.optional(v.pipe(v.string(), v.regex(/^arn:aws[\w-]*:secretsmanager:/)));
const secretVariables = Object.fromEntries(
  SECRET_PURPOSES.flatMap((purpose) => [
    [SECRETS[purpose].variable, secretValue],
    [arnVariableOf(purpose), secretArn],
  ]),
) as Record<SecretVariable, typeof secretValue> & Record<`${SecretVariable}_ARN`, typeof secretArn>;

const ConfigSchema = v.object({
  ...secretVariables,
  APP_ENV: v.optional(v.picklist(['local', 'aws']), 'aws'),
  TABLE_NAME: v.pipe(v.string(), v.minLength(1)),
  /** how long a container keeps a secret read from Secrets Manager before reading it again */
  SECRET_MAX_AGE_SECONDS: v.optional(v.pipe(v.string(), v.regex(/^[1-9]\d*$/), v.transform(Number)), '300'),
  OTP_SENDER_EMAIL: v.optional(v.pipe(v.string(), v.email()), 'no-reply@example.com'),
  LOG_LEVEL: v.optional(v.picklist(['DEBUG', 'INFO', 'WARN', 'ERROR']), 'INFO'),
  /** the `events` queue (table stream → webhook delivery) and its dead-letter queue */
  EVENTS_QUEUE_URL: v.optional(v.pipe(v.string(), v.url())),
  EVENTS_DLQ_URL: v.optional(v.pipe(v.string(), v.url())),
  /** the `renewals` queue (renewal scanner → renewal worker) and its dead-letter queue */
  RENEWALS_QUEUE_URL: v.optional(v.pipe(v.string(), v.url())),
  RENEWALS_DLQ_URL: v.optional(v.pipe(v.string(), v.url())),
  /** the `clocks` queue (a test clock's advance → its worker) and its dead-letter queue */
  CLOCKS_QUEUE_URL: v.optional(v.pipe(v.string(), v.url())),
  CLOCKS_DLQ_URL: v.optional(v.pipe(v.string(), v.url())),
  /** the `reconciliations` queue (the daily job → one run per connector account) and its dead-letter queue */
  RECONCILIATIONS_QUEUE_URL: v.optional(v.pipe(v.string(), v.url())),
  RECONCILIATIONS_DLQ_URL: v.optional(v.pipe(v.string(), v.url())),
  /** the `removals` queue (table stream → a deleted payment method's tokens removed) and its dead-letter queue */
  REMOVALS_QUEUE_URL: v.optional(v.pipe(v.string(), v.url())),
  REMOVALS_DLQ_URL: v.optional(v.pipe(v.string(), v.url())),
  /** the API's public base URL for links made outside a request (e.g. a renewal invoice's PDF link in an e-mail) */
  PUBLIC_API_URL: v.optional(
    v.pipe(
      v.string(),
      v.url(),
      v.transform((url) => url.replace(/\/+$/, '')),
    ),
  ),
  /** SMS (AWS End User Messaging): phone number, sender id, pool or ARN to send from (account default when absent) */
  SMS_ORIGINATION_IDENTITY: v.optional(v.pipe(v.string(), v.minLength(1))),
  SMS_CONFIGURATION_SET: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** WhatsApp (AWS End User Messaging Social): the business phone number id, and the approved template to send */
  WHATSAPP_PHONE_NUMBER_ID: v.optional(v.pipe(v.string(), v.minLength(1))),
  WHATSAPP_TEMPLATE_NAME: v.optional(v.pipe(v.string(), v.minLength(1)), 'invoice_ready'),
  WHATSAPP_TEMPLATE_LANGUAGE: v.optional(v.pipe(v.string(), v.minLength(2)), 'en'),
  WHATSAPP_META_API_VERSION: v.optional(v.pipe(v.string(), v.regex(/^v\d+\.\d+$/)), 'v20.0'),
  /** `POST /api/payments/create` requests a merchant may make per minute (docs/api.md "Rate limits"); ops may raise it */
  PAYMENTS_PER_MINUTE: v.optional(v.pipe(v.string(), v.regex(/^[1-9]\d*$/), v.transform(Number)), '100'),
  /** first webhook retry's jitter cap (doubling per attempt); lowered locally to watch retries happen */
  WEBHOOK_RETRY_BASE_MS: v.optional(v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number)), '10000'),
  /** provider API origins (unset: the provider's own, by mode); tests, `npm start` and staging point them at fakes */
  STRIPE_API_BASE_URL: origin,
  ADYEN_CHECKOUT_BASE_URL: origin,
  BRAINTREE_GATEWAY_URL: origin,
  /** the sandbox providers: `stripe=120,adyen=80` ms of latency, `adyen` unreachable, `stripe=accept_then_drop` */
  SANDBOX_LATENCY_MS: namedValues(v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number))),
  SANDBOX_DOWN: v.optional(
    v.pipe(
      v.string(),
      v.transform((text) =>
        text
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean),
      ),
    ),
    '',
  ),
  SANDBOX_FAULTS: namedValues(v.picklist(SANDBOX_FAULTS)),
  /** the card vault's tables (shared/store/vault.ts), set only for the functions the catalog lets use the vault */
  VAULT_TABLE: v.optional(v.pipe(v.string(), v.minLength(1))),
  VAULT_CVC_TABLE: v.optional(v.pipe(v.string(), v.minLength(1))),
  /**
   * the vault's KMS keys, one per mode (cloud), or a file holding one raw AES-256 key per mode (locally and in tests):
   * one of them
   */
  VAULT_TEST_KMS_KEY_ARN: v.optional(v.pipe(v.string(), v.regex(/^arn:aws[\w-]*:kms:/))),
  VAULT_LIVE_KMS_KEY_ARN: v.optional(v.pipe(v.string(), v.regex(/^arn:aws[\w-]*:kms:/))),
  VAULT_KEY_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
});

export type Config = v.InferOutput<typeof ConfigSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = v.safeParse(ConfigSchema, env);
  if (!result.success) {
    const problems = result.issues.map((i) => `${v.getDotPath(i) ?? '?'}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const config = result.output;
  checkSecrets(config);
  const kms = !!config.VAULT_TEST_KMS_KEY_ARN && !!config.VAULT_LIVE_KMS_KEY_ARN;
  const someKms = !!config.VAULT_TEST_KMS_KEY_ARN || !!config.VAULT_LIVE_KMS_KEY_ARN;
  if (config.VAULT_TABLE && (kms === !!config.VAULT_KEY_FILE || someKms !== kms)) {
    throw new Error('Invalid configuration: VAULT_TABLE needs exactly one of VAULT_TEST_KMS_KEY_ARN with VAULT_LIVE_KMS_KEY_ARN, and VAULT_KEY_FILE');
  }
  if (!config.VAULT_TABLE !== !config.VAULT_CVC_TABLE) throw new Error('Invalid configuration: VAULT_TABLE and VAULT_CVC_TABLE go together');
  if (config.VAULT_KEY_FILE && config.APP_ENV !== 'local') throw new Error('Invalid configuration: VAULT_KEY_FILE is for APP_ENV=local only');
  return config;
}

/**
 * A function is given a purpose's secret one way: its value locally, its ARN in AWS. Two purposes never share a value
 * (each secret has one purpose). Which purposes a function is given is the catalog's; a read of another fails then.
 */
function checkSecrets(config: Config): void {
  const seen = new Map<string, string>();
  for (const purpose of SECRET_PURPOSES) {
    const variable = SECRETS[purpose].variable;
    const value = config[variable];
    if (value !== undefined && config[arnVariableOf(purpose)] !== undefined) {
      throw new Error(`Invalid configuration: ${variable} and ${arnVariableOf(purpose)} are both set`);
    }
    if (value === undefined) continue;
    if (config.APP_ENV !== 'local')
      throw new Error(`Invalid configuration: ${variable} is for APP_ENV=local only (in AWS: ${arnVariableOf(purpose)})`);
    const other = seen.get(value);
    if (other) throw new Error(`Invalid configuration: ${other} and ${variable} hold the same value (each secret has one purpose)`);
    seen.set(value, variable);
  }
}

export const config: Config = readConfig();
export const isLocal = config.APP_ENV === 'local';
