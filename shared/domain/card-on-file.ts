import * as customers from '../store/customers.ts';
import * as invoices from '../store/invoices.ts';
import type { PaymentMethodRecord } from '../store/payment-methods.ts';
import { utcDate } from '../model/billing-dates.ts';
import { CardRetryCapReached, retryAllowance } from './card-charge-cap.ts';
import { treatmentOf } from './recovery-policy.ts';
import * as payments from '../store/payments.ts';
import { type Merchant, ownerOf } from './auth.ts';
import type { CardBrand } from '../model/cards.ts';
import { businessNow, isoNow } from '../model/clock.ts';
import { Declined, OperationInProgress, OutcomeUnknown, ResourceMissing } from '../model/errors.ts';
import { newId } from '../model/ids.ts';
import { describeTarget } from './route-targets.ts';
import { capturePayment } from './payment-lifecycle.ts';
import { authorizePayment, type RenewalAttempts } from './authorization.ts';
import { resolveAuthorization } from './authorization-outcomes.ts';
import { storedCardOf } from './payment-create.ts';
import { routeSavedCard } from './payment-routing.ts';
import { paymentView } from './payment-view.ts';
import { cardToCharge, offSessionAt, tokenKept } from './saved-cards.ts';
import type { TransactItem } from '../store/client.ts';
import type { CustomerRecord } from '../store/customers.ts';
import type { PaymentRecord } from '../store/payments.ts';

export interface StoredCardCharge {
  customerId: string;
  amount: number;
  currency: string;
  description?: string;
  metadata?: Record<string, string>;
  /** the payment's id, chosen by the caller to charge again after a crash (the provider's idempotency key) */
  paymentId?: string;
  /** the saved card to charge (default: the customer's default payment method, else its card on file) */
  paymentMethodId?: string | null;
  /** a subscription's renewal: its attempts keep their reasons on `invoiceId`; recovered as recovery-policy.ts says */
  renewal?: RenewalCharge;
}

export interface RenewalCharge {
  invoiceId: string;
  /** the period's run: 0 for its first try, then the retries (which the card's cap counts) */
  run: number;
  /** why it runs, in words */
  why: string;
}

/**
 * A renewal's authorization: each attempt's reason, and its attempts appended to the invoice; with `retries` (a
 * routed saved card), each retry counted against the card's cap and a soft decline failing over.
 */
const renewalAttempts = (renewal: RenewalCharge, retries?: { counted: (index: number) => TransactItem[] }): RenewalAttempts => ({
  why: renewal.why,
  recorded: (payment: PaymentRecord) => [
    invoices.attemptsAppended(
      renewal.invoiceId,
      (payment.attempts ?? []).map((a) => ({
        payment_id: payment.id,
        attempt_id: a.id,
        provider: a.provider,
        connector_id: a.connector_id,
        status: a.status,
        decline_code: a.decline_code,
        reason: a.reason ?? '',
        created_at: a.created_at,
      })),
    ),
  ],
  ...(retries ? { counted: retries.counted, failoverOnDecline: (code: string) => treatmentOf(code) === 'soft' } : {}),
});

/**
 * Charges the customer's card on file and captures it: a provider token, at the provider that issued it (a token
 * works nowhere else, so there is no failover), never a card number. A decline is stored as `failed` and thrown as
 * `Declined`, like any payment's; the customer must have a card on file (`resource_missing` otherwise).
 */
export async function chargeCardOnFile(merchant: Merchant, charge: StoredCardCharge) {
  const started = performance.now();
  const customer = await customers.getCustomer(ownerOf(merchant), charge.customerId);
  if (!customer) throw new ResourceMissing('customer_id');
  const id = charge.paymentId ?? newId('payment');
  // Charged before under this id (a renewal run that died): what the first run left is resolved and used.
  const earlier = charge.paymentId ? await payments.getStoredPayment(ownerOf(merchant), id) : undefined;
  if (earlier) {
    const resolved = await resolveAuthorization(earlier, 'reconciler');
    if (resolved === 'pending') throw new OutcomeUnknown(id);
    if (resolved === 'settled') return settled(merchant, id);
  }
  const paymentMethodId = charge.paymentMethodId ?? customer.default_payment_method;
  if (paymentMethodId) return chargeSavedCard(merchant, customer, { ...charge, paymentMethodId }, id);
  const card = customer.card_on_file;
  if (!card) throw new ResourceMissing('customer_id');
  const base = chargeRecord(merchant, customer, charge, id, {
    provider: card.provider,
    provider_token: card.provider_token,
    card: { brand: card.brand as CardBrand, last4: card.last4, bin: '', exp_month: card.exp_month, exp_year: card.exp_year, fingerprint: '' },
  });
  const target = { provider: card.provider, connectorId: card.connector_id ?? null, label: null };
  const payment = await authorizePayment({
    payment: base,
    route: {
      targets: [target],
      describe: () => ({
        strategy: 'card_on_file',
        reason: `The customer's card on file is a token of ${describeTarget(target)}, so the charge goes there only.`,
        alternatives_considered: [],
        latency_ms: Math.round(performance.now() - started),
      }),
    },
    // A renewal without the shopper: merchant-initiated (the card on file keeps no network transaction id).
    methodAt: () => ({ providerToken: card.provider_token, initiator: { type: 'merchant' } }),
    onFile: card,
    ...(charge.renewal ? { renewal: renewalAttempts(charge.renewal) } : {}),
  });
  return captureCharge(merchant, id, payment);
}

/** The payment of a charge without the shopper: the customer's, with what the charge says. */
const chargeRecord = (
  merchant: Merchant,
  customer: CustomerRecord,
  charge: StoredCardCharge,
  id: string,
  paid: Pick<PaymentRecord, 'card'> & Partial<PaymentRecord>,
): PaymentRecord =>
  payments.newPaymentRecord({
    id,
    merchant_id: merchant.id,
    livemode: merchant.livemode,
    amount: charge.amount,
    currency: charge.currency,
    customer: { email: customer.email },
    customer_email: customer.email,
    customer_id: customer.id,
    description: charge.description ?? null,
    metadata: charge.metadata ?? {},
    created_at: isoNow(),
    ...paid,
  });

/** An authorized charge is captured at once; a declined one is thrown as a decline. */
async function captureCharge(merchant: Merchant, id: string, payment: PaymentRecord | undefined) {
  if (!payment) throw new OperationInProgress(1);
  if (payment.status !== 'succeeded') throw new Declined(payment.decline_code ?? 'generic_decline', id);
  return capturePayment(merchant, id, {});
}

/**
 * Charges a saved card off-session and captures it: routed like any payment, merchant-initiated at every account
 * (its token there, or the vault's number with the network transaction id of the card's first authorization), so
 * a card saved at Stripe can renew through Adyen. The first approval at an account keeps that account's token.
 */
async function chargeSavedCard(merchant: Merchant, customer: CustomerRecord, charge: StoredCardCharge & { paymentMethodId: string }, id: string) {
  const charged = await cardToCharge(merchant, charge.paymentMethodId);
  const route = await routeSavedCard(merchant, charge, charged.card.number);
  const base = chargeRecord(merchant, customer, charge, id, { card: await storedCardOf(charged.card), payment_method_id: charge.paymentMethodId });
  const { renewal } = charge;
  const retries = renewal ? await retriesOf(merchant, charged.paymentMethod!, renewal.run) : undefined;
  const payment = await authorizePayment({
    payment: base,
    route: { ...route, targets: route.targets.slice(0, retries?.attempts) },
    methodAt: (target) => offSessionAt(charged, target),
    kept: (target, result) => tokenKept(charged, target, result),
    ...(renewal ? { renewal: renewalAttempts(renewal, retries) } : {}),
  });
  return captureCharge(merchant, id, payment);
}

/**
 * How many attempts a renewal's run may make under the card's retry cap (the period's first try is free), and the
 * counter each retry writes; CardRetryCapReached when it may make none (nothing is sent).
 */
async function retriesOf(merchant: Merchant, pm: PaymentMethodRecord, run: number) {
  const allowance = await retryAllowance(ownerOf(merchant), pm.card.fingerprint, utcDate(businessNow()));
  const free = run === 0 ? 1 : 0;
  if (free + allowance.remaining === 0) throw new CardRetryCapReached(allowance.until);
  return {
    attempts: free + allowance.remaining,
    counted: (index: number) => (index < free ? [] : [allowance.counted()]),
  };
}

/** A charge recorded earlier: captured now if only authorized, declined if it failed. */
async function settled(merchant: Merchant, id: string) {
  const payment = await payments.getPayment(ownerOf(merchant), id);
  if (!payment || payment.status === 'failed') throw new Declined(payment?.decline_code ?? 'generic_decline', id);
  if (payment.status === 'succeeded') return capturePayment(merchant, id, {});
  return paymentView(payment);
}
