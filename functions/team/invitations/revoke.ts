import { http } from '../../../shared/http/index.ts';
import { Invitation } from '../../../shared/schemas/responses/team.ts';
import { revokeInvitation } from '../../../shared/domain/team.ts';

export const handler = http(
  { auth: 'merchant', permission: 'team:write', params: { id: 'invitation' }, response: Invitation, errors: [403] },
  async ({ merchant, params }) => revokeInvitation(merchant, params.id),
);
