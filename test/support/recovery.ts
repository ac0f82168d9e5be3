import { handler as getInvoice } from '../../functions/invoices/get.ts';
import { handler as getSubscription } from '../../functions/subscriptions/get.ts';
import { listEvents } from '../../shared/store/events.ts';
import { listPayments } from '../../shared/store/payments.ts';
import { customerOnClock } from './clocks.ts';
import { apiEvent, invokeHttp, type Json } from './lambda.ts';
import { bearer, testOwner } from './merchant.ts';
import { cardBody, paymentMethods } from './payment-methods.ts';
import { subscribe } from './renewals.ts';

/** What the recovery tests read back: the subscription and invoice as the API answers them, the charges, the events. */
export const read = {
  subscription: async (key: string, id: string) =>
    (await invokeHttp(getSubscription, apiEvent({ method: 'GET', path: `/api/subscriptions/${id}`, headers: bearer(key) }))).body,
  invoice: async (key: string, id: string) =>
    (await invokeHttp(getInvoice, apiEvent({ method: 'GET', path: `/api/invoices/${id}`, headers: bearer(key) }))).body,
  charges: async (merchantId: string, subscriptionId: string) =>
    (await listPayments(testOwner(merchantId), {}, { limit: 100 })).data.filter((p) => p.metadata.subscription_id === subscriptionId).reverse(),
  events: async (merchantId: string, type: string): Promise<Json[]> =>
    (await listEvents(testOwner(merchantId), { event: type }, { limit: 100 })).data.reverse(),
};

/** The clock of the recovery tests: subscribed on 15 February 2027 at 09:00, the first renewal due on 15 March. */
export const SUBSCRIBED_AT = '2027-02-15T09:00:00Z';
export const DUE = '2027-03-15';

/** A customer on a clock at SUBSCRIBED_AT with the card `number` saved, subscribed monthly on it. */
export async function subscribedOnCard(key: string, number: string) {
  const { clockId, customerId } = await customerOnClock(key, SUBSCRIBED_AT);
  const pm = await paymentMethods.create(key, cardBody(number, { customer_id: customerId }));
  if (pm.status !== 200) throw new Error(`card not saved: ${pm.rawBody}`);
  const body = { customer_id: customerId, payment_method: pm.body.id, plan: 'Pro', amount: 2900, currency: 'eur', interval: 'month' };
  const sub = await subscribe(key, body);
  if (sub.status !== 200 || sub.body.next_billing !== DUE) throw new Error(`not subscribed: ${sub.rawBody}`);
  return { clockId, customerId, paymentMethodId: pm.body.id as string, subscriptionId: sub.body.id as string };
}
