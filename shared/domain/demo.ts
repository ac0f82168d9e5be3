import { SANDBOX_APPROVED_CARD } from '../providers/test-cards.ts';
import * as events from '../store/events.ts';
import { createApiKey } from './api-keys.ts';
import { merchantOwnedBy } from './team.ts';
import type { Merchant } from './auth.ts';
import { createCustomer, listCustomers } from './customers.ts';
import { capturePayment } from './payment-lifecycle.ts';
import { createPayment } from './payment-create.ts';

export const DEMO_EMAIL = 'demo@merchant.test';

export interface DemoMerchant {
  merchantId: string;
  email: string;
  apiKey: string;
  apiKeyId: string;
  /** a `pk_test_` key, for the hosted card fields, when asked for */
  publishableKey?: string;
  customerId: string;
  /** an authorized payment (capture or void it) and a captured one (refund it), when asked for */
  paymentId?: string;
  capturedPaymentId?: string;
  /** a `payment.succeeded` event, and the payment it reports (where the event is stored) */
  eventId?: string;
  eventObjectId?: string;
}

/**
 * The local runtime's ready-to-use merchant: a fresh `sk_test_` key (printed at each start), a customer and,
 * unless told otherwise, two sandbox payments to capture, void or refund.
 */
export async function createDemoMerchant(
  email = DEMO_EMAIL,
  options: { payments: boolean; publishableKey?: boolean } = { payments: true, publishableKey: true },
): Promise<DemoMerchant> {
  const merchant = { id: await merchantOwnedBy(email) };
  const [key, publishable] = await Promise.all([
    createApiKey(merchant.id, { name: 'Local demo key', mode: 'test' }),
    options.publishableKey ? createApiKey(merchant.id, { name: 'Local demo checkout', mode: 'test', type: 'publishable' }) : undefined,
  ]);
  if (!key.key) throw new Error('The demo key was not issued'); // a fresh origin always issues one
  const actor: Merchant = { id: merchant.id, credential: 'api_key', livemode: false };
  // With `npm start -- --persist` the merchant survives restarts: keep its first customer instead of adding more.
  const [existing] = (await listCustomers(actor, { limit: 1 })).data;
  const customer = existing ?? (await createCustomer(actor, { email: 'jane@example.com', name: 'Jane Doe', phone: '+14155550123' }));
  const demo: DemoMerchant = {
    merchantId: merchant.id,
    email,
    apiKey: key.key,
    apiKeyId: key.id,
    ...(publishable?.key ? { publishableKey: publishable.key } : {}),
    customerId: customer.id,
  };
  if (!options.payments) return demo;

  const pay = () =>
    createPayment(actor, {
      amount: 2500,
      currency: 'USD',
      routing: 'smart',
      capture_method: 'manual',
      three_d_secure: 'automatic',
      payment_method: { type: 'card', card: { ...SANDBOX_APPROVED_CARD } },
      customer: { email: customer.email },
    });
  const [authorized, toCapture] = await Promise.all([pay(), pay()]);
  await capturePayment(actor, toCapture.id, {});
  const [event] = (await events.listEvents({ merchant_id: actor.id, livemode: false }, { event: 'payment.succeeded' }, { limit: 1 })).data;
  return {
    ...demo,
    paymentId: authorized.id,
    capturedPaymentId: toCapture.id,
    eventId: event?.id,
    eventObjectId: event && String(event.data.object.id),
  };
}
