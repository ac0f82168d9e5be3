import { http } from '../../shared/http/index.ts';
import { clearedSessionCookie } from '../../shared/http/cookies.ts';
import { SignedOut } from '../../shared/schemas/responses/team.ts';
import { signOut } from '../../shared/domain/team.ts';

export const handler = http({ auth: 'session', response: SignedOut }, async ({ session, baseUrl, responseHeaders }) => {
  const answer = await signOut(session);
  responseHeaders['Set-Cookie'] = clearedSessionCookie(baseUrl);
  return answer;
});
