import { sandboxChallenge } from '../../shared/domain/three-d-secure.ts';
import { http } from '../../shared/http/index.ts';
import { sandboxChallengePage } from '../../shared/hosted/three-d-secure-pages.ts';
import { SandboxChallengeQuery } from '../../shared/schemas/hosted.ts';

/** The sandbox issuer's challenge page (test mode's built-in providers), with a pass and a fail button. */
export const handler = http({ auth: 'public', query: SandboxChallengeQuery, file: 'text/html' }, async ({ query, baseUrl }) =>
  sandboxChallengePage(await sandboxChallenge(baseUrl, query.return_url)),
);
