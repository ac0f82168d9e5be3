import * as v from 'valibot';
import { ROLES } from '../model/permissions.ts';
import { Email, listQuery } from './common.ts';

export const RoleField = v.pipe(
  v.picklist(ROLES),
  v.description('owner, admin, developer, analyst, support or view_only (docs/api.md "Team"); only an owner makes owners'),
  v.examples(['support']),
);

export const CreateInvitationBody = v.object({ email: Email, role: RoleField });
export const ListInvitationsQuery = listQuery('invitation');
export const ListMembersQuery = listQuery('user');
export const UpdateMemberBody = v.object({ role: RoleField });
