import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { encodeTime } from 'ulid';
import * as v from 'valibot';
import type { DomainEvent } from '../model/events.ts';
import { EXCEPTION_KINDS, type ExceptionKind } from '../model/reconciliation.ts';
import type { Transition } from '../model/state-machines.ts';
import { db, TABLE } from './client.ts';
import { commit } from './commit.ts';
import type { Target } from '../model/targets.ts';
import { equalityFilter } from './expressions.ts';
import { Int, nullable, picklistOf, recordReader, Text } from './item-schemas.ts';
import { ownedBy, RECONCILE_SHARDS, reconciliationKeys, refundKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { refundOf, type StoredRefund } from './payments.ts';
import { acrossShards, listPage, merchantList, type Page, type PageQuery, queryAll } from './pagination.ts';

const ExceptionItem = v.object({
  id: Text,
  merchant_id: Text,
  livemode: v.boolean(),
  kind: picklistOf<ExceptionKind>()(EXCEPTION_KINDS),
  connector_id: Text,
  provider_payout_id: Text,
  settlement_id: Text,
  source: nullable(Text),
  payment_id: nullable(Text),
  refund_id: nullable(Text),
  dispute_id: nullable(Text),
  expected: nullable(v.union([Int, Text])),
  actual: nullable(v.union([Int, Text])),
  status: picklistOf<'open' | 'resolved'>()(['open', 'resolved']),
  resolution: nullable(Text),
  note: nullable(Text),
  resolved_by: nullable(Text),
  resolved_at: nullable(Text),
  created_at: Text,
});
export type ExceptionRecord = v.InferOutput<typeof ExceptionItem>;
const exceptionOf = recordReader('reconciliation exception', ExceptionItem);

export const exceptionTarget = (e: Pick<ExceptionRecord, 'id' | 'merchant_id' | 'livemode'>): Target => ({
  entity: 'reconciliation_exception',
  id: e.id,
  owner: { merchant_id: e.merchant_id, livemode: e.livemode },
});

/** Writes the exception with its event, once: false when a run before wrote it (its id is derived from what it is). */
export async function putException(exception: ExceptionRecord, event: DomainEvent): Promise<boolean> {
  return (await commit({ writes: [{ create: exceptionTarget(exception), item: { ...exception } }], events: [event] })) === 'committed';
}

/** The owner's exception; one of another merchant or mode is none. */
export async function getException(owner: Owner, id: string): Promise<ExceptionRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: reconciliationKeys.item(id), ConsistentRead: true }));
  const exception = out.Item && exceptionOf(out.Item);
  return ownedBy(exception, owner) ? exception : undefined;
}

/** `resolve` (RECONCILIATION_EXCEPTION) with who did it and why, once. */
export async function resolveException(exception: ExceptionRecord, resolve: Transition, fields: Partial<ExceptionRecord>): Promise<boolean> {
  return (await commit({ writes: [{ update: exceptionTarget(exception), transition: resolve, set: fields }] })) === 'committed';
}

export interface ExceptionFilters {
  kind?: string;
  connector_id?: string;
  status?: string;
}

/** A page of the owner's exceptions, newest first, filtered. */
export async function exceptionPage(owner: Owner, filters: ExceptionFilters, page: PageQuery): Promise<Page<ExceptionRecord>> {
  const result = await listPage(merchantList(reconciliationKeys, owner, equalityFilter({ ...filters })), page);
  return { data: result.data.map(exceptionOf), has_more: result.has_more };
}

/**
 * Where a connector account's last run got to: the provider's cursor (ProviderPayouts), and per currency the end of
 * the newest line it read (the next payout's window starts there).
 */
export interface LastRun {
  cursor: string | null;
  cutoffs: Record<string, string>;
  /** per currency, the payments the last payout paid that were captured in its window's last second or after */
  carried: Record<string, string[]>;
}

export async function readLastRun(owner: Owner, connectorId: string): Promise<LastRun | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: reconciliationKeys.lastRun(owner, connectorId), ConsistentRead: true }));
  if (!out.Item) return undefined;
  const { cursor, cutoffs, carried } = out.Item as Partial<LastRun>;
  return { cursor: cursor ?? null, cutoffs: cutoffs ?? {}, carried: carried ?? {} };
}

/**
 * Records how far a run got, on the condition that no other run moved it since `read` (what this run started from);
 * a run refused so is not lost: what it made is what the other run found made.
 */
export async function saveLastRun(owner: Owner, connectorId: string, read: LastRun | undefined, run: LastRun): Promise<void> {
  const target: Target = { entity: 'reconciliation_run', owner, connectorId };
  const fields = { cursor: run.cursor, cutoffs: run.cutoffs, carried: run.carried };
  // refused: another run saved first (what this one made is what that one found made)
  await commit({ writes: [read ? { update: target, expect: { cursor: read.cursor }, set: fields } : { create: target, item: fields }] });
}

/** The owner's refunds made between two times (epoch ms): refund ids are ULIDs, so the range is a key range of its list. */
export async function refundsMadeBetween(owner: Owner, fromMs: number, toMs: number): Promise<StoredRefund[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': refundKeys.listPartition(owner),
      ':from': `ref_${encodeTime(fromMs, 10).toLowerCase()}`,
      ':to': `ref_${encodeTime(toMs, 10).toLowerCase()}~`,
    },
  });
  return items.map(refundOf);
}

/** Every connector account of every merchant (the daily job reconciles those whose provider has payouts to read). */
export async function reconcilableAccounts(): Promise<Array<{ id: string; owner: Owner; status: string }>> {
  return acrossShards(RECONCILE_SHARDS, async (shard) =>
    (
      await queryAll({
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': reconciliationKeys.accountPartition(shard) },
      })
    ).map((item) => ({
      id: String(item.id),
      owner: { merchant_id: String(item.merchant_id), livemode: item.mode === 'live' },
      status: String(item.status),
    })),
  );
}
