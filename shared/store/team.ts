import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ROLES, type Role } from '../model/permissions.ts';
import type { InvitationState, Transition } from '../model/state-machines.ts';
import { db, TABLE } from './client.ts';
import { commit, type Create, type Update, type Write } from './commit.ts';
import { Int, nullable, picklistOf, recordReader, Text } from './item-schemas.ts';
import { invitationKeys, memberKeys, merchantKeys, userKeys } from './keys.ts';
import { listPage, merchantSet, queryAll, type Page, type PageQuery } from './pagination.ts';

/** A person, known by the e-mail they sign in with; `last_merchant_id`: the merchant their last session acted for. */
export interface UserRecord {
  id: string;
  email: string;
  created_at: string;
  last_merchant_id: string | null;
}

/** A user's place in a merchant's team (the merchant's item; the user's copy adds the merchant's name). */
export interface MembershipRecord {
  merchant_id: string;
  user_id: string;
  email: string;
  role: Role;
  /** when the user joined: a session names it, so a member removed and invited again starts with new sessions */
  created_at: string;
  business_name: string;
}

export interface InvitationRecord {
  id: string;
  merchant_id: string;
  email: string;
  role: Role;
  status: InvitationState;
  business_name: string;
  /** who invited (their e-mail), null when an API key did */
  invited_by: string | null;
  created_at: string;
  /** epoch ms */
  expires_ms: number;
}

/** What sign-in reads of an e-mail: its user, memberships and invitations. */
export interface EmailRecords {
  user?: UserRecord;
  memberships: MembershipRecord[];
  invitations: InvitationRecord[];
}

const RoleItem = picklistOf<Role>()(ROLES);
const UserItem = v.object({ id: Text, email: Text, created_at: Text, last_merchant_id: nullable(Text) });
const MembershipItem = v.object({ merchant_id: Text, user_id: Text, email: Text, role: RoleItem, created_at: Text, business_name: Text });
const InvitationItem = v.object({
  id: Text,
  merchant_id: Text,
  email: Text,
  role: RoleItem,
  status: picklistOf<InvitationState>()(['pending', 'accepted', 'revoked']),
  business_name: Text,
  invited_by: nullable(Text),
  created_at: Text,
  expires_ms: Int,
});
const userOf: (item: Record<string, unknown>) => UserRecord = recordReader('user', UserItem);
const membershipOf: (item: Record<string, unknown>) => MembershipRecord = recordReader('membership', MembershipItem);
const invitationOf: (item: Record<string, unknown>) => InvitationRecord = recordReader('invitation', InvitationItem);

/** Everything of one e-mail, in one strongly consistent query of its partition. */
export async function readEmail(email: string): Promise<EmailRecords> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': userKeys.partition(email) },
    ConsistentRead: true,
  });
  const records: EmailRecords = { memberships: [], invitations: [] };
  for (const item of items) {
    const kind = userKeys.kindOf(String(item.sk));
    if (kind === 'user') records.user = userOf(item);
    else if (kind === 'membership') records.memberships.push(membershipOf(item));
    else if (kind === 'invitation') records.invitations.push(invitationOf(item));
  }
  return records;
}

export async function getMembership(merchantId: string, userId: string): Promise<MembershipRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: memberKeys.item(merchantId, userId), ConsistentRead: true }));
  return out.Item && membershipOf(out.Item);
}

export async function getInvitation(merchantId: string, id: string): Promise<InvitationRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: invitationKeys.item(merchantId, id), ConsistentRead: true }));
  return out.Item && invitationOf(out.Item);
}

/** The invitation as the invited e-mail's copy holds it: found only by that e-mail. */
export async function getInvitationOfEmail(email: string, id: string): Promise<InvitationRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: userKeys.invitationCopy(email, id), ConsistentRead: true }));
  return out.Item && invitationOf(out.Item);
}

/** The merchant's name as invitations and sign-in show it: its `business_name`, else the e-mail it was created with. */
export async function businessNameOf(merchantId: string): Promise<string | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: merchantKeys.profile(merchantId), ConsistentRead: true }));
  if (!out.Item) return undefined;
  return String(out.Item.business_name ?? out.Item.email ?? merchantId);
}

export async function listMembers(merchantId: string, page: PageQuery): Promise<Page<MembershipRecord>> {
  const result = await listPage(merchantSet(memberKeys, merchantId, { consistent: true }), page);
  return { data: result.data.map(membershipOf), has_more: result.has_more };
}

export async function listInvitations(merchantId: string, page: PageQuery): Promise<Page<InvitationRecord>> {
  const result = await listPage(merchantSet(invitationKeys, merchantId, { consistent: true }), page);
  return { data: result.data.map(invitationOf), has_more: result.has_more };
}

/** The merchant's count of owners moves with each owner made or unmade; unmaking one needs another left. */
const ownerCount = (merchantId: string, by: 1 | -1): Update<'last_owner'> => ({
  update: { entity: 'merchant', id: merchantId },
  add: { owner_count: by },
  ...(by < 0 ? { above: { owner_count: 1 }, refusal: 'last_owner' as const } : {}),
});

/** Both items of a new membership (the merchant's and the user's copy), and the owner count when it makes an owner. */
const membershipWrites = (m: MembershipRecord): Write<'member'>[] => [
  { create: { entity: 'membership', merchantId: m.merchant_id, userId: m.user_id }, item: { ...m }, refusal: 'member' },
  { create: { entity: 'membership_copy', email: m.email, merchantId: m.merchant_id }, item: { ...m } },
  ...(m.role === 'owner' ? [{ update: { entity: 'merchant' as const, id: m.merchant_id }, add: { owner_count: 1 } }] : []),
];

/** The user a change makes (refused, `taken`, when the e-mail has one: a sign-in that raced this one made it). */
const newUser = (user: UserRecord): Create<'taken'> => ({ create: { entity: 'user', email: user.email }, item: { ...user }, refusal: 'taken' });

/** The user's last merchant, set only if it is still what was read (`expected`): racing sign-ups make one merchant. */
const lastMerchant = (user: UserRecord, merchantId: string, expected?: string | null): Update<'taken'> => ({
  update: { entity: 'user', email: user.email },
  set: { last_merchant_id: merchantId },
  ...(expected !== undefined ? { expect: { last_merchant_id: expected }, refusal: 'taken' as const } : {}),
});

/**
 * A new merchant with the user as its owner. `isNew`: the e-mail's first sign-in (its user and the merchant's
 * e-mail item are made too); otherwise the user exists with no membership left, and the merchant is made only if
 * no racing sign-in made one meanwhile. `taken` when another sign-in won: read again.
 */
export async function createMerchantWithOwner(merchant: { id: string; email: string; created_at: string }, user: UserRecord, isNew: boolean) {
  const owner: MembershipRecord = {
    merchant_id: merchant.id,
    user_id: user.id,
    email: user.email,
    role: 'owner',
    created_at: merchant.created_at,
    business_name: merchant.email,
  };
  return commit<'taken' | 'member'>({
    writes: [
      { create: { entity: 'merchant', id: merchant.id }, item: { ...merchant, owner_count: 1 } },
      ...(isNew
        ? [
            newUser({ ...user, last_merchant_id: merchant.id }),
            { create: { entity: 'merchant_email' as const, email: merchant.email }, item: { ...merchant } },
          ]
        : [lastMerchant(user, merchant.id, user.last_merchant_id)]),
      // the profile is created with its owner counted, so the membership's count update is left out
      ...membershipWrites(owner).filter((w) => !('update' in w)),
    ],
  });
}

/**
 * A new user seated as a member at once (`taken`: the e-mail has a user). The product seats members through an
 * accepted invitation; tests seat a role's member with this.
 */
export const createMember = (user: UserRecord, membership: MembershipRecord) =>
  commit<'taken' | 'member'>({ writes: [newUser({ ...user, last_merchant_id: membership.merchant_id }), ...membershipWrites(membership)] });

/** A user with no merchant yet (invited: they join by accepting). `taken`: a racing sign-in made it. */
export const createUser = (user: UserRecord) => commit<'taken'>({ writes: [newUser(user)] });

export const setLastMerchant = (user: UserRecord, merchantId: string) => commit({ writes: [lastMerchant(user, merchantId)] });

/** The invitation and its copy for the invited e-mail, together. */
export const putInvitation = (invitation: InvitationRecord) =>
  commit({
    writes: [
      { create: { entity: 'invitation', merchantId: invitation.merchant_id, id: invitation.id }, item: { ...invitation } },
      { create: { entity: 'invitation_copy', email: invitation.email, id: invitation.id }, item: { ...invitation } },
    ],
  });

/** `revoke` (INVITATION) of both items; false when another change moved it first. */
export async function revokeInvitation(invitation: InvitationRecord, revoke: Transition): Promise<boolean> {
  const targets = [
    { entity: 'invitation', merchantId: invitation.merchant_id, id: invitation.id },
    { entity: 'invitation_copy', email: invitation.email, id: invitation.id },
  ] as const;
  return (await commit({ writes: targets.map((target) => ({ update: target, transition: revoke })) })) === 'committed';
}

/**
 * `accept` (INVITATION) of both items while unexpired at `now`, the membership it makes and the user's last merchant,
 * in one change: `member` when the user already is one, `refused` when the invitation moved or expired meanwhile.
 */
export async function acceptInvitation(invitation: InvitationRecord, accept: Transition, member: MembershipRecord, user: UserRecord, now: number) {
  const targets = [
    { entity: 'invitation', merchantId: invitation.merchant_id, id: invitation.id },
    { entity: 'invitation_copy', email: invitation.email, id: invitation.id },
  ] as const;
  return commit<'member' | 'taken'>({
    writes: [
      ...membershipWrites(member),
      ...targets.map((target) => ({ update: target, transition: accept, above: { expires_ms: now } })),
      lastMerchant(user, member.merchant_id),
    ],
  });
}

/**
 * A member's new role on both items, if it still is `from`; the owner count follows. `last_owner`: it would leave
 * the merchant without one; `refused`: the member is gone or their role changed meanwhile.
 */
export async function changeRole(member: MembershipRecord, to: Role) {
  const expect = { role: member.role };
  const counts =
    member.role === to
      ? []
      : member.role === 'owner'
        ? [ownerCount(member.merchant_id, -1)]
        : to === 'owner'
          ? [ownerCount(member.merchant_id, 1)]
          : [];
  return commit<'last_owner'>({
    writes: [
      { update: { entity: 'membership', merchantId: member.merchant_id, userId: member.user_id }, expect, set: { role: to } },
      { update: { entity: 'membership_copy', email: member.email, merchantId: member.merchant_id }, set: { role: to } },
      ...counts,
    ],
  });
}

/**
 * Both items of the membership go (its sessions stop: they read it), if its role is still the one read (so the owner
 * count stays true); `last_owner` when it is the only owner, `refused` when it changed or went meanwhile.
 */
export async function removeMember(member: MembershipRecord) {
  return commit<'last_owner'>({
    writes: [
      { remove: { entity: 'membership', merchantId: member.merchant_id, userId: member.user_id }, expect: { role: member.role } },
      { remove: { entity: 'membership_copy', email: member.email, merchantId: member.merchant_id } },
      ...(member.role === 'owner' ? [ownerCount(member.merchant_id, -1)] : []),
    ],
  });
}
