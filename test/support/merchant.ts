import { randomUUID } from 'node:crypto';

/** A fresh merchant with its own `sk_test_` key and one customer: every test gets its own, no shared state. */
export async function newMerchant() {
  const { createDemoMerchant } = await import('../../shared/domain/demo.ts');
  return createDemoMerchant(`merchant-${randomUUID()}@example.test`);
}

export const bearer = (credential: string) => ({ Authorization: `Bearer ${credential}` });
