import * as v from 'valibot';
import { encodeTime } from 'ulid';
import type { AuditRequest } from '../model/audit.ts';
import { PREFIXES } from '../model/ids.ts';
import { ROLES } from '../model/permissions.ts';
import type { Owner } from '../model/targets.ts';
import { auditEntryOf, type FieldChange } from './audit-entries.ts';
import { commit } from './commit.ts';
import { equalityFilter } from './expressions.ts';
import { recordReader, Text } from './item-schemas.ts';
import { auditKeys } from './keys.ts';
import { type Item, type ListSpec, listPage, type Page, type PageQuery } from './pagination.ts';

const AuditItem = v.object({
  id: Text,
  livemode: v.boolean(),
  action: Text,
  actor: v.object({
    type: v.picklist(['user', 'api_key']),
    id: Text,
    email: v.optional(Text),
    role: v.optional(v.picklist(ROLES)),
    key_last4: v.optional(Text),
  }),
  object_id: v.nullable(Text),
  request_id: Text,
  ip: Text,
  user_agent: v.nullable(v.string()),
  created_at: Text,
  changes: v.record(v.string(), v.object({ from: v.optional(v.unknown()), to: v.unknown() })),
});
export type AuditRecord = v.InferOutput<typeof AuditItem> & { changes: Record<string, FieldChange> };
const auditRecordOf: (item: Record<string, unknown>) => AuditRecord = recordReader('audit entry', AuditItem);

export interface AuditFilters {
  actor_id?: string;
  action?: string;
  object_id?: string;
  /** ISO times: from `created_after` (inclusive) to `created_before` (exclusive) */
  created_after?: string;
  created_before?: string;
}

/** The smallest entry id of a millisecond: entries of that millisecond sort at or after it, earlier ones before. */
const firstIdAt = (iso: string) => `${PREFIXES.auditEntry}_${encodeTime(Date.parse(iso), 10).toLowerCase()}${'0'.repeat(16)}`;

/**
 * The read of the log a filter needs: the object's, the actor's or the action's own partition (each an index), else
 * the owner's whole log; the time range is a range of entry ids (ULIDs) in any of them, and a second filter is a
 * filter on the first one's partition.
 */
function auditList(owner: Owner, filters: AuditFilters): ListSpec {
  const sortKey = (name: string) => ({
    name,
    ...(filters.created_after ? { from: firstIdAt(filters.created_after) } : {}),
    ...(filters.created_before ? { below: firstIdAt(filters.created_before) } : {}),
  });
  const rest = (used: keyof AuditFilters) =>
    equalityFilter({
      actor_id: used === 'actor_id' ? undefined : filters.actor_id,
      action: used === 'action' ? undefined : filters.action,
      object_id: used === 'object_id' ? undefined : filters.object_id,
    });
  const index = (name: 'gsi1' | 'gsi2' | 'gsi3', partition: string, used: keyof AuditFilters): ListSpec => ({
    index: name,
    partition: { name: `${name}pk`, value: partition },
    sortKey: sortKey(`${name}sk`),
    cursorKey: (id) => ({ ...auditKeys.item(owner, id), [`${name}pk`]: partition, [`${name}sk`]: id }),
    filter: rest(used),
  });
  if (filters.object_id) return index('gsi2', auditKeys.byObject(owner, filters.object_id), 'object_id');
  if (filters.actor_id) return index('gsi1', auditKeys.byActor(owner, filters.actor_id), 'actor_id');
  if (filters.action) return index('gsi3', auditKeys.byAction(owner, filters.action), 'action');
  return { partition: { name: 'pk', value: auditKeys.partition(owner) }, sortKey: sortKey('sk'), cursorKey: (id) => auditKeys.item(owner, id) };
}

/** A page of the owner's log, newest first. */
export async function auditPage(owner: Owner, filters: AuditFilters, page: PageQuery): Promise<Page<AuditRecord>> {
  const result = await listPage(auditList(owner, filters), page);
  return { data: result.data.map(auditRecordOf), has_more: result.has_more };
}

/**
 * The owner's entries in a time range, newest first, at most `max` (the export): read a page at a time; undefined
 * when there are more than `max`.
 */
export async function auditEntries(owner: Owner, range: Pick<AuditFilters, 'created_after' | 'created_before'>, max: number) {
  const spec = auditList(owner, range);
  const records: AuditRecord[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await listPage(spec, { limit: 100, ...(after ? { starting_after: after } : {}) });
    records.push(...page.data.map((item: Item) => auditRecordOf(item)));
    if (records.length > max) return undefined;
    if (!page.has_more) return records;
    after = records.at(-1)!.id;
  }
}

/**
 * Writes an entry that records no change of its own (a sign-in, a failed sign-in) as a change by itself; `changes`
 * as shown.
 */
export async function recordAuditEntry(request: AuditRequest): Promise<void> {
  const { target, item } = auditEntryOf(request, []);
  await commit({ writes: [{ create: target, item }] });
}
