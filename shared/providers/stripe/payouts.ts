import type Stripe from 'stripe';
import { providerDeadlines } from '../deadlines.ts';
import type { PayoutLine, PayoutLineType, ProviderPayout, ProviderPayouts } from '../types.ts';
import { fromStripeAmount } from './amounts.ts';
import { clientFor, send } from './client.ts';
import type { StripeCredentials } from './credentials.ts';

const timeout = providerDeadlines.operationMs;
/** More payouts in one run, or lines in one payout, than these are not read (a run reads a day or so). */
const MAX_PAYOUTS = 100;
const MAX_LINES = 10_000;

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** Stripe's reporting categories as our line types; the payout's own transaction is no line. */
const LINE_TYPES: Record<string, PayoutLineType> = {
  charge: 'charge',
  refund: 'refund',
  refund_failure: 'refund',
  dispute: 'dispute',
  dispute_reversal: 'dispute',
  fee: 'fee',
};

type Source = { id?: string; payment_intent?: string | { id: string } | null; metadata?: Record<string, string> | null };

function lineOf(t: Stripe.BalanceTransaction): PayoutLine {
  const currency = t.currency.toUpperCase();
  const source = (typeof t.source === 'object' && t.source ? t.source : { id: t.source ?? '' }) as Source;
  const intent = typeof source.payment_intent === 'object' ? source.payment_intent?.id : source.payment_intent;
  const amount = fromStripeAmount(t.amount, currency);
  const fee = fromStripeAmount(t.fee, currency);
  return {
    type: LINE_TYPES[t.reporting_category] ?? 'adjustment',
    source: source.id ?? '',
    amount,
    fee,
    net: fromStripeAmount(t.net, currency),
    currency,
    created: iso(t.created),
    ...(intent ? { paymentReference: intent } : {}),
    ...(source.metadata?.refund_id ? { refundId: source.metadata.refund_id } : {}),
  };
}

/**
 * Stripe's payouts through the SDK: `GET /v1/payouts` (created since the cursor, a time), then each payout's balance transactions with
 * their sources expanded (the Charge, Refund or Dispute names its PaymentIntent), page after page.
 */
export const stripePayouts: ProviderPayouts<StripeCredentials> = {
  async payoutsSince(credentials, from, signal) {
    const stripe = clientFor(credentials.secret_key);
    // `gte`: a payout made in the same second as the newest one read comes again (and is found reconciled)
    const created = { created: { gte: Math.floor(Date.parse(from.cursor ?? from.connectedAt) / 1000) } };
    const listed = await send(() => stripe.payouts.list({ limit: 100, ...created }, { timeout }).autoPagingToArray({ limit: MAX_PAYOUTS }), signal);
    if (!listed.ok) return undefined;
    const payouts: ProviderPayout[] = [];
    // a failed or canceled payout paid nothing (Stripe puts its money back in the balance, for a later payout)
    for (const payout of listed.value.toReversed().filter((p) => p.status !== 'failed' && p.status !== 'canceled')) {
      const lines = await send(
        () =>
          stripe.balanceTransactions
            .list({ payout: payout.id, limit: 100, expand: ['data.source'] }, { timeout })
            .autoPagingToArray({ limit: MAX_LINES }),
        signal,
      );
      if (!lines.ok) return undefined;
      const currency = payout.currency.toUpperCase();
      payouts.push({
        reference: payout.id,
        currency,
        amount: fromStripeAmount(payout.amount, currency),
        created: iso(payout.created),
        arrivalDate: iso(payout.arrival_date).slice(0, 10),
        status: payout.status === 'paid' ? 'paid' : 'pending',
        lines: lines.value.filter((t) => t.type !== 'payout').map(lineOf),
      });
    }
    return { payouts, cursor: payouts.at(-1)?.created ?? from.cursor };
  },
};
