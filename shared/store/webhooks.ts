import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { EVENT_TYPES, type EventType } from '../model/events.ts';
import type { Transition } from '../model/state-machines.ts';
import { type Created, db, TABLE } from './client.ts';
import { commit } from './commit.ts';
import { picklistOf, recordReader, StringMap, Text } from './item-schemas.ts';
import { webhookKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
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
  /** after a rotation, the secret before it, sealed alike: it still signs beside the new one until `previous_secret_until` */
  previous_secret_sealed?: string;
  previous_secret_until?: string;
  created_at: string;
  disabled_reason?: string;
  /** not stored when empty; read back as `{}` */
  metadata?: Record<string, string>;
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
  previous_secret_sealed: v.optional(Text),
  previous_secret_until: v.optional(Text),
  created_at: Text,
  disabled_reason: v.optional(Text),
  metadata: v.optional(StringMap),
});
const webhookOf: (item: Record<string, unknown>) => WebhookRecord = recordReader('webhook endpoint', WebhookItem);
const webhookTarget = (owner: Owner, id: string) => ({
  entity: 'webhook' as const,
  id,
  owner: { merchant_id: owner.merchant_id, livemode: owner.livemode },
});

/**
 * Writes a new endpoint unless the merchant has `max` already (counted as `webhook_count` on its profile); undefined
 * then. An endpoint already stored under this id (a retried configure) is answered as it is.
 */
export async function putWebhook(webhook: WebhookRecord, max: number): Promise<Created<WebhookRecord> | undefined> {
  const target = webhookTarget(webhook, webhook.id);
  return putWithinMerchantCap({ owner: webhook, count: 'webhook_count', max }, { create: target, item: { ...webhook } }, webhook, webhookOf);
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

/** The owner's endpoint by id, read consistently; undefined when there is none (the key holds merchant and mode). */
export async function getWebhook(owner: Owner, webhookId: string): Promise<WebhookRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: webhookKeys.item(owner, webhookId), ConsistentRead: true }));
  return out.Item ? webhookOf(out.Item) : undefined;
}

export interface WebhookChanges {
  url?: string;
  events?: WebhookRecord['events'];
  /** replaces the metadata whole; an empty one is removed from the item */
  metadata?: Record<string, string>;
  updated_at: string;
}

/**
 * Changes the endpoint's fields and, with `step`, its status (WEBHOOK_ENDPOINT `enable`/`disable`; enabling forgets
 * why it was disabled). False when there is no such endpoint.
 */
export async function updateWebhook(owner: Owner, webhookId: string, changes: WebhookChanges, step?: Transition): Promise<boolean> {
  const emptied = changes.metadata !== undefined && Object.keys(changes.metadata).length === 0;
  const set = Object.fromEntries(Object.entries(changes).filter(([name, value]) => value !== undefined && !(name === 'metadata' && emptied)));
  const unset = [...(step?.to === 'active' ? ['disabled_reason'] : []), ...(emptied ? ['metadata'] : [])];
  const target = { entity: 'webhook', id: webhookId, owner } as const;
  const result = await commit({
    writes: [
      step
        ? { update: target, transition: step, set, ...(unset.length > 0 ? { unset } : {}) }
        : { update: target, inStates: ['active', 'disabled'], set, ...(unset.length > 0 ? { unset } : {}) },
    ],
  });
  return result === 'committed';
}

/**
 * Replaces the signing secret: the current one becomes the previous one, signing beside the new one until `until`
 * (a previous one still kept is dropped). Refused (false) when the endpoint is gone or was rotated meanwhile.
 */
export async function rotateWebhookSecret(
  owner: Owner,
  current: Pick<WebhookRecord, 'id' | 'secret_sealed' | 'status'>,
  next: { secret_sealed: string; until: string; updated_at: string },
): Promise<boolean> {
  const result = await commit({
    writes: [
      {
        update: { entity: 'webhook', id: current.id, owner },
        inStates: ['active', 'disabled'],
        expect: { secret_sealed: current.secret_sealed },
        set: {
          secret_sealed: next.secret_sealed,
          previous_secret_sealed: current.secret_sealed,
          previous_secret_until: next.until,
          updated_at: next.updated_at,
        },
      },
    ],
  });
  return result === 'committed';
}

/** Deletes the endpoint and lowers the count; false when there is no such endpoint. */
export const deleteWebhook = (owner: Owner, webhookId: string): Promise<boolean> =>
  deleteWithinMerchantCap(owner, 'webhook_count', webhookTarget(owner, webhookId));

/** `disable` (WEBHOOK_ENDPOINT): stops deliveries to an endpoint that answered 410 Gone. */
export async function disableWebhook(owner: Owner, webhookId: string, disable: Transition, reason: string): Promise<void> {
  // refused: the endpoint was deleted or disabled meanwhile
  await commit({ writes: [{ update: { entity: 'webhook', id: webhookId, owner }, transition: disable, set: { disabled_reason: reason } }] });
}
