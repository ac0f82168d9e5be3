import * as customers from '../store/customers.ts';
import * as subscriptions from '../store/subscriptions.ts';
import type { CustomerChanges, CustomerRecord } from '../store/customers.ts';
import type { PageQuery } from '../store/pagination.ts';
import { InvalidState, NotFound, ResourceMissing } from '../model/errors.ts';
import * as paymentMethods from '../store/payment-methods.ts';
import { freshOrigin, idFor, type Origin } from '../model/ids.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { bindToClock } from './clock-binding.ts';
import { deleteCustomersPaymentMethods } from './payment-method-deletion.ts';

const view = (c: CustomerRecord) => ({
  id: c.id,
  object: 'customer' as const,
  livemode: c.livemode,
  test_clock: c.test_clock ?? null,
  email: c.email,
  name: c.name,
  phone: c.phone,
  metadata: c.metadata,
  default_payment_method: c.default_payment_method ?? null,
  created_at: c.created_at,
});

export interface NewCustomer {
  email: string;
  name?: string;
  phone?: string;
  metadata?: Record<string, string>;
  test_clock?: string;
}

/** A retried create (same origin) answers the customer its first run created. */
export async function createCustomer(merchant: Merchant, input: NewCustomer, origin: Origin = freshOrigin()) {
  const customer: CustomerRecord = {
    id: idFor('customer', origin),
    merchant_id: merchant.id,
    livemode: merchant.livemode,
    email: input.email,
    name: input.name ?? null,
    phone: input.phone ?? null,
    metadata: input.metadata ?? {},
    created_at: new Date(origin.at).toISOString(),
    test_clock: input.test_clock ?? null,
  };
  if (input.test_clock) await bindToClock(ownerOf(merchant), input.test_clock, customer.id);
  return view((await customers.putCustomer(customer)).record);
}

export async function getCustomer(merchant: Merchant, customerId: string) {
  const customer = await customers.getCustomer(ownerOf(merchant), customerId);
  if (!customer) throw new NotFound();
  return view(customer);
}

export async function updateCustomer(merchant: Merchant, customerId: string, changes: CustomerChanges) {
  const chosen = changes.default_payment_method;
  if (chosen && (await paymentMethods.getPaymentMethod(ownerOf(merchant), chosen))?.customer_id !== customerId) {
    throw new ResourceMissing('default_payment_method', `no payment method ${chosen} attached to customer ${customerId}`);
  }
  const customer = await customers.updateCustomer(ownerOf(merchant), customerId, changes);
  if (!customer) throw new NotFound();
  return view(customer);
}

/**
 * Deletes a customer, and its payment methods with it (payment-method-deletion.ts): afterwards it answers 404 and is no
 * longer listed; its payments and invoices keep its `customer_id`. A customer with a subscription that is not cancelled cannot be deleted (400 invalid_state naming
 * it): the subscription would go on renewing for nobody; cancel it first.
 */
export async function deleteCustomer(merchant: Merchant, customerId: string) {
  const owner = ownerOf(merchant);
  if (!(await customers.getCustomer(owner, customerId))) throw new NotFound();
  const [open] = await subscriptions.openSubscriptionsOf(owner, customerId);
  if (open) {
    throw new InvalidState(
      undefined,
      `the customer has ${open.status === 'active' ? 'an' : 'a'} ${open.status.replace('_', ' ')} subscription (${open.id}); cancel it first`,
    );
  }
  // its payment methods first: a failure leaves the customer, and deleting it again finishes
  await deleteCustomersPaymentMethods(merchant, customerId);
  if (!(await customers.deleteCustomer(owner, customerId))) throw new NotFound();
  return { id: customerId, object: 'customer' as const, deleted: true as const };
}

export async function listCustomers(merchant: Merchant, page: PageQuery) {
  const result = await customers.listCustomers(ownerOf(merchant), page);
  return { object: 'list' as const, data: result.data.map(view), has_more: result.has_more };
}
