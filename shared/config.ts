import * as v from 'valibot';

/**
 * Every environment variable the functions read, validated once at cold start.
 * `APP_ENV=local` switches the adapters that cannot run on a laptop (SES) to local ones.
 */
const ConfigSchema = v.object({
  APP_ENV: v.optional(v.picklist(['local', 'aws']), 'aws'),
  TABLE_NAME: v.pipe(v.string(), v.minLength(1)),
  /** HMAC key for OTPs and card fingerprints. Locally a fixed development value; in AWS read from Secrets Manager. */
  APP_SECRET: v.optional(v.pipe(v.string(), v.minLength(32))),
  APP_SECRET_ARN: v.optional(v.string()),
  /** how long a container keeps the app secret read from Secrets Manager before reading it again */
  APP_SECRET_MAX_AGE_SECONDS: v.optional(v.pipe(v.string(), v.regex(/^[1-9]\d*$/), v.transform(Number)), '300'),
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
  /** `POST /api/payments/create` requests a merchant may make per minute (DECISIONS "Rate limits"); ops may raise it */
  PAYMENTS_PER_MINUTE: v.optional(v.pipe(v.string(), v.regex(/^[1-9]\d*$/), v.transform(Number)), '100'),
  /** first webhook retry's jitter cap (doubling per attempt); lowered locally to watch retries happen */
  WEBHOOK_RETRY_BASE_MS: v.optional(v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number)), '10000'),
});

export type Config = v.InferOutput<typeof ConfigSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = v.safeParse(ConfigSchema, env);
  if (!result.success) {
    const problems = result.issues.map((i) => `${v.getDotPath(i) ?? '?'}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const config = result.output;
  if (!config.APP_SECRET && !config.APP_SECRET_ARN) throw new Error('Invalid configuration: APP_SECRET or APP_SECRET_ARN is required');
  return config;
}

export const config: Config = readConfig();
export const isLocal = config.APP_ENV === 'local';
