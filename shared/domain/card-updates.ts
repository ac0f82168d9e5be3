import { commit } from '../store/commit.ts';
import * as paymentMethods from '../store/payment-methods.ts';
import type { PaymentMethodRecord } from '../store/payment-methods.ts';
import * as vault from '../store/vault.ts';
import type { Merchant } from './auth.ts';
import { binOf, cardBrand } from '../model/cards.ts';
import { BadRequest, NotFound, OperationInProgress } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { loadPaymentMethod, paymentMethodView } from './payment-methods.ts';
import { retryWithUpdatedCard } from './subscriptions.ts';

/**
 * What a card updater reports: the new expiry, and for a replaced card its new number (our test helper) or only its
 * last four digits and brand (a provider that keeps the number, e.g. Stripe).
 */
export interface CardUpdate {
  exp_month: number;
  exp_year: number;
  number?: string;
  last4?: string;
  brand?: string;
}

/**
 * A saved card changed at the issuer: the new number into the vault (when given), the new expiry and what may be shown
 * onto the payment method, with `payment_method.updated`. The next charge at any account reads the expiry from the
 * payment method and the number from the vault. The fingerprint stays: it names the payment method, not the plastic.
 * An update that changes nothing shown (the same one again) sends nothing.
 */
export async function updateSavedCard(pm: PaymentMethodRecord, update: CardUpdate, attempt = 1): Promise<PaymentMethodRecord> {
  const owner = { merchant_id: pm.merchant_id, livemode: pm.livemode };
  const { number, exp_month, exp_year } = update;
  const shown = number ? { last4: number.slice(-4), bin: binOf(number), brand: cardBrand(number) } : pickShown(update);
  const card = { ...pm.card, ...shown, exp_month, exp_year };
  if (number) await vault.putCard(owner, pm.id, { number, exp_month, exp_year }, pm.expires_at);
  if (JSON.stringify(card) === JSON.stringify(pm.card)) return pm;
  const updated = { ...pm, card };
  const done = await commit({
    writes: [{ update: { entity: 'payment_method', id: pm.id, owner }, expect: { card: pm.card }, set: { card } }],
    events: [newEvent(owner, 'payment_method.updated', paymentMethodView(updated))],
  });
  // Another update came first: this one is applied on top of it (the updater's report is the newest news), a few
  // times at most; then the caller is told to try again (409) rather than racing on without end.
  if (done === 'refused' && attempt >= UPDATE_ATTEMPTS) throw new OperationInProgress(1, 'this payment method');
  if (done === 'refused') return updateSavedCard(await reload(pm), update, attempt + 1);
  await retryWithUpdatedCard(pm.id);
  return updated;
}

/** How often an update is applied again on top of one that came first, before it answers 409. */
const UPDATE_ATTEMPTS = 5;

const pickShown = ({ last4, brand }: CardUpdate) => ({ ...(last4 ? { last4 } : {}), ...(brand ? { brand } : {}) });

async function reload(pm: PaymentMethodRecord): Promise<PaymentMethodRecord> {
  const now = await paymentMethods.getPaymentMethod({ merchant_id: pm.merchant_id, livemode: pm.livemode }, pm.id);
  if (!now) throw new NotFound();
  return now;
}

/** `POST /api/test_helpers/payment_methods/:id/update`: plays the card networks' updater in test mode. */
export async function updateTestCard(merchant: Merchant, id: string, update: CardUpdate) {
  if (merchant.livemode) throw new BadRequest('livemode_not_allowed', undefined, 'test helpers act in test mode only');
  const pm = await loadPaymentMethod(merchant, id);
  return paymentMethodView(await updateSavedCard(pm, update));
}
