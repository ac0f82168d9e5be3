import * as disputesStore from '../store/disputes.ts';
import * as payments from '../store/payments.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { NotFound } from '../model/errors.ts';
import type { HistoryEntry } from './timeline-entries.ts';

type TimelineObject = 'payment' | 'attempt' | 'refund' | 'dispute';

const entry = (object: TimelineObject, id: string, h: HistoryEntry) => ({
  at: h.at,
  object,
  id,
  change: h.change,
  source: h.source,
  provider_reference: h.reference,
});

/**
 * Every change of a payment, its attempts, refunds and disputes, oldest first, each with who made it (API, provider
 * notification, reconciler, schedule) and the provider's reference: read from the histories their changes appended
 * (two reads: the payment, and its partition's refunds and disputes).
 */
export async function paymentTimeline(merchant: Merchant, paymentId: string) {
  const [payment, { refunds, disputes }] = await Promise.all([
    payments.getPayment(ownerOf(merchant), paymentId),
    disputesStore.disputesAndRefundsOf(paymentId),
  ]);
  if (!payment || payment.livemode !== merchant.livemode) throw new NotFound();
  // a renewal's charge: by card on file, or a saved card whose attempts keep their reasons
  const renewal = payment.routing_decision?.strategy === 'card_on_file' || payment.attempts?.some((a) => a.reason);
  const source = renewal ? 'schedule' : 'api';
  const entries = [
    entry('payment', payment.id, { at: payment.created_at, change: 'payment.created', source, reference: null }),
    ...(payment.attempts ?? []).map((a) => ({
      ...entry('attempt', a.id, { at: a.created_at, change: `attempt.${a.status}`, source, reference: a.connector_id ?? a.provider }),
      ...(a.reason ? { reason: a.reason } : {}),
    })),
    ...(payment.history ?? []).map((h) => entry('payment', payment.id, h)),
    ...refunds
      .filter((r) => r.merchant_id === merchant.id)
      .flatMap((r) => [
        entry('refund', r.id, { at: r.created_at, change: 'refund.created', source: 'api', reference: null }),
        ...(r.history ?? []).map((h) => entry('refund', r.id, h)),
      ]),
    ...disputes.filter((d) => d.merchant_id === merchant.id).flatMap((d) => (d.history ?? []).map((h) => entry('dispute', d.id, h))),
  ];
  // Stable: entries of one instant keep the order above (a payment's create before its attempts).
  return { object: 'timeline' as const, payment_id: payment.id, data: entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0)) };
}
