import type { AuditActor, AuditRequest } from '../model/audit.ts';
import { BadRequest } from '../model/errors.ts';
import * as auditLog from '../store/audit-log.ts';
import type { AuditFilters, AuditRecord } from '../store/audit-log.ts';
import * as team from '../store/team.ts';
import type { Role } from '../model/permissions.ts';
import type { Page, PageQuery } from '../store/pagination.ts';
import { type Merchant, ownerOf } from './auth.ts';

export type AuditEntryView = Omit<AuditRecord, 'object_id'> & { object: 'audit_entry'; object_id: string | null };

const view = (record: AuditRecord): AuditEntryView => ({
  id: record.id,
  object: 'audit_entry',
  action: record.action,
  actor: record.actor,
  object_id: record.object_id,
  request_id: record.request_id,
  ip: record.ip,
  user_agent: record.user_agent,
  livemode: record.livemode,
  created_at: record.created_at,
  changes: record.changes,
});

/** Who a request's entry names: a session's member (their id, e-mail and role), or the API key (its id and last four characters). */
export function actorOf(merchant: Merchant): AuditActor {
  if (merchant.user) return { type: 'user', id: merchant.user.id, email: merchant.user.email, role: merchant.user.role };
  return { type: 'api_key', id: merchant.apiKeyId ?? merchant.id, ...(merchant.keyLast4 ? { key_last4: merchant.keyLast4 } : {}) };
}

/** A page of the log of the mode the request acts in, newest first, filtered. */
export async function listAuditLog(merchant: Merchant, filters: AuditFilters, page: PageQuery): Promise<Page<AuditEntryView> & { object: 'list' }> {
  checkRange(filters);
  const result = await auditLog.auditPage(ownerOf(merchant), filters, page);
  return { object: 'list', data: result.data.map(view), has_more: result.has_more };
}

/** The export's content type: JSON Lines (one JSON object per line, `\n` between), as NDJSON tools name it. */
export const AUDIT_EXPORT_TYPE = 'application/x-ndjson';

/** Entries one export answers at most (about 5 MB of JSON Lines): a longer range is asked for in parts. */
export const EXPORT_MAX_ENTRIES = 10_000;

/** The log in a time range as JSON Lines: one entry per line, newest first, as the list shows them. */
export async function exportAuditLog(merchant: Merchant, range: Pick<AuditFilters, 'created_after' | 'created_before'>): Promise<string> {
  checkRange(range);
  const records = await auditLog.auditEntries(ownerOf(merchant), range, EXPORT_MAX_ENTRIES);
  if (!records) {
    throw new BadRequest(
      'parameter_invalid',
      'created_after',
      `an export holds at most ${EXPORT_MAX_ENTRIES} entries; narrow the range with created_after and created_before`,
    );
  }
  return records.map((record) => `${JSON.stringify(view(record))}\n`).join('');
}

function checkRange(range: Pick<AuditFilters, 'created_after' | 'created_before'>): void {
  if (range.created_after && range.created_before && range.created_after > range.created_before)
    throw new BadRequest('parameter_invalid', 'created_before', 'created_before must not be earlier than created_after');
}

/**
 * A sign-in (`auth.sign_in`) or a failed one (`auth.sign_in_failed`), in the live log of a merchant the e-mail is a
 * member of: a sign-in is the account's, not a mode's.
 */
export async function recordSignIn(
  outcome: 'sign_in' | 'sign_in_failed',
  who: { merchant_id: string; user_id: string; email: string; role: Role },
  request: Pick<AuditRequest, 'request_id' | 'ip' | 'user_agent'>,
): Promise<void> {
  await auditLog.recordAuditEntry({
    owner: { merchant_id: who.merchant_id, livemode: true },
    action: `auth.${outcome}`,
    actor: { type: 'user', id: who.user_id, email: who.email, role: who.role },
    ...request,
  });
}

/** A wrong sign-in code for an e-mail: kept by every merchant the e-mail is a member of (none for an unknown e-mail). */
export async function recordFailedSignIn(email: string, request: Pick<AuditRequest, 'request_id' | 'ip' | 'user_agent'>): Promise<void> {
  const { memberships } = await team.readEmail(email);
  for (const m of memberships) await recordSignIn('sign_in_failed', { merchant_id: m.merchant_id, user_id: m.user_id, email, role: m.role }, request);
}
