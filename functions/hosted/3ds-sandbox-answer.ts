import { sandboxChallengeReturn } from '../../shared/domain/three-d-secure.ts';
import { http, Redirect } from '../../shared/http/index.ts';
import { SandboxAnswerQuery } from '../../shared/schemas/hosted.ts';

/** The shopper's answer on the sandbox challenge page: back to this service's return page with it, signed by that page. */
export const handler = http(
  { auth: 'public', query: SandboxAnswerQuery, file: 'text/html', redirects: true },
  async ({ query, baseUrl }) => new Redirect(await sandboxChallengeReturn(baseUrl, query.return_url, query.answer, query.signature)),
);
