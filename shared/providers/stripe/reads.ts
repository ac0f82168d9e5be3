import type Stripe from 'stripe';
import { providerDeadlines } from '../deadlines.ts';
import type { ProviderChange } from '../types.ts';
import { disputeChange, intentChange, refundChange } from './changes.ts';
import { send } from './client.ts';

const timeout = providerDeadlines.operationMs;
/** More refunds or disputes than this on one payment are not read (Stripe lists them newest first). */
const MAX_LISTED = 1000;

/**
 * What Stripe says now about the PaymentIntent `reference`: its capture or cancellation, then its refunds and
 * disputes, oldest first. Undefined when any of the three reads fails (a partial answer could hide a change).
 */
export async function changesOf(stripe: Stripe, reference: string, signal?: AbortSignal): Promise<ProviderChange[] | undefined> {
  const [intent, refunds, disputes] = await Promise.all([
    send(() => stripe.paymentIntents.retrieve(reference, {}, { timeout }), signal),
    send(() => stripe.refunds.list({ payment_intent: reference, limit: 100 }, { timeout }).autoPagingToArray({ limit: MAX_LISTED }), signal),
    send(() => stripe.disputes.list({ payment_intent: reference, limit: 100 }, { timeout }).autoPagingToArray({ limit: MAX_LISTED }), signal),
  ]);
  if (!intent.ok || !refunds.ok || !disputes.ok) return undefined;
  return [intentChange(intent.value), ...refunds.value.toReversed().map(refundChange), ...disputes.value.toReversed().map(disputeChange)].filter(
    (change) => change !== null,
  );
}
