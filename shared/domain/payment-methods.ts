import * as customers from '../store/customers.ts';
import type { PageQuery } from '../store/pagination.ts';
import * as paymentMethods from '../store/payment-methods.ts';
import type { BillingDetails, PaymentMethodRecord } from '../store/payment-methods.ts';
import { scopeOf } from '../store/keys.ts';
import * as vault from '../store/vault.ts';
import { ttl } from '../store/client.ts';
import { readSecret } from '../secrets.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { binOf, cardBrand } from '../model/cards.ts';
import { hmac } from '../model/credentials.ts';
import { BadRequest, InvalidState, NotFound, ResourceMissing } from '../model/errors.ts';
import { freshOrigin, idFor, type Origin } from '../model/ids.ts';
import { modeOf } from './route-targets.ts';

export interface NewPaymentMethod {
  type: 'card';
  card: { number: string; exp_month: number; exp_year: number; cvc?: string };
  customer_id?: string;
  billing_details?: BillingDetails;
}

/** What a payment method shows: never the number, never a provider's token. */
export const paymentMethodView = (pm: PaymentMethodRecord) => ({
  id: pm.id,
  object: 'payment_method' as const,
  type: 'card' as const,
  card: { brand: pm.card.brand, last4: pm.card.last4, exp_month: pm.card.exp_month, exp_year: pm.card.exp_year, fingerprint: pm.card.fingerprint },
  billing_details: pm.billing_details,
  customer_id: pm.customer_id,
  created_at: pm.created_at,
  livemode: pm.livemode,
});

/** The same number gives the same fingerprint within one merchant and mode, and another one anywhere else. */
const fingerprintOf = async (merchant: Merchant, number: string) =>
  hmac(await readSecret('fingerprints'), `pm:${scopeOf(ownerOf(merchant))}:${number}`).slice(0, 16);

/**
 * Saves a card: the number (and CVC) into the vault, what may be shown into the main table. The same number saved
 * again for the same customer answers the payment method saved first, with the new expiry. A retried create (same
 * origin) answers what its first run saved. `admitted`: the rate limit's verdict, counted while the reads run.
 */
export const createPaymentMethod = async (
  merchant: Merchant,
  input: NewPaymentMethod,
  origin: Origin = freshOrigin(),
  admitted = Promise.resolve(),
) => paymentMethodView(await savePaymentMethod(merchant, input, origin, admitted));

/** How long a payment method made with a publishable key is kept unless it is attached or charged: a day. */
export const UNUSED_KEEP_MS = 24 * 60 * 60_000;

/** {@link createPaymentMethod}, answering the stored record. */
export async function savePaymentMethod(
  merchant: Merchant,
  input: NewPaymentMethod,
  origin: Origin = freshOrigin(),
  admitted = Promise.resolve(),
): Promise<PaymentMethodRecord> {
  // A publishable key is anyone's who loads the page: naming a customer would let anyone give one a card (its default,
  // which renewals charge) or, saving a card it has, read its payment method back. The merchant's server attaches.
  if (merchant.credential === 'publishable' && input.customer_id !== undefined) {
    throw new BadRequest(
      'parameter_invalid',
      'customer_id',
      'a publishable key cannot name a customer: save the card without one, then attach it with your secret key (POST /api/payment_methods/{id}/attach)',
    );
  }
  const owner = ownerOf(merchant);
  const { number, exp_month, exp_year, cvc } = input.card;
  const fingerprint = await fingerprintOf(merchant, number);
  const customerId = input.customer_id;
  // The customer and its earlier save of this card, read at once (beside the rate limit's count): nothing is written before its verdict.
  const [customer, saved] = await Promise.all([
    customerId === undefined ? undefined : customers.getCustomer(owner, customerId),
    customerId === undefined ? undefined : paymentMethods.findCustomerCard(customerId, fingerprint),
  ]);
  await admitted;
  if (customerId !== undefined && !customer) throw new ResourceMissing('customer_id', `no customer ${customerId} in ${modeOf(merchant)} mode`);
  const record: PaymentMethodRecord = {
    id: idFor('paymentMethod', origin),
    merchant_id: merchant.id,
    livemode: merchant.livemode,
    customer_id: customerId ?? null,
    card: { brand: cardBrand(number), last4: number.slice(-4), bin: binOf(number), exp_month, exp_year, fingerprint },
    billing_details: input.billing_details ?? null,
    tokens: {},
    created_at: new Date(origin.at).toISOString(),
    // anyone's browser may save cards with the key: one nobody attaches nor charges is not kept (nor its number)
    ...(merchant.credential === 'publishable' ? { expires_at: ttl(origin.at + UNUSED_KEEP_MS) } : {}),
  };
  const id = saved ?? record.id;
  // The vault first: a payment method is never stored without its card (a card whose save failed after is never read).
  await vault.putCard(owner, id, { number, exp_month, exp_year, ...(cvc ? { cvc } : {}) }, record.expires_at);
  if (saved) return savedAgain(merchant, saved, input);
  const put = await paymentMethods.putPaymentMethod(record);
  if (put === 'created') return record;
  if (put === 'exists') return loadPaymentMethod(merchant, record.id);
  // saved by a concurrent request meanwhile: that one is the customer's, with this card's expiry
  const winner = await paymentMethods.findCustomerCard(record.customer_id!, record.card.fingerprint);
  if (!winner) throw new InvalidState(undefined, 'the card was saved and removed meanwhile; save it again');
  await vault.putCard(owner, winner, { number, exp_month, exp_year, ...(cvc ? { cvc } : {}) });
  return savedAgain(merchant, winner, input);
}

async function savedAgain(merchant: Merchant, id: string, input: NewPaymentMethod) {
  await paymentMethods.updateCard(id, input.card, input.billing_details ?? null);
  return loadPaymentMethod(merchant, id);
}

/** The merchant's payment method of this mode, or 404. */
export async function loadPaymentMethod(merchant: Merchant, id: string): Promise<PaymentMethodRecord> {
  const pm = await paymentMethods.getPaymentMethod(ownerOf(merchant), id);
  if (!pm) throw new NotFound();
  return pm;
}

export const getPaymentMethod = async (merchant: Merchant, id: string) => paymentMethodView(await loadPaymentMethod(merchant, id));

/** The customer's payment methods, newest first (another merchant's or mode's customer: 400 resource_missing). */
export async function listPaymentMethods(merchant: Merchant, query: PageQuery & { customer_id: string }) {
  if (!(await customers.getCustomer(ownerOf(merchant), query.customer_id))) {
    throw new ResourceMissing('customer_id', `no customer ${query.customer_id} in ${modeOf(merchant)} mode`);
  }
  const page = await paymentMethods.listByCustomer(query.customer_id, query);
  return { object: 'list' as const, data: page.data.map(paymentMethodView), has_more: page.has_more };
}

/** Attaches a payment method to a customer; attaching it again to the same one changes nothing. */
export async function attachPaymentMethod(merchant: Merchant, id: string, customerId: string) {
  const pm = await loadPaymentMethod(merchant, id);
  if (!(await customers.getCustomer(ownerOf(merchant), customerId))) {
    throw new ResourceMissing('customer_id', `no customer ${customerId} in ${modeOf(merchant)} mode`);
  }
  if (pm.customer_id === customerId) return paymentMethodView(pm);
  // a publishable key's card is kept once attached: its vault card first (the attach below keeps the payment method)
  if (pm.expires_at !== undefined && !(await vault.keepCard(ownerOf(merchant), id))) throw new NotFound();
  if (pm.customer_id || !(await paymentMethods.attach(pm, customerId))) {
    const now = await loadPaymentMethod(merchant, id);
    if (now.customer_id === customerId) return paymentMethodView(now);
    throw new InvalidState(undefined, `the payment method is attached to customer ${now.customer_id}; detach it first`);
  }
  return getPaymentMethod(merchant, id);
}

/**
 * Keeps a payment method a publishable key made past its day (it is charged): its vault card, then the payment method
 * (a retry after a failure between them finds it still expiring, and keeps both). False when it is gone.
 */
export async function keepPaymentMethod(pm: PaymentMethodRecord): Promise<boolean> {
  if (pm.expires_at === undefined) return true;
  const owner = { merchant_id: pm.merchant_id, livemode: pm.livemode };
  return (await vault.keepCard(owner, pm.id)) && (await paymentMethods.keep(pm.id));
}

/** Detaches a payment method from its customer (it stays usable by id); detaching it again changes nothing. */
export async function detachPaymentMethod(merchant: Merchant, id: string) {
  await paymentMethods.detach(await loadPaymentMethod(merchant, id));
  return getPaymentMethod(merchant, id);
}
