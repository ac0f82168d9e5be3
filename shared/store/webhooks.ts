import * as v from 'valibot';
import { EVENT_TYPES, type EventType } from '../domain/events.ts';
import type { Transition } from '../domain/state-machines.ts';
import type { Created } from './client.ts';
import { commit } from './commit.ts';
import { picklistOf, recordReader, Text } from './item-schemas.ts';
import { type Owner, webhookKeys } from './keys.ts';
import { deleteWithinMerchantCap, putWithinMerchantCap } from './merchants.ts';
import { listPage, merchantSet, merchantSetItems, type Page, type PageQuery } from './pagination.ts';

export interface WebhookRecord {
  id: string;
  merchant_id: string;
  livemode: boolean;
  url: string;
  /** event names, or `*` for all */
  events: (EventType | '*')[];
  status: 'active' | 'disabled';
  /** the `whsec_…` signing secret, sealed (shared/webhooks/sealed-secret.ts); shown in clear to the merchant once */
  secret_sealed: string;
  created_at: string;
  disabled_reason?: string;
}

/**
 * The endpoint as the table holds it, checked when read back (see item-schemas.ts). `disabled_reason` comes with a
 * 410 Gone. An endpoint without `secret_sealed` is refused: it cannot be signed for.
 */
const WebhookItem = v.object({
  id: Text,
  merchant_id: Text,
  livemode: v.boolean(),
  url: Text,
  events: v.array(v.picklist([...EVENT_TYPES, '*'])),
  status: picklistOf<WebhookRecord['status']>()(['active', 'disabled']),
  secret_sealed: Text,
  created_at: Text,
  disabled_reason: v.optional(Text),
});
const webhookOf: (item: Record<string, unknown>) => WebhookRecord = recordReader('webhook endpoint', WebhookItem);

/**
 * Writes a new endpoint unless the merchant has `max` already (counted as `webhook_count` on its profile); undefined
 * then. An endpoint already stored under this id (a retried configure) is answered as it is.
 */
export async function putWebhook(webhook: WebhookRecord, max: number): Promise<Created<WebhookRecord> | undefined> {
  return putWithinMerchantCap({ owner: webhook, count: 'webhook_count', max }, webhookKeys.item(webhook, webhook.id), 'webhook', webhook, webhookOf);
}

/** The owner's endpoints (at most 16), newest first: an event goes to the endpoints of its own mode only. */
export async function listWebhooks(owner: Owner): Promise<WebhookRecord[]> {
  return (await merchantSetItems(webhookKeys, owner)).map(webhookOf);
}

/** A page of the merchant's endpoints, newest first, read consistently (an endpoint just configured is in it). */
export async function webhookPage(owner: Owner, page: PageQuery): Promise<Page<WebhookRecord>> {
  const result = await listPage(merchantSet(webhookKeys, owner, { consistent: true }), page);
  return { data: result.data.map(webhookOf), has_more: result.has_more };
}

/** Deletes the endpoint and lowers the count; false when there is no such endpoint. */
export const deleteWebhook = (owner: Owner, webhookId: string): Promise<boolean> =>
  deleteWithinMerchantCap(owner, 'webhook_count', webhookKeys.item(owner, webhookId));

/** `disable` (WEBHOOK_ENDPOINT): stops deliveries to an endpoint that answered 410 Gone. */
export async function disableWebhook(owner: Owner, webhookId: string, disable: Transition, reason: string): Promise<void> {
  // refused: the endpoint was deleted or disabled meanwhile
  await commit({ writes: [{ move: { entity: 'webhook', id: webhookId, owner }, transition: disable, set: { disabled_reason: reason } }] });
}
