/**
 * Adyen's standard notifications (Webhooks v1 `NotificationRequest`, JSON): every item carries
 * `additionalData.hmacSignature`, checked with the SDK's HmacValidator (loaded on first use) against the connector's
 * `hmac_key`. One item unsigned or forged makes the whole request unverified: nothing in it is applied. A verified
 * request is acknowledged with `[accepted]` (text/plain), the answer Adyen waits for before it stops retrying.
 */
import * as v from 'valibot';
import type { InboundWebhook, WebhookVerification } from '../types.ts';
import type { AdyenCredentials } from './credentials.ts';
import { type NotificationItem, notificationOf } from './changes.ts';

const ItemSchema = v.looseObject({
  eventCode: v.string(),
  pspReference: v.string(),
  originalReference: v.optional(v.string()),
  merchantAccountCode: v.string(),
  merchantReference: v.string(),
  eventDate: v.string(),
  success: v.string(),
  amount: v.looseObject({ value: v.number(), currency: v.string() }),
  reason: v.optional(v.string()),
  additionalData: v.optional(v.record(v.string(), v.optional(v.string()))),
});
const NotificationRequestSchema = v.looseObject({
  live: v.optional(v.string()),
  notificationItems: v.pipe(v.array(v.looseObject({ NotificationRequestItem: ItemSchema })), v.minLength(1)),
});

type HmacValidatorClass = typeof import('@adyen/api-library/lib/src/utils/hmacValidator.js').default;

/**
 * The SDK's validator class. The module is CommonJS (`exports.default`): a bundler or tsx hands the class over as the
 * default import, Node's own ESM loader the whole `exports` object.
 */
async function hmacValidatorClass(): Promise<HmacValidatorClass> {
  const loaded = (await import('@adyen/api-library/lib/src/utils/hmacValidator.js')).default as unknown as
    HmacValidatorClass | { default: HmacValidatorClass };
  return 'default' in loaded ? loaded.default : loaded;
}

const ACKNOWLEDGEMENT = { contentType: 'text/plain', body: '[accepted]' };

export async function parseWebhook(credentials: AdyenCredentials, request: InboundWebhook): Promise<WebhookVerification> {
  const hmacKey = credentials.hmac_key;
  if (!hmacKey) return { ok: false, reason: 'the connector has no hmac_key: Adyen notifications cannot be verified' };
  let body: unknown;
  try {
    body = JSON.parse(request.body);
  } catch {
    return { ok: false, reason: 'the body is not JSON' };
  }
  const parsed = v.safeParse(NotificationRequestSchema, body);
  if (!parsed.success) return { ok: false, reason: 'the body is not an Adyen NotificationRequest' };
  const items: NotificationItem[] = parsed.output.notificationItems.map((wrapper) => wrapper.NotificationRequestItem);

  const validator = new (await hmacValidatorClass())();
  for (const item of items) {
    if (!item.additionalData?.hmacSignature) return { ok: false, reason: 'unsigned: a notification item has no additionalData.hmacSignature' };
    if (!validator.validateHMAC(item as Parameters<typeof validator.validateHMAC>[0], hmacKey))
      return { ok: false, reason: 'forged: a notification item does not match its HMAC signature under the connector’s hmac_key' };
  }
  const receivedAt = new Date().toISOString();
  return {
    ok: true,
    notifications: items.map((item) => notificationOf(item, credentials.merchant_account, receivedAt)),
    acknowledgement: ACKNOWLEDGEMENT,
  };
}
