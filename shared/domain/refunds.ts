import type * as v from 'valibot';
import type { ListRefundsQuery } from '../schemas/payments.ts';
import * as payments from '../store/payments.ts';
import type { StoredRefund } from '../store/payments.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { NotFound } from '../model/errors.ts';

/**
 * Refunds as objects (docs/api.md "Refunds"): each refund of a payment, with its own status. A `pending` refund holds
 * its amount on the payment (`amount_refunded` includes it) until the provider confirms it.
 */
export const refundObject = (r: StoredRefund) => ({
  id: r.id,
  object: 'refund' as const,
  payment_id: r.payment_id,
  amount: r.amount,
  currency: r.currency,
  reason: r.reason,
  status: r.status,
  failure_reason: r.failure_reason ?? null,
  created_at: r.created_at,
  livemode: r.livemode,
  metadata: r.metadata ?? {},
});

export async function getRefund(merchant: Merchant, refundId: string) {
  const refund = await payments.findRefund(ownerOf(merchant), refundId);
  if (!refund || refund.livemode !== merchant.livemode) throw new NotFound();
  return refundObject(refund);
}

/** The merchant's refunds, newest first; `payment_id` narrows them to one payment's (a payment of another merchant: 404). */
export async function listRefunds(merchant: Merchant, query: v.InferOutput<typeof ListRefundsQuery>) {
  const { payment_id, ...page } = query;
  if (payment_id && (await payments.getPayment(ownerOf(merchant), payment_id))?.livemode !== merchant.livemode) throw new NotFound();
  const result = await payments.refundPage(ownerOf(merchant), payment_id, page);
  return { object: 'list' as const, data: result.data.map(refundObject), has_more: result.has_more };
}
