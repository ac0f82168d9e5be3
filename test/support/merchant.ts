import { randomUUID } from 'node:crypto';

/**
 * A fresh merchant with its own `sk_test_` key and one customer (and, when asked, an authorized and a captured
 * payment): every test gets its own, no shared state.
 */
export async function newMerchant(options = { payments: false }) {
  const { createDemoMerchant } = await import('../../shared/domain/demo.ts');
  return createDemoMerchant(`merchant-${randomUUID()}@example.test`, options);
}

export const bearer = (credential: string) => ({ Authorization: `Bearer ${credential}` });
