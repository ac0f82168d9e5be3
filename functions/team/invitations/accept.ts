import { http } from '../../../shared/http/index.ts';
import { Session } from '../../../shared/schemas/responses/team.ts';
import { acceptInvitation } from '../../../shared/domain/team.ts';

export const handler = http({ auth: 'session', params: { id: 'invitation' }, response: Session }, async ({ session, params }) =>
  acceptInvitation(session, params.id),
);
