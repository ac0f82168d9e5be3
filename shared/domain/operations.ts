import type { OperationResult } from '../providers/index.ts';
import { type Change, commit, type Update } from '../store/commit.ts';
import type { Operation, Target } from '../model/targets.ts';
import { clock } from '../model/clock.ts';
import { OperationInProgress, OutcomeUnknown, ProviderRefused, ProvidersUnavailable } from '../model/errors.ts';
import { count } from '../metrics.ts';

/**
 * How long an operation holds its item: past the longest timeout of a function that begins one (the renewal worker's
 * 30 s) and past the longest time a provider may still act on a request (Braintree's gateway gives up after 60 s), so
 * a live run is never taken over and a take-over's "nothing held" answer is final.
 */
export const LEASE_MS = 70_000;

/** How long an accepted operation waits for the provider's notification before the reconciler asks about it. */
export const AWAIT_RECHECK_MS = 15 * 60_000;

export const leaseFromNow = (): number => clock.now() + LEASE_MS;

/** The operation, accepted by the provider, now awaiting its outcome (a notification, or the reconciler once due). */
export const awaiting = (op: Operation): Operation => ({ ...op, awaiting: true, lease_until: clock.now() + AWAIT_RECHECK_MS });

/**
 * Where a run starts. `begin`: a change that writes `op` on its item (with the item's own conditions). `takeOver`:
 * `op` is already on `target`, begun by a run that may have died; it is taken over once its lease ended (409 while
 * it runs). `refused`: what the caller answers when another run changed the item first (a take-over's default: 409).
 */
export type Start<A> = { op: Operation; begin: Change; refused: () => Promise<A> } | { op: Operation; takeOver: Target; refused?: () => Promise<A> };

export interface OperationRun<R, A> {
  start: Start<A>;
  /** the outside call, under `op.id` as its idempotency key; `retried`: an earlier run may have made it already */
  call: (op: Operation, retried: boolean) => Promise<R>;
  /** records the answer: one commit that finishes (or keeps) the operation, or gives up */
  record: (result: R, op: Operation) => Promise<A>;
}

/** Every external side effect goes through here: begin or take over, call under the operation's id, record. */
export async function runOperation<R, A>({ start, call, record }: OperationRun<R, A>): Promise<A> {
  const retried = 'takeOver' in start;
  const op = retried ? await takeOver(start.takeOver, start.op) : (await commit(start.begin)) === 'committed' ? start.op : undefined;
  if (!op) return start.refused ? start.refused() : Promise.reject(new OperationInProgress(1));
  return record(await call(op, retried), op);
}

/** A change that begins `op` on `target`, under the update's conditions (`inStates`, `expect`, …) and with its fields. */
export const beginOn = (target: Target, op: Operation, update: Omit<Update, 'update' | 'operation'> = {}): Change => ({
  writes: [{ update: target, ...update, operation: { begin: op } }],
});

/** Takes over an operation whose lease ended, renewing its lease (undefined: another run took it or finished it). */
async function takeOver(target: Target, op: Operation): Promise<Operation | undefined> {
  const now = clock.now();
  if (op.lease_until >= now) throw new OperationInProgress((op.lease_until - now) / 1000);
  const leaseUntil = now + LEASE_MS;
  const taken = await commit({ writes: [{ update: target, operation: { takeOver: op.id, now, leaseUntil } }] });
  return taken === 'committed' ? { ...op, lease_until: leaseUntil } : undefined;
}

/** Ends the operation on `target` without any other change (its call changed nothing, or its item changed state meanwhile). */
export const finish = (target: Target, op: Operation) => commit({ writes: [{ update: target, operation: { finish: op.id } }] });

/** A retried call that could not reach the provider proves nothing about the first call: its outcome is unknown. */
export const asRetried = (result: OperationResult, retried: boolean): OperationResult =>
  retried && !result.ok && result.reason === 'provider_down' ? { ok: false, reason: 'unknown' } : result;

/**
 * A provider call that did not go through: unreachable or refused (nothing happened: the operation ends, the item
 * stays), or its answer lost (the operation stays for the reconciler). `subject`: the payment it is about.
 */
export async function giveUp(
  target: Target,
  subject: { id: string; livemode: boolean; provider?: string | null },
  op: Operation,
  result: Extract<OperationResult, { ok: false }>,
): Promise<never> {
  if (result.reason === 'unknown') {
    const mode = subject.livemode ? 'live' : 'test';
    await count('UnknownOutcomes', { mode, provider: op.provider ?? subject.provider ?? 'unknown', operation: op.kind });
    throw new OutcomeUnknown(subject.id);
  }
  await finish(target, op);
  if (result.reason === 'refused') throw new ProviderRefused(op.provider ?? 'the provider', `the ${op.kind.replace('_', ' ')}`, result.message);
  throw new ProvidersUnavailable();
}
