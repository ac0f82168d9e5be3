import { clock, isoNow } from '../model/clock.ts';
import { csrfMatches, openCsrf } from '../model/csrf.ts';
import { KEY_PREFIX, SESSION_PREFIX, sha256 } from '../model/credentials.ts';
import { BadRequest, PermissionDenied, Unauthorized } from '../model/errors.ts';
import * as apiKeys from '../store/api-keys.ts';
import * as sessions from '../store/sessions.ts';
import * as team from '../store/team.ts';
import type { Owner } from '../model/targets.ts';
import { type Grants, type Role, SECRET_KEY_GRANTS } from '../model/permissions.ts';

export interface Merchant {
  id: string;
  /** `publishable`: a `pk_` key, which may only create payment methods (and load the hosted pages) */
  credential: 'api_key' | 'publishable' | 'session';
  /** the API key's id, when the credential is one (a publishable key's requests are limited per key and client IP) */
  apiKeyId?: string;
  /** an API key's mode; a sign-in session acts in test mode unless the request says `Livemode: true` */
  livemode: boolean;
  /** a session's team member: who they are and their role in this merchant (absent for keys) */
  user?: { id: string; email: string; role: Role };
  /** an API key's last four characters, which name it in the audit log */
  keyLast4?: string;
  /** an API key's grants: a secret key's, or what a restricted key names (shared/http/permission.ts checks them) */
  keyGrants?: Grants;
  /** the CIDRs an API key may be used from (absent: anywhere) */
  allowedIps?: readonly string[];
}

/** A sign-in session as such, with or without a merchant: what sign-out and an invitation's accept act on. */
export interface SessionHolder {
  tokenHash: string;
  userId: string;
  email: string;
  /** null: the session acts for no merchant yet */
  merchantId: string | null;
  /** the `created_at` of the membership it acts through (null with no merchant) */
  memberSince: string | null;
  /** a cookie session's CSRF token (null for a Bearer session's) */
  csrfToken: string | null;
  expiresMs: number;
}

/**
 * A request that came with the session cookie and is not a GET or HEAD: it must carry its session's CSRF token
 * (`sent`: the `X-CSRF-Token` header), checked as soon as the session is read, before anything else.
 */
export interface CsrfProof {
  sent: string | undefined;
}

const LAST_USED_EVERY_MS = 60_000;

/**
 * Resolves a bearer credential (API key or sign-in session token) to the merchant, or throws 401. `livemodeHeader` is
 * the request's `Livemode` header: `true` makes a session act in live mode; an API key's mode is its own, so a header
 * that contradicts it is a 400 rather than silently ignored. `csrf`: the session cookie's write (see CsrfProof).
 */
export async function authenticate(credential: string | undefined, livemodeHeader?: string, csrf?: CsrfProof): Promise<Merchant> {
  const livemodeAsked = () => (livemodeHeader === undefined ? undefined : parseLivemode(livemodeHeader));
  // a cookie's write without its CSRF token is refused before its Livemode header is even read
  const asked = csrf ? undefined : livemodeAsked();
  if (!credential) throw new Unauthorized();
  const prefixes = Object.values(KEY_PREFIX).flatMap((byMode) => Object.values(byMode));
  if (prefixes.some((prefix) => credential.startsWith(prefix))) {
    const hash = sha256(credential);
    // everything the permission step needs is on this one item: a key's request reads nothing else
    const key = await apiKeys.getApiKeyByHash(hash);
    if (!key || key.status === 'revoked') throw new Unauthorized();
    if (key.valid_until !== null && key.valid_until <= new Date(clock.now()).toISOString())
      throw new Unauthorized('invalid_api_key', `this key expired on ${key.valid_until}`);
    const cutoff = new Date(clock.now() - LAST_USED_EVERY_MS).toISOString();
    if (!key.last_used || key.last_used < cutoff) await apiKeys.touchApiKey(hash, key, isoNow(), cutoff);
    const livemode = key.mode === 'live';
    if (asked !== undefined && asked !== livemode) {
      throw new BadRequest(
        'parameter_invalid',
        'Livemode',
        `an ${KEY_PREFIX[key.key_type][key.mode]} key acts in ${key.mode} mode; drop the Livemode header`,
      );
    }
    return {
      id: key.merchant_id,
      credential: key.key_type === 'publishable' ? 'publishable' : 'api_key',
      apiKeyId: key.key_id,
      livemode,
      keyLast4: key.last4,
      ...(key.key_type === 'secret' && { keyGrants: SECRET_KEY_GRANTS }),
      ...(key.key_type === 'restricted' && { keyGrants: key.permissions ?? {} }),
      ...(key.allowed_ips && { allowedIps: key.allowed_ips }),
    };
  }
  if (credential.startsWith(SESSION_PREFIX)) {
    const session = await authenticateSession(credential, csrf);
    const mode = csrf ? livemodeAsked() : asked;
    if (session.merchantId === null) throw new PermissionDenied(NO_MERCHANT_YET);
    // The membership is read with every request, so a role change counts from the next one and a removal stops the
    // session at once; `member_since` tells a membership made again after a removal from the one the session joined.
    const member = await team.getMembership(session.merchantId, session.userId);
    if (!member || member.created_at !== session.memberSince) throw new Unauthorized();
    return {
      id: session.merchantId,
      credential: 'session',
      livemode: mode ?? false,
      user: { id: member.user_id, email: member.email, role: member.role },
    };
  }
  throw new Unauthorized();
}

const NO_MERCHANT_YET = 'this session acts for no merchant yet: accept an invitation (POST /api/team/invitations/{id}/accept) or sign out';

/**
 * A live sign-in session (whichever merchant it acts for, if any), or 401; an API key here is 401 too. With `csrf`
 * (a cookie's write), a token other than the session's is 403 `csrf_token_invalid`.
 */
export async function authenticateSession(credential: string | undefined, csrf?: CsrfProof): Promise<SessionHolder> {
  if (!credential?.startsWith(SESSION_PREFIX))
    throw new Unauthorized('invalid_api_key', 'this endpoint takes a session token from sign-in, not an API key');
  const tokenHash = sha256(credential);
  const session = await sessions.getSession(tokenHash);
  if (!session || session.expires_ms <= clock.now()) throw new Unauthorized();
  const csrfToken = session.csrf_sealed === null ? null : openCsrf(session.csrf_sealed, credential);
  if (csrf && !csrfMatches(csrf.sent, csrfToken)) throw new PermissionDenied(CSRF_REFUSED, 'csrf_token_invalid');
  return {
    tokenHash,
    userId: session.user_id,
    email: session.email,
    merchantId: session.merchant_id,
    memberSince: session.member_since,
    csrfToken,
    expiresMs: session.expires_ms,
  };
}

const CSRF_REFUSED = 'a request with the session cookie that changes something carries the X-CSRF-Token header sign-in gave';

function parseLivemode(value: string): boolean {
  const normalized = value.trim().toLowerCase();
  if (normalized === 'true' || normalized === 'false') return normalized === 'true';
  throw new BadRequest('parameter_invalid', 'Livemode', `the Livemode header is true or false, not ${JSON.stringify(value.slice(0, 20))}`);
}

/** Whose data the request reads and writes: the merchant in the mode it acts in (keys.ts `Owner`). */
export const ownerOf = (merchant: Pick<Merchant, 'id' | 'livemode'>): Owner => ({ merchant_id: merchant.id, livemode: merchant.livemode });
