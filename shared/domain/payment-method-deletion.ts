import { commit } from '../store/commit.ts';
import * as customers from '../store/customers.ts';
import * as paymentMethods from '../store/payment-methods.ts';
import type { PaymentMethodRecord } from '../store/payment-methods.ts';
import * as subscriptions from '../store/subscriptions.ts';
import * as vault from '../store/vault.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { isoNow } from '../model/clock.ts';
import { InvalidState, NotFound } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { loadPaymentMethod, paymentMethodView } from './payment-methods.ts';

/** Every page of a list read at once while a customer's payment methods are deleted. */
const PAGE = 100;

/**
 * Deletes a payment method (docs/api.md "Deleting a payment method"): its card and CVC leave the vault at once, then
 * it is marked deleted with `payment_method.deleted` in one commit (from then on it answers 404 everywhere and cannot
 * be charged), and its customer lets go of it (default, card claim). The event also starts the removal of its tokens
 * at each connector account (payment-method-removal.ts). Refused (400 invalid_state) while a subscription that is
 * not cancelled charges it. A second delete, or one racing the first, answers 404.
 */
export async function deletePaymentMethod(merchant: Merchant, id: string) {
  const pm = await loadPaymentMethod(merchant, id);
  const owner = ownerOf(merchant);
  const customer = pm.customer_id ? await customers.getCustomer(owner, pm.customer_id) : undefined;
  const isDefault = customer?.default_payment_method === pm.id;
  const [charging] = await subscriptions.openSubscriptionsCharging(owner, pm.id, isDefault ? customer?.id : undefined);
  if (charging) {
    throw new InvalidState(
      undefined,
      `the payment method is charged by ${charging.status.replace('_', ' ')} subscription ${charging.id}; give the subscription another payment method or cancel it first`,
    );
  }
  if (!(await removePaymentMethod(pm))) throw new NotFound();
  return deletedView(pm.id);
}

/** Deletes the customer's payment methods (the customer is being deleted; its subscriptions are all cancelled). */
export async function deleteCustomersPaymentMethods(merchant: Merchant, customerId: string): Promise<void> {
  let after: string | undefined;
  for (;;) {
    const page = await paymentMethods.listByCustomer(customerId, { limit: PAGE, ...(after ? { starting_after: after } : {}) });
    await Promise.all(page.data.map(removePaymentMethod));
    if (!page.has_more || page.data.length === 0) return;
    after = page.data.at(-1)!.id;
  }
}

const deletedView = (id: string) => ({ id, object: 'payment_method' as const, deleted: true as const });

/** The one path of a deletion; false when another deletion came first. */
async function removePaymentMethod(pm: PaymentMethodRecord): Promise<boolean> {
  const owner = { merchant_id: pm.merchant_id, livemode: pm.livemode };
  // The vault first: if the commit then fails, the payment method can no longer be charged and a retry finishes.
  await vault.deleteCard(owner, pm.id);
  const done = await commit({
    writes: [paymentMethods.deletion(pm, isoNow())],
    events: [newEvent(owner, 'payment_method.deleted', paymentMethodView(pm))],
  });
  if (done === 'refused') return false;
  await paymentMethods.releaseCustomer(pm);
  return true;
}
