import { http } from '../../../shared/http/index.ts';
import { UpdateMemberBody } from '../../../shared/schemas/team.ts';
import { Member } from '../../../shared/schemas/responses/team.ts';
import { changeRole } from '../../../shared/domain/team.ts';

export const handler = http(
  { auth: 'merchant', permission: 'team:write', params: { user_id: 'user' }, body: UpdateMemberBody, response: Member, errors: [403] },
  async ({ merchant, params, body }) => changeRole(merchant, params.user_id, body.role),
);
