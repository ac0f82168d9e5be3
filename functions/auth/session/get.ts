import { describeSession } from '../../../shared/domain/sessions.ts';
import { http } from '../../../shared/http/index.ts';
import { SessionState } from '../../../shared/schemas/responses/team.ts';

export const handler = http({ auth: 'session', response: SessionState }, async ({ session }) => describeSession(session));
