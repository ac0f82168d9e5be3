import { http } from '../../../shared/http/index.ts';
import { CreateInvitationBody } from '../../../shared/schemas/team.ts';
import { Invitation } from '../../../shared/schemas/responses/team.ts';
import { invite } from '../../../shared/domain/team.ts';

export const handler = http(
  { auth: 'merchant', permission: 'team:write', body: CreateInvitationBody, idempotent: true, response: Invitation, errors: [403] },
  async ({ merchant, body, baseUrl, origin }) => invite(merchant, body, baseUrl, origin),
);
