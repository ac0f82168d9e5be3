/** Sign-in sessions, team members and invitations as the API returns them (shared/domain/team.ts). */
import * as v from 'valibot';
import { ROLES } from '../../model/permissions.ts';
import { Email, Id, list, Timestamp } from './common.ts';

const Role = v.pipe(v.picklist(ROLES), v.examples(['support']));
const BusinessName = v.pipe(
  v.string(),
  v.description("the merchant's name (until it names itself, the e-mail it was created with)"),
  v.examples(['owner@shop.test']),
);

const Token = v.pipe(
  v.string(),
  v.regex(/^sess_[0-9A-Za-z]{43}$/),
  v.description('send as `Authorization: Bearer <token>`; lives 12 h'),
  v.examples(['sess_9xQ2mL7vT4kR1pZ8wN3bC6yF0hJ5dG2sA4eU7iO1qW3']),
);
const CsrfToken = v.pipe(
  v.string(),
  v.regex(/^[0-9A-Za-z]{43}$/),
  v.description('send as `X-CSRF-Token` with every request through the session cookie that is not a GET or HEAD'),
  v.examples(['Xb3kP9qL2mN7vR4tW8yZ1cF5hJ0dG6sA3eU7iO2qW4r']),
);
const MerchantId = v.pipe(
  v.nullable(Id('merchant')),
  v.description('the merchant the session acts for; null when the e-mail has no membership yet, only pending `invitations`'),
);
const UserRole = v.pipe(v.nullable(Role), v.description("the user's role in that merchant (null with no merchant)"));
const choices = {
  memberships: v.pipe(
    v.array(v.object({ merchant_id: Id('merchant'), business_name: BusinessName, role: Role })),
    v.description(
      'every merchant the user is a member of: sign in again with `merchant_id` (or, with the cookie, `PUT /api/auth/session`) to act for another',
    ),
  ),
  invitations: v.pipe(
    v.array(v.object({ id: Id('invitation'), business_name: BusinessName, role: Role })),
    v.description('pending invitations to this e-mail: `POST /api/team/invitations/{id}/accept` joins'),
  ),
};

export const Session = v.object({ token: Token, merchant_id: MerchantId, user_id: Id('user'), role: UserRole, ...choices });

/** verify-otp with `session: "cookie"`: the token is in the `po_session` cookie only, never in the body. */
export const CookieSession = v.object({ merchant_id: MerchantId, user_id: Id('user'), role: UserRole, ...choices, csrf_token: CsrfToken });

export const SignedIn = v.union([Session, CookieSession]);

/** `GET` and `PUT /api/auth/session`: the session as it stands (never its token). */
export const SessionState = v.object({
  user_id: Id('user'),
  email: Email,
  merchant_id: MerchantId,
  role: UserRole,
  ...choices,
  csrf_token: v.pipe(v.nullable(CsrfToken), v.description("the cookie session's CSRF token; null for a Bearer session")),
  expires_at: v.pipe(Timestamp, v.description('when the session ends (12 h after sign-in)')),
});

export const SignedOut = v.object({ object: v.literal('session'), signed_out: v.literal(true) });

export const Invitation = v.object({
  id: Id('invitation'),
  object: v.literal('invitation'),
  email: Email,
  role: Role,
  status: v.pipe(v.picklist(['pending', 'accepted', 'revoked', 'expired']), v.description('`expired`: pending past its 7 days')),
  invited_by: v.pipe(v.nullable(Email), v.description('the e-mail of the member who invited; null when an API key did')),
  created_at: Timestamp,
  expires_at: Timestamp,
});
export const InvitationList = list(Invitation);

export const Member = v.object({
  id: Id('user'),
  object: v.literal('member'),
  email: Email,
  role: Role,
  created_at: v.pipe(Timestamp, v.description('when the user joined the team')),
});
export const MemberList = list(Member);
export const RemovedMember = v.object({ id: Id('user'), object: v.literal('member'), deleted: v.literal(true) });
