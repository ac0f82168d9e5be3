import { http } from '../../../shared/http/index.ts';
import { ListInvitationsQuery } from '../../../shared/schemas/team.ts';
import { InvitationList } from '../../../shared/schemas/responses/team.ts';
import { listInvitations } from '../../../shared/domain/team.ts';

export const handler = http(
  { auth: 'merchant', permission: 'team:read', query: ListInvitationsQuery, response: InvitationList },
  async ({ merchant, query }) => listInvitations(merchant, query),
);
