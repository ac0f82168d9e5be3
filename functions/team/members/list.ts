import { http } from '../../../shared/http/index.ts';
import { ListMembersQuery } from '../../../shared/schemas/team.ts';
import { MemberList } from '../../../shared/schemas/responses/team.ts';
import { listMembers } from '../../../shared/domain/team.ts';

export const handler = http(
  { auth: 'merchant', permission: 'team:read', query: ListMembersQuery, response: MemberList },
  async ({ merchant, query }) => listMembers(merchant, query),
);
