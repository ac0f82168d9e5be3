import { randomUUID } from 'node:crypto';
import type { Merchant } from '../../shared/domain/auth.ts';
import type { Owner } from '../../shared/model/targets.ts';
import type { Role } from '../../shared/model/permissions.ts';

/**
 * A fresh merchant with its own `sk_test_` key and one customer (and, when asked, an authorized and a captured
 * payment): every test gets its own, no shared state.
 */
export async function newMerchant(options: { payments: boolean; publishableKey?: boolean } = { payments: false }) {
  const { createDemoMerchant } = await import('../../shared/domain/demo.ts');
  return createDemoMerchant(`merchant-${randomUUID()}@example.test`, options);
}

export const bearer = (credential: string) => ({ Authorization: `Bearer ${credential}` });

/**
 * A sign-in session token of a member of the merchant with `role` (a fresh user seated as that member), as verify-otp
 * issues one (signing in itself is tested in auth.test.ts, joining by invitation in team.test.ts).
 */
export async function sessionOf(merchantId: string, role: Role = 'owner'): Promise<string> {
  const [{ newSessionToken, sha256 }, { putSession }, { clock }, { createMember }, { newId }] = await Promise.all([
    import('../../shared/model/credentials.ts'),
    import('../../shared/store/sessions.ts'),
    import('../../shared/model/clock.ts'),
    import('../../shared/store/team.ts'),
    import('../../shared/model/ids.ts'),
  ]);
  const user = {
    id: newId('user'),
    email: `${role}-${randomUUID()}@example.test`,
    created_at: new Date(clock.now()).toISOString(),
    last_merchant_id: null,
  };
  const owner = { merchant_id: merchantId, user_id: user.id, email: user.email, role, created_at: user.created_at, business_name: user.email };
  if ((await createMember(user, owner)) !== 'committed') throw new Error('owner not made');
  const token = newSessionToken();
  await putSession(sha256(token), {
    user_id: user.id,
    email: user.email,
    merchant_id: merchantId,
    member_since: user.created_at,
    expires_ms: clock.now() + 3_600_000,
    csrf_sealed: null,
  });
  return token;
}

/** The merchant acting with its test key, as a use case sees the request (for tests that call the domain directly). */
export const testActor = (merchantId: string): Merchant => ({ id: merchantId, credential: 'api_key', livemode: false });

/** The merchant's test-mode data, as the store holds it (keys.ts `Owner`). */
export const testOwner = (merchantId: string): Owner => ({ merchant_id: merchantId, livemode: false });
