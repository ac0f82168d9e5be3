import { findOrCreateMerchant } from '../store/merchants.ts';
import { createApiKey } from './api-keys.ts';
import { createCustomer, listCustomers } from './customers.ts';

export const DEMO_EMAIL = 'demo@merchant.test';

export interface DemoMerchant {
  merchantId: string;
  email: string;
  apiKey: string;
  apiKeyId: string;
  customerId: string;
}

/** The local runtime's ready-to-use merchant: a fresh `sk_test_` key (printed at each start) and a customer to play with. */
export async function createDemoMerchant(email = DEMO_EMAIL): Promise<DemoMerchant> {
  const merchant = await findOrCreateMerchant(email);
  const key = await createApiKey(merchant.id, { name: 'Local demo key', mode: 'test' });
  // With `npm start -- --persist` the merchant survives restarts: keep its first customer instead of adding more.
  const [existing] = (await listCustomers(merchant.id, { limit: 1 })).data;
  const customer = existing ?? (await createCustomer(merchant.id, { email: 'jane@example.com', name: 'Jane Doe', phone: '+14155550123' }));
  return { merchantId: merchant.id, email, apiKey: key.key, apiKeyId: key.id, customerId: customer.id };
}
