/**
 * Capacity of the team's flows (issue 46): an invitation e-mailed, one accepted (the membership made and a session
 * for the merchant), a session's request, which reads the session and its membership (an API key's reads neither), and
 * a page of the audit log the invitations wrote.
 * Each measured as the others in capacity.ts.
 */
import { randomUUID } from 'node:crypto';
import { handler as auditLog } from '../functions/audit-log/list.ts';
import { handler as acceptInvitation } from '../functions/team/invitations/accept.ts';
import { handler as createInvitation } from '../functions/team/invitations/create.ts';
import { handler as listMembers } from '../functions/team/members/list.ts';
import { signIn } from '../shared/domain/team.ts';
import { apiEvent, invokeHttp, type HttpResult } from '../test/support/lambda.ts';
import { bearer } from '../test/support/merchant.ts';

const ok = (res: HttpResult) => {
  if (res.status !== 200) throw new Error(`${res.status}: ${res.rawBody.slice(0, 300)}`);
  return res;
};

/** `runs`: how often `measure` runs an operation (its warm-up included). */
export async function teamFlows(measure: (name: string, op: () => Promise<unknown>) => Promise<void>, runs = 4) {
  const owner = await signIn(`owner-${randomUUID()}@bench.test`);
  const invite = async () =>
    ok(
      await invokeHttp(
        createInvitation,
        apiEvent({
          method: 'POST',
          path: '/api/team/invitations',
          headers: bearer(owner.token),
          body: { email: `member-${randomUUID()}@bench.test`, role: 'support' },
        }),
      ),
    ).body as { id: string; email: string };
  await measure('team invitation (e-mailed)', invite);

  // Invited addresses signed in (no merchant yet), outside what is measured
  const invited = await Promise.all(
    Array.from({ length: runs }, async () => {
      const invitation = await invite();
      return { id: invitation.id, token: (await signIn(invitation.email)).token };
    }),
  );
  await measure('invitation accepted (membership and a session)', async () => {
    const { id, token } = invited.pop()!;
    return ok(await invokeHttp(acceptInvitation, apiEvent({ method: 'POST', path: `/api/team/invitations/${id}/accept`, headers: bearer(token) })));
  });
  await measure('team members list (a session: session and membership read)', async () =>
    ok(await invokeHttp(listMembers, apiEvent({ path: '/api/team/members', headers: bearer(owner.token) }))),
  );
  // the owner's invitations are audited (a person's writes): a page of their log
  await measure('audit log page (10 entries, an owner)', async () =>
    ok(await invokeHttp(auditLog, apiEvent({ path: '/api/audit_log', headers: bearer(owner.token), query: { limit: '10' } }))),
  );
}
