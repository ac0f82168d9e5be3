import { http } from '../../../shared/http/index.ts';
import { RemovedMember } from '../../../shared/schemas/responses/team.ts';
import { removeMember } from '../../../shared/domain/team.ts';

export const handler = http(
  { auth: 'merchant', permission: 'team:write', params: { user_id: 'user' }, response: RemovedMember, errors: [403] },
  async ({ merchant, params }) => removeMember(merchant, params.user_id),
);
