import { switchSession } from '../../../shared/domain/sessions.ts';
import { http } from '../../../shared/http/index.ts';
import { SwitchSessionBody } from '../../../shared/schemas/auth.ts';
import { SessionState } from '../../../shared/schemas/responses/team.ts';

export const handler = http(
  { auth: 'session', body: SwitchSessionBody, response: SessionState },
  async ({ session, body, requestId, sourceIp, raw }) =>
    switchSession(session, body.merchant_id, { request_id: requestId, ip: sourceIp, user_agent: raw.headers['user-agent'] ?? null }),
);
