import type { PaymentRecord } from '../store/payments.ts';

/** A payment as the API shows it. */
export const paymentView = (p: PaymentRecord) => ({
  id: p.id,
  object: 'payment' as const,
  status: p.status,
  amount: p.amount,
  currency: p.currency,
  amount_captured: p.amount_captured,
  amount_refunded: p.amount_refunded,
  provider: p.provider,
  connector_id: p.connector_id ?? null,
  routing_decision: p.routing_decision,
  risk_score: p.risk_score,
  decline_code: p.decline_code,
  attempts: (p.attempts ?? []).map((a) => ({
    id: a.id,
    status: a.status,
    provider: a.provider,
    connector_id: a.connector_id,
    decline_code: a.decline_code,
    latency_ms: a.latency_ms,
    created_at: a.created_at,
  })),
  payment_method: {
    id: p.payment_method_id ?? null,
    type: 'card' as const,
    card: { brand: p.card.brand, last4: p.card.last4, exp_month: p.card.exp_month, exp_year: p.card.exp_year },
  },
  customer_id: p.customer_id,
  next_action: p.status === 'requires_action' ? (p.next_action ?? null) : null,
  three_d_secure: p.three_d_secure ?? null,
  capture_method: p.capture_method ?? ('manual' as const),
  customer: p.customer,
  description: p.description,
  payment_link_id: p.payment_link_id ?? null,
  metadata: p.metadata,
  livemode: p.livemode,
  created_at: p.created_at,
});
export type PaymentView = ReturnType<typeof paymentView>;
