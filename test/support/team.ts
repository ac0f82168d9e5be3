import { randomUUID } from 'node:crypto';
import { clock } from '../../shared/model/clock.ts';
import { newSessionToken, sha256 } from '../../shared/model/credentials.ts';
import type { Role } from '../../shared/model/permissions.ts';
import { putSession } from '../../shared/store/sessions.ts';

/**
 * A sign-in session of a team member of `merchantId` with `role`, as signing in after joining the team gives one: the
 * session names its member (shared/domain/auth.ts `Merchant.user`). Signing in and joining are the team's own tests;
 * here only the role matters.
 */
export async function sessionWithRole(merchantId: string, role: Role): Promise<string> {
  const token = newSessionToken();
  const user = { id: `usr_${randomUUID().replaceAll('-', '').slice(0, 26)}`, email: `${role}-${randomUUID()}@example.test`, role };
  await putSession(sha256(token), { merchant_id: merchantId, expires_ms: clock.now() + 3_600_000, user });
  return token;
}
