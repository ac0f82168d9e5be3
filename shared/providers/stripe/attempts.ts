import Stripe from 'stripe';
import { providerDeadlines } from '../deadlines.ts';
import { failedOperation } from '../failures.ts';
import type { OperationResult } from '../types.ts';
import { type Sent, send } from './client.ts';
import { alreadyCanceled } from './authorization.ts';

/**
 * How far back the strongly consistent list is read. Stripe Search is eventually consistent ("under normal
 * conditions, data is searchable in less than a minute"), so it is asked only for PaymentIntents older than this.
 */
export const LIST_WINDOW_MS = 10 * 60_000;
const MAX_PAGES = 10;
const timeout = providerDeadlines.operationMs;

/**
 * The PaymentIntent made under our idempotency key (`metadata.attempt_id`), if any. Recent ones come from the list
 * (newest first, read from Stripe's primary store: a PaymentIntent created a moment ago is there); older ones from
 * Search, which has long indexed them. Failing either read is a failure, never "nothing there".
 */
export async function findIntent(stripe: Stripe, key: string, signal?: AbortSignal): Promise<Sent<Stripe.PaymentIntent | undefined>> {
  const since = Math.floor((Date.now() - LIST_WINDOW_MS) / 1000);
  let startingAfter: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const listed = await send(
      () =>
        stripe.paymentIntents.list(
          { created: { gte: since }, limit: 100, starting_after: startingAfter, expand: ['data.latest_charge'] },
          { timeout },
        ),
      signal,
    );
    if (!listed.ok) return listed;
    const found = listed.value.data.find((intent) => intent.metadata?.attempt_id === key);
    if (found) return { ok: true, value: found };
    if (!listed.value.has_more) {
      const query = `metadata['attempt_id']:'${key.replace(/['\\]/g, '\\$&')}'`;
      const searched = await send(() => stripe.paymentIntents.search({ query, limit: 10, expand: ['data.latest_charge'] }, { timeout }), signal);
      return searched.ok ? { ok: true, value: searched.value.data[0] } : searched;
    }
    startingAfter = listed.value.data.at(-1)?.id;
  }
  return { ok: false, failure: { declineCode: 'processing_error', class: 'unknown' }, error: new Error('too many recent PaymentIntents to read') };
}

/** The PaymentIntent that takes a key nobody used, so that a request still on its way under it is refused. */
const closingIntent = (key: string): Stripe.PaymentIntentCreateParams => ({
  amount: 100,
  currency: 'usd',
  allowed_payment_method_types: ['card'],
  description: 'Closes an abandoned authorization attempt (never confirmed)',
  metadata: { attempt_id: key, closes_attempt: 'true' },
});

/**
 * Cancels what the attempt under `key` holds, and makes sure nothing will: if no PaymentIntent exists under the key
 * yet, one that is never confirmed takes the key (Stripe then refuses the attempt's own request, whose parameters
 * differ, with an idempotency error) and is canceled. A key taken meanwhile means the attempt landed: it is found and
 * canceled. A captured PaymentIntent cannot be reversed.
 */
export async function reverseAttempt(stripe: Stripe, key: string): Promise<OperationResult> {
  const found = await findIntent(stripe, key);
  if (!found.ok) return failedOperation(found.failure);
  if (found.value) return release(stripe, found.value, key);
  const closed = await send(() => stripe.paymentIntents.create(closingIntent(key), { idempotencyKey: key, timeout }));
  if (closed.ok) return release(stripe, closed.value, key);
  if (!(closed.error instanceof Stripe.errors.StripeIdempotencyError)) return failedOperation(closed.failure);
  const landed = await findIntent(stripe, key);
  if (!landed.ok) return failedOperation(landed.failure);
  return landed.value ? release(stripe, landed.value, key) : { ok: false, reason: 'unknown' };
}

/** Cancels a PaymentIntent that holds or could still hold money; a declined or canceled one is left as it is. */
async function release(stripe: Stripe, intent: Stripe.PaymentIntent, key: string): Promise<OperationResult> {
  const closing = intent.metadata?.closes_attempt === 'true';
  if (intent.status === 'succeeded') return { ok: false, reason: 'processing_error' };
  if (intent.status === 'processing') return { ok: false, reason: 'unknown' };
  if (intent.status === 'canceled' || (intent.status === 'requires_payment_method' && !closing)) return { ok: true, reference: intent.id };
  const canceled = await send(() =>
    stripe.paymentIntents.cancel(intent.id, { cancellation_reason: 'abandoned' }, { idempotencyKey: `${key}_reverse`, timeout }),
  );
  // The closing PaymentIntent holds nothing either way: failing to tidy it away does not fail the reversal.
  if (canceled.ok || closing || alreadyCanceled(canceled.error)) return { ok: true, reference: intent.id };
  return failedOperation(canceled.failure);
}
