import { lookup } from 'node:dns/promises';
import type * as v from 'valibot';
import { isLocal } from '../config.ts';
import type { ConfigureWebhookBody, ListWebhookEventsQuery, TestWebhookBody, UpdateWebhookBody } from '../schemas/webhooks.ts';
import * as eventsStore from '../store/events.ts';
import type { EventRecord } from '../store/events.ts';
import * as webhooks from '../store/webhooks.ts';
import type { WebhookRecord } from '../store/webhooks.ts';
import type { PageQuery } from '../store/pagination.ts';
import { type HostLookup, resolveAndCheck, validateWebhookUrl } from '../webhooks/ssrf.ts';
import { newWebhookSecret, sealSecret } from '../webhooks/sealed-secret.ts';
import { clock } from '../model/clock.ts';
import { BadRequest, NotFound, OperationInProgress } from '../model/errors.ts';
import { type EventType, newEvent } from '../model/events.ts';
import { freshOrigin, idFor, type Origin } from '../model/ids.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { WEBHOOK_ENDPOINT } from '../model/state-machines.ts';
import { subscribed } from './webhook-subscriptions.ts';

export const MAX_WEBHOOKS_PER_MERCHANT = 16;

/** DNS resolution bounded in time, so a configure request never hangs on a slow resolver. */
const lookupWithin =
  (ms: number): HostLookup =>
  (host) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('DNS lookup timed out')), ms)));
    return Promise.race([lookup(host, { all: true }), timeout]).finally(() => clearTimeout(timer));
  };

const view = (w: WebhookRecord) => ({
  id: w.id,
  object: 'webhook' as const,
  livemode: w.livemode,
  url: w.url,
  events: w.events,
  status: w.status,
  created_at: w.created_at,
  metadata: w.metadata ?? {},
});

/**
 * Registers an endpoint. The URL must be https (http only to loopback when running locally) and must not point,
 * by literal or by what its host resolves to now, at a private, link-local or metadata address. The signing
 * secret is in this answer only.
 */
export async function configureWebhook(merchant: Merchant, input: v.InferOutput<typeof ConfigureWebhookBody>, origin: Origin = freshOrigin()) {
  const url = await allowedUrl(input.url);
  const id = idFor('webhook', origin);
  const secret = newWebhookSecret();
  const webhook: WebhookRecord = {
    id,
    merchant_id: merchant.id,
    livemode: merchant.livemode,
    url,
    events: eventsOf(input.events),
    status: 'active',
    secret_sealed: await sealSecret(secret, merchant.id, id),
    created_at: new Date(origin.at).toISOString(),
    // an empty map is not stored (every delivery reads the merchant's endpoints)
    ...(input.metadata && Object.keys(input.metadata).length > 0 ? { metadata: input.metadata } : {}),
  };
  const put = await webhooks.putWebhook(webhook, MAX_WEBHOOKS_PER_MERCHANT);
  if (!put) throw new BadRequest('too_many_webhooks', 'url');
  // a retried configure (same origin) answers the endpoint its first run registered; its secret is not shown again
  return put.created ? { ...view(webhook), secret } : view(put.record);
}

/** The URL as stored, once it passes the SSRF checks (literal address, then what its host resolves to now). */
async function allowedUrl(url: string): Promise<string> {
  const checked = validateWebhookUrl(url, { allowLoopbackHttp: isLocal });
  if (!checked.ok) throw new BadRequest('url_not_allowed', 'url');
  const resolved = await resolveAndCheck(checked.url.hostname, { allowLoopback: isLocal, lookup: lookupWithin(3_000) });
  if (!resolved.ok) throw new BadRequest('url_not_allowed', 'url');
  return checked.url.toString();
}

const eventsOf = (events: readonly (EventType | '*')[]): WebhookRecord['events'] => (events.includes('*') ? ['*'] : [...new Set(events)]);

const modeName = (merchant: Merchant) => (merchant.livemode ? 'live' : 'test');
const missingWebhook = (merchant: Merchant, id: string) => new NotFound(`no webhook endpoint ${id} in ${modeName(merchant)} mode`);

/** One endpoint of the merchant in the request's mode (another merchant's or mode's answers 404), without its secret. */
export async function getWebhook(merchant: Merchant, webhookId: string) {
  const webhook = await webhooks.getWebhook(ownerOf(merchant), webhookId);
  if (!webhook) throw missingWebhook(merchant, webhookId);
  return view(webhook);
}

/**
 * Changes `url` (checked like on configure), `events`, `metadata` (replaced whole) and `status` (`active`|`disabled`: the merchant pauses and
 * resumes deliveries, also to an endpoint disabled after a 410 Gone). Fields not given keep their value.
 */
export async function updateWebhook(merchant: Merchant, webhookId: string, input: v.InferOutput<typeof UpdateWebhookBody>) {
  const owner = ownerOf(merchant);
  const url = input.url === undefined ? undefined : await allowedUrl(input.url);
  const step = input.status === 'disabled' ? WEBHOOK_ENDPOINT.disable : input.status === 'active' ? WEBHOOK_ENDPOINT.enable : undefined;
  const changes = {
    url,
    events: input.events && eventsOf(input.events),
    metadata: input.metadata,
    updated_at: new Date(clock.now()).toISOString(),
  };
  const updated = await webhooks.updateWebhook(owner, webhookId, changes, step);
  if (!updated) throw missingWebhook(merchant, webhookId);
  return getWebhook(merchant, webhookId);
}

/** How long the secret before a rotation keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * Calls of one rotation are those within ROTATION_MS of each other (a double click, a retried request): they make one
 * new secret. A call that finds a rotation made less than ROTATION_MS ago, or loses the race to write one, answers 409
 * `operation_in_progress` (with Retry-After) and changes nothing.
 */
export const ROTATION_MS = 10_000;

/**
 * Gives the endpoint a new signing secret, shown in this answer only. For 24 hours the old one keeps signing beside
 * it (two `v1,` signatures in `webhook-signature`), so the merchant's receiver verifies with either while it switches;
 * then only the new one signs. Rotating again within the 24 hours (after ROTATION_MS) drops the oldest secret at once.
 */
export async function rotateWebhookSecret(merchant: Merchant, webhookId: string) {
  const owner = ownerOf(merchant);
  const current = await webhooks.getWebhook(owner, webhookId);
  if (!current) throw missingWebhook(merchant, webhookId);
  const now = clock.now();
  const rotatedAt = current.previous_secret_until ? Date.parse(current.previous_secret_until) - SECRET_OVERLAP_MS : -Infinity;
  const rotating = () =>
    new OperationInProgress((rotatedAt > now - ROTATION_MS ? rotatedAt + ROTATION_MS - now : ROTATION_MS) / 1000, "this webhook endpoint's secret");
  if (rotatedAt > now - ROTATION_MS) throw rotating();
  const secret = newWebhookSecret();
  const until = new Date(now + SECRET_OVERLAP_MS).toISOString();
  const next = { secret_sealed: await sealSecret(secret, merchant.id, webhookId), until, updated_at: new Date(now).toISOString() };
  // refused: another call rotated it between our read and our write (or the endpoint was deleted meanwhile)
  if (await webhooks.rotateWebhookSecret(owner, current, next)) return { ...view(current), secret, previous_secret_expires_at: until };
  if (!(await webhooks.getWebhook(owner, webhookId))) throw missingWebhook(merchant, webhookId);
  throw rotating();
}

/** The merchant's endpoints, newest first, in cursor pages like every list. */
export async function listWebhooks(merchant: Merchant, page: PageQuery) {
  const result = await webhooks.webhookPage(ownerOf(merchant), page);
  return { object: 'list' as const, data: result.data.map(view), has_more: result.has_more };
}

export async function deleteWebhook(merchant: Merchant, webhookId: string) {
  if (!(await webhooks.deleteWebhook(ownerOf(merchant), webhookId))) throw new NotFound();
  return { id: webhookId, object: 'webhook' as const, deleted: true as const };
}

/** An event as listed (GET /api/webhooks/events): its type and how its delivery went, without its payload. */
export const listedEvent = (e: EventRecord) => ({
  id: e.id,
  object: 'webhook_event' as const,
  livemode: e.livemode,
  event: e.type,
  delivered: (e.targeted ?? 0) > 0 && e.pending === 0,
  attempts: e.attempts,
  last_status_code: e.last_status_code,
  created_at: e.created_at,
});

/** The delivery log: every event of the merchant, newest first, with how its delivery went. */
export async function listDeliveries(merchant: Merchant, query: v.InferOutput<typeof ListWebhookEventsQuery>) {
  const { limit, starting_after, ending_before, event, delivered } = query;
  const page = await eventsStore.listEvents(ownerOf(merchant), { event, delivered }, { limit, starting_after, ending_before });
  return { object: 'list' as const, data: page.data.map(listedEvent), has_more: page.has_more };
}

/** A sample object per event family, so a test delivery looks like the real thing. */
const sampleObject = (type: EventType): Record<string, unknown> => ({
  id: `${type.split('.')[0]}_test`,
  object: type.split('.')[0],
  livemode: false,
  test: true,
});

/**
 * Sends one signed test event synchronously to the newest active endpoint subscribed to it (or the one named) and
 * reports the outcome; `status_code` is 0 when the endpoint could not be reached.
 */
export async function testWebhook(merchant: Merchant, input: v.InferOutput<typeof TestWebhookBody>) {
  const endpoints = await webhooks.listWebhooks(ownerOf(merchant));
  const target = input.webhook_id ? endpoints.find((w) => w.id === input.webhook_id) : endpoints.find((w) => subscribed(w, input.event));
  if (!target) throw new BadRequest('no_webhook_endpoint', input.webhook_id ? 'webhook_id' : 'event');
  // Signing and the HTTP client are loaded by the one webhook function that delivers, not by the others' cold starts.
  const { deliver } = await import('./webhook-delivery.ts');
  const result = await deliver(target, newEvent(ownerOf(merchant), input.event, sampleObject(input.event)));
  return {
    object: 'webhook_test' as const,
    webhook_id: target.id,
    delivered: result.status_code >= 200 && result.status_code < 300,
    status_code: result.status_code,
    latency_ms: result.latency_ms,
  };
}
