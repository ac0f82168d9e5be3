import { config, isLocal } from '../config.ts';
import { eventsQueue, type EventsMessage, MAX_DELAY_SECONDS } from '../events/queue.ts';
import { logger } from '../logger.ts';
import * as eventsStore from '../store/events.ts';
import type { EndpointDelivery, EventRef } from '../store/events.ts';
import * as webhooks from '../store/webhooks.ts';
import type { WebhookRecord } from '../store/webhooks.ts';
import { postWebhook, type WebhookHttpResult } from '../webhooks/http-client.ts';
import { openSecret } from '../webhooks/sealed-secret.ts';
import { signatureHeaders } from '../webhooks/signing.ts';
import { clock } from '../model/clock.ts';
import { subscribed } from './webhook-subscriptions.ts';
import { type DomainEvent, eventPayload } from '../model/events.ts';
import { count } from '../metrics.ts';
import { modeOf } from './route-targets.ts';
import { WEBHOOK_ENDPOINT } from '../model/state-machines.ts';

export const DELIVERY_TIMEOUT_MS = 15_000;

/**
 * Retries: full jitter, delay = random(0, min(cap, base × 2^attempt)), until `giveUpAfterMs` after the first
 * attempt (3 days); then the message goes to the dead-letter queue. Tests shorten it like they move the clock.
 */
export const retryPolicy = { baseMs: config.WEBHOOK_RETRY_BASE_MS, capMs: 12 * 60 * 60 * 1000, giveUpAfterMs: 3 * 24 * 60 * 60 * 1000 };

export const retryDelayMs = (attempt: number, random = Math.random): number =>
  Math.floor(random() * Math.min(retryPolicy.capMs, retryPolicy.baseMs * 2 ** attempt));

const isSuccess = (status: number) => status >= 200 && status < 300;

/**
 * One signed POST of the event to the endpoint (SSRF-checked at the resolved address, no redirects, 15 s), counted
 * by endpoint and outcome.
 */
export async function deliver(webhook: WebhookRecord, event: DomainEvent): Promise<WebhookHttpResult> {
  const payload = eventPayload(event);
  const at = new Date(clock.now());
  const secrets = await signingSecrets(webhook, at);
  const result = await postWebhook(new URL(webhook.url), payload, signatureHeaders(secrets, event.id, payload, at), {
    timeoutMs: DELIVERY_TIMEOUT_MS,
    allowLoopback: isLocal,
  });
  const outcome = isSuccess(result.status_code) ? 'delivered' : 'failed';
  await count('WebhookDeliveries', { mode: modeOf(webhook), endpoint: webhook.id, outcome });
  return result;
}

/** The secrets that sign at `at`: the endpoint's, and for 24 hours after a rotation the one before it too. */
async function signingSecrets(webhook: WebhookRecord, at: Date): Promise<string[]> {
  const sealed = [webhook.secret_sealed];
  if (webhook.previous_secret_sealed && webhook.previous_secret_until && webhook.previous_secret_until > at.toISOString())
    sealed.push(webhook.previous_secret_sealed);
  return Promise.all(sealed.map((s) => openSecret(s, webhook.merchant_id, webhook.id)));
}

/** Handles one message of the events queue: a new event's first round, or a retry to one endpoint. */
export async function handleEventsMessage(message: EventsMessage): Promise<void> {
  if (message.kind === 'event') return fanOut(message);
  return retry(message);
}

/** Delivers a new event to every subscribed endpoint at once, records the round, and schedules retries. */
async function fanOut(message: Extract<EventsMessage, { kind: 'event' }>): Promise<void> {
  // The event and its merchant's endpoints are read at once: the message says whose it is.
  const [event, listed] = await Promise.all([eventsStore.getEvent(message), webhooks.listWebhooks(message)]);
  if (!event || event.targeted !== undefined) return; // unknown, or a duplicate send already handled
  const sameOwner = message.merchant_id === event.merchant_id && message.livemode === event.livemode;
  // An endpoint receives the events that happened after it was configured, not older ones still in the queue.
  const endpoints = (sameOwner ? listed : await webhooks.listWebhooks(event)).filter(
    (w) => subscribed(w, event.type) && w.created_at <= event.created_at,
  );
  const results = await Promise.all(endpoints.map((w) => deliver(w, event)));
  const round: Record<string, EndpointDelivery> = {};
  endpoints.forEach((w, i) => {
    const status = results[i]!.status_code;
    round[w.id] = { delivered: isSuccess(status), attempts: 1, last_status_code: status };
  });
  if (!(await eventsStore.recordFanOut(message, round))) return; // a concurrent duplicate recorded it first
  const now = clock.now();
  await Promise.all(endpoints.map((w, i) => afterFailure(w, message, results[i]!, { attempt: 1, first_attempt_at: now })));
}

async function retry(message: Extract<EventsMessage, { kind: 'retry' }>): Promise<void> {
  const now = clock.now();
  if (message.due_at > now) {
    // SQS delays at most 15 minutes: walk longer waits in hops.
    await eventsQueue.send([message], Math.ceil((message.due_at - now) / 1000));
    return;
  }
  const event = await eventsStore.getEvent(message);
  const webhook = event && (await webhooks.listWebhooks(event)).find((w) => w.id === message.webhook_id);
  if (!event || !webhook || webhook.status !== 'active') return;
  const result = await deliver(webhook, event);
  await eventsStore.recordRetry(message, webhook.id, result.status_code, isSuccess(result.status_code));
  await afterFailure(webhook, message, result, { attempt: message.attempt, first_attempt_at: message.first_attempt_at });
}

/**
 * After an attempt: nothing on success; 410 disables the endpoint; otherwise the next retry, or the DLQ at the end.
 * Every failed attempt leaves one warning: endpoint id and host (never the path, query, secret or body), the status
 * (0 when unreachable) and why, the attempt number, and what happens next.
 */
async function afterFailure(
  webhook: WebhookRecord,
  ref: EventRef,
  result: WebhookHttpResult,
  { attempt, first_attempt_at }: { attempt: number; first_attempt_at: number },
): Promise<void> {
  if (isSuccess(result.status_code)) return;
  const failed = {
    webhook_id: webhook.id,
    event_id: ref.event_id,
    endpoint_host: hostOf(webhook.url),
    status_code: result.status_code,
    ...(result.error ? { reason: result.error } : {}),
    attempt,
  };
  if (result.status_code === 410) {
    logger.warn('Webhook delivery failed: endpoint answered 410 Gone and is disabled', { ...failed, outcome: 'endpoint_disabled' });
    await webhooks.disableWebhook(webhook, webhook.id, WEBHOOK_ENDPOINT.disable, 'endpoint answered 410 Gone');
    return;
  }
  const delay = retryDelayMs(attempt);
  const next: EventsMessage = {
    kind: 'retry',
    event_id: ref.event_id,
    object_id: ref.object_id,
    webhook_id: webhook.id,
    attempt: attempt + 1,
    first_attempt_at,
    due_at: clock.now() + delay,
  };
  if (next.due_at - first_attempt_at > retryPolicy.giveUpAfterMs) {
    logger.warn(`Webhook delivery failed: gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}, sent to the dead-letter queue`, {
      ...failed,
      outcome: 'dead_lettered',
    });
    await eventsQueue.deadLetter(next, `gave up after ${attempt} attempts; last status ${result.status_code}`);
    return;
  }
  logger.warn('Webhook delivery failed: retry scheduled', {
    ...failed,
    outcome: 'retry_scheduled',
    next_attempt: next.attempt,
    next_attempt_at: new Date(next.due_at).toISOString(),
  });
  await eventsQueue.send([next], Math.min(MAX_DELAY_SECONDS, Math.ceil(delay / 1000)));
}

/** `hooks.example.com:8443`: where the endpoint lives, without a path or query that might carry a token. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid-url';
  }
}
