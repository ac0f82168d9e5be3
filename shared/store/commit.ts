import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { takeAudit } from '../model/audit.ts';
import type { DomainEvent } from '../model/events.ts';
import type { Operation, Owner, Target } from '../model/targets.ts';
import type { Transition } from '../model/state-machines.ts';
import { db, isConditionFailure, sendConditional, TABLE, type TransactItem } from './client.ts';
import { auditEntryOf, type WrittenFields } from './audit-entries.ts';
import { eventPut } from './events.ts';
import { storedEntries, storedFields } from './stored-form.ts';
import { counterShards, writeShards } from './write-shards.ts';
import {
  disputeKeys,
  inboundKeys,
  invoiceKeys,
  paymentLinkKeys,
  type Key,
  LEASE_SHARDS,
  leaseKeys,
  apiKeyKeys,
  auditKeys,
  connectorKeys,
  customerKeys,
  invitationKeys,
  memberKeys,
  merchantKeys,
  sessionKeys,
  userKeys,
  paymentKeys,
  paymentMethodKeys,
  reconciliationKeys,
  refundKeys,
  routingCopyKeys,
  routingRuleKeys,
  settingsKeys,
  settlementKeys,
  shardOf,
  subscriptionKeys,
  testClockKeys,
  webhookKeys,
} from './keys.ts';

/**
 * The one place a change becomes a DynamoDB transaction. A use case says WHAT changes (an entity's transition and
 * fields, new items, the events, the ledger's counter cells, an external operation begun or finished); `commit`
 * alone says HOW: keys, condition and update expressions, the event items, and what a failed condition means.
 */

/**
 * What `commit` answers when a write's condition is the one that failed (the item exists, is in another state, is missing):
 * the caller branches on the value. A write without one answers `refused`.
 */
interface Refusable<R extends string> {
  refusal?: R;
}

/** Puts a new item: refused when one is stored under its key. */
export interface Create<R extends string = never> extends Refusable<R> {
  create: Target;
  item: Record<string, unknown>;
  operation?: Operation;
}

/** Changes an existing item (refused when it is missing), under the conditions given. */
export interface Update<R extends string = never> extends Refusable<R> {
  update: Target;
  /** the item is created by this change when it is missing (a merchant's settings), instead of refused */
  upsert?: true;
  /** the item must be in one of `transition.from`; its status becomes `transition.to` */
  transition?: Transition;
  /** the item must be in one of these states (and stays in it) */
  inStates?: readonly string[];
  /** fields that must still hold these values */
  expect?: Record<string, unknown>;
  /** fields the item must not have (e.g. a mark that it was deleted) */
  absent?: readonly string[];
  /** fields that must not exceed these values (numbers, or ISO times) */
  atMost?: Record<string, number | string>;
  /** fields that must be absent, null or less than these values (a count under its cap, a time not reached) */
  below?: Record<string, number | string>;
  /** fields that must be absent, null or more than these values (an expiry not yet passed) */
  above?: Record<string, number | string>;
  set?: Record<string, unknown>;
  /** fields set only where the item has none (a value set first stays) */
  setIfAbsent?: Record<string, unknown>;
  add?: Record<string, number>;
  /** entries appended to list fields (a `history`) */
  append?: Record<string, readonly unknown[]>;
  /** fields removed (e.g. an index key the item leaves) */
  unset?: readonly string[];
  operation?: OperationStep;
}

/**
 * `begin`: no operation holds the item (one whose lease ended must be finished first, never overwritten: its
 * provider call may have taken effect); `finish`: this one holds it
 * (and is removed); `replace`: this one holds it and gives way to the next (a failover's attempt); `takeOver`: this
 * one holds it and its lease ended, so its lease is renewed for whoever takes it over; `idle`: no live operation
 * holds the item at that instant (an update that must not overtake an external call in flight, e.g. mark-paid during
 * a send), and none is written.
 */
export type OperationStep =
  | { begin: Operation }
  | { finish: string }
  | { replace: string; with: Operation }
  | { takeOver: string; now: number; leaseUntil: number }
  | { idle: number };

/**
 * Deletes an item: one that an operation held and that turned out to have changed nothing (`operation`: the
 * operation must hold it), or one that goes for good (it must exist).
 */
export interface Remove<R extends string = never> extends Refusable<R> {
  remove: Target;
  operation?: string;
  /** the item must (still) be in one of these states */
  inStates?: readonly string[];
  /** fields that must still hold these values (a member removed as the role it was read with; a customer in its owner's mode) */
  expect?: Record<string, unknown>;
}

export type Write<R extends string = never> = Create<R> | Update<R> | Remove<R>;

export interface Change<R extends string = never> {
  writes: readonly Write<R>[];
  events?: readonly DomainEvent[];
  /** counter cells (ledger, analytics) built by the store's ledger */
  counters?: readonly TransactItem[];
  /**
   * What `commit` answers when DynamoDB cancelled the transaction with no condition failing (other transactions
   * kept writing its items past the client's retries, hot counter cells say): for a caller that reads again and
   * retries. Without it, that cancellation is thrown.
   */
  cancelled?: R;
}

/**
 * `committed`; otherwise nothing was written: the `refusal` of the write whose condition failed (`refused` when it
 * has none, or when a condition of an event failed), or the change's `cancelled`.
 */
export type CommitResult<R extends string = never> = 'committed' | 'refused' | R;

export async function commit<R extends string = never>(change: Change<R>): Promise<CommitResult<R>> {
  const shards = await listShardsFor(change);
  if (change.counters?.length) await counterShards.forWrite();
  const audit = auditOf(change, shards);
  const [only] = change.writes;
  if (!audit && change.writes.length === 1 && !change.events?.length && !change.counters?.length && !('remove' in only!))
    return commitOne(only!, shards);
  try {
    await db.send(new TransactWriteCommand({ TransactItems: withAudit(transactItemsOf(change, shards), audit) }));
    return 'committed';
  } catch (e) {
    audit?.release();
    if (isConditionFailure(e)) return refusalOf(change, e);
    if (change.cancelled !== undefined && e instanceof Error && e.name === 'TransactionCanceledException') return change.cancelled;
    throw e;
  }
}

/** DynamoDB's most items in one transaction. */
const TRANSACTION_ITEMS = 100;

/**
 * The audit entry of the request this commit runs in, when the request is audited and no commit of it has carried
 * its entry yet (docs/api.md "Audit log"): a Put of its own in the change's transaction, so the entry is written
 * exactly when the change is. `release` hands it back to the request's next commit when this one writes nothing.
 */
function auditOf(change: Change<string>, shards: number): { put: TransactItem; release: () => void } | undefined {
  const pending = takeAudit();
  if (!pending) return undefined;
  const { target, item } = auditEntryOf(pending.request, change.writes.map(writtenFieldsOf));
  return { put: createItem({ create: target, item }, shards), release: pending.release };
}

/** The change's items with its audit entry last (so a refusal's index still names the change's own write). */
function withAudit(items: TransactItem[], audit: { put: TransactItem; release: () => void } | undefined): TransactItem[] {
  if (!audit) return items;
  if (items.length >= TRANSACTION_ITEMS) {
    audit.release();
    throw new Error(`A change of ${items.length} items leaves no room in its transaction for its audit entry`);
  }
  return [...items, audit.put];
}

const writtenFieldsOf = (write: Write<string>): WrittenFields =>
  'create' in write
    ? { target: write.create, item: write.item }
    : 'remove' in write
      ? { target: write.remove, removed: true }
      : {
          target: write.update,
          set: write.set,
          setIfAbsent: write.setIfAbsent,
          unset: write.unset,
          expect: write.expect,
          transition: write.transition,
        };

/**
 * The refusal of the first write whose condition failed, by the transaction's cancellation reasons (one per item, in
 * order; `offset`: items sent before the change's own).
 */
function refusalOf<R extends string>(change: Change<R>, e: unknown, offset = 0): CommitResult<R> {
  const reasons = (e as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
  const failed = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed') - offset;
  return (failed >= 0 && change.writes[failed]?.refusal) || 'refused';
}

/**
 * The payments list's shards (listKeysOf), when a write may list a payment: only then is the table's record of them
 * raised first (a change of other items, such as a GET's touch of its API key, writes nothing else).
 */
const listShardsFor = async (change: Change<string>): Promise<number> =>
  change.writes.some((write) => targetOf(write).entity === 'payment') ? writeShards.forWrite() : writeShards.configured;

const targetOf = (write: Write<string>): Target => ('create' in write ? write.create : 'remove' in write ? write.remove : write.update);

/** The items of the transaction a change becomes (pure); `shards`: the payments list's (listKeysOf). */
export function transactItemsOf(change: Change<string>, shards: number): TransactItem[] {
  return [
    ...change.writes.map((write) =>
      'create' in write ? createItem(write, shards) : 'remove' in write ? removeItem(write) : updateItem(write, shards),
    ),
    ...(change.events ?? []).map(eventPut),
    ...(change.counters ?? []),
  ];
}

/** Racing commits of a sequence back off with full jitter (doubling from the base up to the cap), for at most the attempts. */
const BACKOFF_BASE_MS = 10;
const BACKOFF_CAP_MS = 500;
/**
 * Counted in attempts, not time: on a slow or loaded store each attempt takes longer, and that alone must not fail a
 * create. 200 is far past what 50 creates racing for one sequence use; the function's timeout bounds the wait.
 */
const NUMBER_RACE_ATTEMPTS = 200;

/**
 * Commits the change `build` makes for the next number of a gapless sequence (`counter` holds the last number given,
 * in `n`), with the counter advanced from the number read to the next in the same transaction: numbers are
 * consecutive and a refused change uses none. A commit that lost the number (the counter advanced, or another
 * transaction held it) waits a jittered while, reads the counter again and builds again. Otherwise refused: another
 * condition of the change failed (its write's `refusal`, as `commit` answers).
 */
export async function commitNumbered<R extends string = never>(counter: Target, build: (n: number) => Change<R>): Promise<CommitResult<R>> {
  const shards = await writeShards.forWrite();
  for (let attempt = 1; ; attempt++) {
    const read = await db.send(new GetCommand({ TableName: TABLE, Key: keyOf(counter), ConsistentRead: true }));
    const current = Number(read.Item?.n ?? 0);
    const change = build(current + 1);
    if (change.counters?.length) await counterShards.forWrite();
    const audit = auditOf(change, shards);
    try {
      await db.send(
        new TransactWriteCommand({ TransactItems: withAudit([numberItem(counter, current), ...transactItemsOf(change, shards)], audit) }),
      );
      return 'committed';
    } catch (e) {
      audit?.release();
      if (!lostNumberRace(e)) {
        if (isConditionFailure(e)) return refusalOf(change, e, 1);
        throw e;
      }
      if (attempt >= NUMBER_RACE_ATTEMPTS) throw e;
      // wait first, then read afresh: a value learned before the wait would be stale after it
      await sleep(Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt));
    }
  }
}

/** The counter advances from `current` (absent: 0) to the next number, only if nobody advanced it meanwhile. */
function numberItem(counter: Target, current: number): TransactItem {
  return {
    Update: {
      TableName: TABLE,
      Key: keyOf(counter),
      UpdateExpression: 'SET n = :next, #type = :type',
      ConditionExpression: current === 0 ? 'attribute_not_exists(n)' : 'n = :current',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':next': current + 1, ':type': counter.entity, ...(current === 0 ? {} : { ':current': current }) },
    },
  };
}

/**
 * Lost the race for the number (numberItem comes first): its condition failed or another transaction held it at the
 * same moment, and nothing else failed.
 */
function lostNumberRace(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (e.name === 'TransactionConflictException') return true;
  if (e.name !== 'TransactionCanceledException') return false;
  const reasons = (e as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
  if (!reasons) return /ConditionalCheckFailed|TransactionConflict/.test(e.message);
  const [counter, ...others] = reasons;
  const counterLost = counter?.Code === 'ConditionalCheckFailed' || counter?.Code === 'TransactionConflict';
  return (
    (counterLost || others.some((r) => r.Code === 'TransactionConflict')) &&
    others.every((r) => !r.Code || r.Code === 'None' || r.Code === 'TransactionConflict')
  );
}

/**
 * One item changed alone needs no transaction, which would bill it twice: the same put or update, with the same
 * conditions, sent by itself. The SDK resends a request whose answer was lost; a transaction's token makes that safe,
 * here the `change` mark the write leaves on the item does (8 random bytes): a refused condition on an item that
 * already carries this write's mark was this very write, answered late.
 */
async function commitOne<R extends string>(write: Create<R> | Update<R>, shards: number): Promise<CommitResult<R>> {
  const mark = randomBytes(8).toString('base64url');
  const command =
    'create' in write
      ? new PutCommand({ ...createItem(write, shards, mark).Put!, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })
      : new UpdateCommand({ ...updateItem(write, shards, mark).Update!, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
  const result = await sendConditional(command);
  if (result.written) return 'committed';
  return (result.old?.change as { S?: string } | undefined)?.S === mark ? 'committed' : (write.refusal ?? 'refused');
}

export function keyOf(target: Target): Key {
  switch (target.entity) {
    case 'payment':
      return paymentKeys.item(target.id);
    case 'refund':
      return paymentKeys.refund(target.paymentId, target.id);
    case 'invoice':
      return invoiceKeys.item(target.id);
    case 'subscription':
      return subscriptionKeys.item(target.id);
    case 'subscription_period':
      return subscriptionKeys.period(target.subscriptionId, target.periodStart);
    case 'dispute':
      return disputeKeys.item(target.paymentId, target.providerReference);
    case 'payment_reference':
      return inboundKeys.paymentByReference(target.connectorId, target.reference);
    case 'inbound':
      return inboundKeys.seen(target.connectorId, target.eventId);
    case 'settlement':
      return settlementKeys.item(target.id);
    case 'settlement_day':
      return settlementKeys.daily(target.owner, target.day, target.currency);
    case 'test_clock':
      return testClockKeys.item(target.id);
    case 'webhook':
      return webhookKeys.item(target.owner, target.id);
    case 'payment_method':
      return paymentMethodKeys.item(target.id);
    case 'invoice_counter':
      return invoiceKeys.numberCounter(target.owner);
    case 'reconciliation_exception':
      return reconciliationKeys.item(target.id);
    case 'reconciliation_run':
      return reconciliationKeys.lastRun(target.owner, target.connectorId);
    case 'payment_method_card':
      return paymentMethodKeys.customerCard(target.customerId, target.fingerprint);
    case 'customer':
      return customerKeys.item(target.id);
    case 'merchant':
      return merchantKeys.profile(target.id);
    case 'merchant_email':
      return merchantKeys.byEmail(target.email);
    case 'connector':
      return copyOr(target, connectorKeys.item(target.owner, target.id));
    case 'routing_rule':
      return copyOr(target, routingRuleKeys.item(target.owner, target.id));
    case 'api_key':
      return apiKeyKeys.item(target.merchantId, target.id);
    case 'api_key_hash':
      return apiKeyKeys.byHash(target.keyHash, target.copy);
    case 'user':
      return userKeys.byEmail(target.email);
    case 'membership':
      return memberKeys.item(target.merchantId, target.userId);
    case 'membership_copy':
      return userKeys.membershipCopy(target.email, target.merchantId);
    case 'invitation':
      return invitationKeys.item(target.merchantId, target.id);
    case 'invitation_copy':
      return userKeys.invitationCopy(target.email, target.id);
    case 'session':
      return sessionKeys.byTokenHash(target.tokenHash);
    case 'settings':
      return settingsKeys.item(target.owner);
    case 'payment_link':
      return paymentLinkKeys.item(target.id);
    case 'payment_link_place':
      return paymentLinkKeys.place(target.linkId, target.paymentId);
    case 'audit_entry':
      return auditKeys.item(target.owner, target.id);
  }
}

/** The item's key, or its routing copy's (the same sort key in the copy's partition). */
const copyOr = (target: { owner: Owner; copy?: number }, key: Key): Key =>
  target.copy === undefined ? key : routingCopyKeys.of(target.owner, target.copy, key.sk);

/** The field that holds the item's state (what `transition` and `inStates` test and set). */
const stateFieldOf = (target: Target): string => (target.entity === 'subscription_period' ? 'state' : 'status');

/** List keys an item carries once it is visible (a processing payment is not listed); `shards`: the payments list's. */
function listKeysOf(target: Target, status: unknown, shards: number): Record<string, string> {
  if (target.entity === 'payment' && status !== 'processing') return paymentKeys.list(target.owner, target.id, shards);
  if (target.entity === 'invoice') return invoiceKeys.list(target.owner, target.id);
  if (target.entity === 'payment_link') return paymentLinkKeys.list(target.owner, target.id);
  if (target.entity === 'subscription') return subscriptionKeys.list(target.owner, target.id);
  if (target.entity === 'refund') return refundKeys.list(target.owner, target.id);
  if (target.entity === 'dispute') return disputeKeys.list(target.owner, target.id);
  if (target.entity === 'settlement') return settlementKeys.list(target.owner, target.id);
  if (target.entity === 'reconciliation_exception') return reconciliationKeys.list(target.owner, target.id);
  if (target.entity === 'test_clock' && target.owner) return testClockKeys.list(target.owner, target.id);
  if (target.entity === 'audit_entry') return auditKeys.indexes(target.owner, target);
  // found by its id alone (an inbound webhook), and listed for the daily reconciliation; a routing copy is in no index
  if (target.entity === 'connector' && target.copy === undefined)
    return { ...connectorKeys.byId(target.id), ...reconciliationKeys.account(target.id) };
  return {};
}

/** List keys a transition writes: only payments become listed by one (once no longer processing). */
const listKeysOnTransition = (target: Target, status: unknown, shards: number): Record<string, string> =>
  target.entity === 'payment' ? listKeysOf(target, status, shards) : {};

function leaseIndex(key: Key, leaseUntil: number) {
  return leaseKeys.entry(shardOf(key.pk, LEASE_SHARDS), new Date(leaseUntil).toISOString(), key);
}

/** `shards`: the payments list's (listKeysOf); `mark`: the `change` mark of a write sent alone (commitOne). */
function createItem({ create, item, operation }: Create<string>, shards: number, mark?: string): TransactItem {
  const key = keyOf(create);
  return {
    Put: {
      TableName: TABLE,
      Item: {
        ...storedFields(create.entity, item).set,
        ...key,
        ...listKeysOf(create, item.status, shards),
        type: create.entity,
        ...(operation ? { op: operation, ...leaseIndex(key, operation.lease_until) } : {}),
        ...(mark ? { change: mark } : {}),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

function updateItem(write: Update<string>, shards: number, mark?: string): TransactItem {
  const key = keyOf(write.update);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  let n = 0;
  const name = (field: string) => ((names[`#n${n}`] = field), `#n${n++}`);
  const value = (v: unknown) => ((values[`:v${n}`] = v), `:v${n++}`);

  const conditions = write.upsert ? [] : ['attribute_exists(pk)'];
  const sets: string[] = [];
  const adds: string[] = [];
  const removes: string[] = [];
  const stateField = stateFieldOf(write.update);
  if (write.transition) {
    const status = name(stateField);
    conditions.push(`${status} IN (${write.transition.from.map(value).join(', ')})`);
    sets.push(`${status} = ${value(write.transition.to)}`);
    for (const [field, v] of Object.entries(listKeysOnTransition(write.update, write.transition.to, shards)))
      sets.push(`${name(field)} = ${value(v)}`);
  }
  if (write.inStates) conditions.push(`${name(stateField)} IN (${write.inStates.map(value).join(', ')})`);
  for (const [field, v] of Object.entries(write.expect ?? {})) conditions.push(`${name(field)} = ${value(v)}`);
  for (const field of write.absent ?? []) conditions.push(`attribute_not_exists(${name(field)})`);
  for (const [field, v] of Object.entries(write.atMost ?? {})) conditions.push(`${name(field)} <= ${value(v)}`);
  for (const [bound, comparison] of [
    [write.below, '<'],
    [write.above, '>'],
  ] as const) {
    for (const [field, v] of Object.entries(bound ?? {})) {
      const n = name(field);
      conditions.push(`(attribute_not_exists(${n}) OR ${n} = ${value(null)} OR ${n} ${comparison} ${value(v)})`);
    }
  }
  const stored = storedFields(write.update.entity, write.set ?? {});
  for (const [field, v] of Object.entries(stored.set)) sets.push(`${name(field)} = ${value(v)}`);
  for (const [field, v] of Object.entries(write.setIfAbsent ?? {})) {
    const n = name(field);
    sets.push(`${n} = if_not_exists(${n}, ${value(v)})`);
  }
  for (const [field, v] of Object.entries(write.add ?? {})) adds.push(`${name(field)} ${value(v)}`);
  for (const [field, entries] of Object.entries(storedEntries(write.update.entity, write.append ?? {}))) {
    const list = name(field);
    sets.push(`${list} = list_append(if_not_exists(${list}, ${value([])}), ${value(entries)})`);
  }
  for (const field of [...(write.unset ?? []), ...stored.unset]) removes.push(name(field));
  // a write sent alone leaves its mark; the next change in a transaction takes it away (the item stays small)
  if (mark) sets.push(`${name('change')} = ${value(mark)}`);
  else removes.push(name('change'));

  const op = write.operation;
  const opField = op ? name('op') : '';
  if (op && 'idle' in op) {
    conditions.push(`(attribute_not_exists(${opField}) OR ${opField}.lease_until < ${value(op.idle)})`);
  } else if (op && 'begin' in op) {
    conditions.push(`attribute_not_exists(${opField})`);
    sets.push(`${opField} = ${value(op.begin)}`);
    for (const [field, v] of Object.entries(leaseIndex(key, op.begin.lease_until))) sets.push(`${name(field)} = ${value(v)}`);
  } else if (op && 'finish' in op) {
    conditions.push(`${opField}.id = ${value(op.finish)}`);
    removes.push(opField, 'gsi2pk', 'gsi2sk');
  } else if (op && 'replace' in op) {
    conditions.push(`${opField}.id = ${value(op.replace)}`);
    sets.push(`${opField} = ${value(op.with)}`);
    for (const [field, v] of Object.entries(leaseIndex(key, op.with.lease_until))) sets.push(`${name(field)} = ${value(v)}`);
  } else if (op && 'takeOver' in op) {
    conditions.push(`${opField}.id = ${value(op.takeOver)}`, `${opField}.lease_until < ${value(op.now)}`);
    sets.push(`${opField}.lease_until = ${value(op.leaseUntil)}`);
    for (const [field, v] of Object.entries(leaseIndex(key, op.leaseUntil))) sets.push(`${name(field)} = ${value(v)}`);
  }

  const clauses = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    adds.length ? `ADD ${adds.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
  ].filter(Boolean);
  return {
    Update: {
      TableName: TABLE,
      Key: key,
      UpdateExpression: clauses.join(' '),
      ConditionExpression: conditions.length ? conditions.join(' AND ') : undefined,
      ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
      ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
    },
  };
}

function removeItem({ remove, operation, inStates, expect }: Remove<string>): TransactItem {
  const states = Object.fromEntries((inStates ?? []).map((state, i) => [`:s${i}`, state]));
  const expected = Object.entries(expect ?? {});
  const names = {
    ...(operation ? { '#op': 'op' } : {}),
    ...(inStates ? { '#status': 'status' } : {}),
    ...Object.fromEntries(expected.map(([field], i) => [`#e${i}`, field])),
  };
  const values = { ...(operation ? { ':op': operation } : {}), ...states, ...Object.fromEntries(expected.map(([, value], i) => [`:e${i}`, value])) };
  return {
    Delete: {
      TableName: TABLE,
      Key: keyOf(remove),
      ConditionExpression: [
        operation ? '#op.id = :op' : 'attribute_exists(pk)',
        ...(inStates ? [`#status IN (${Object.keys(states).join(', ')})`] : []),
        ...expected.map((_, i) => `#e${i} = :e${i}`),
      ].join(' AND '),
      ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
      ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
    },
  };
}
