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

/** A fresh run's operation and the change that begins it (writing `op` on its item, with the item's own conditions). */
export interface Begin {
  op: Operation;
  begin: Change;
}

/**
 * One kind of external operation, declared once: what it is on, how a run starts, the outside call and how its
 * answer is recorded. `I`: what a run is given (the item as read, the request); `R`: the call's answer; `A`: what the
 * run answers. The driver (runOperation, takeOverOperation) alone does the rest: replay, 409 while another run's
 * lease holds the item, take-over once it ended, begin, call, record.
 */
export interface DeclaredOperation<I, R, A> {
  /** what the 409 names ("this payment") */
  what: string;
  /** the item the operation is held on */
  target: (input: I) => Target;
  /** a run of this very request already finished: its answer again (undefined: none) */
  replay?: (input: I) => A | undefined;
  /** the operation the item holds as read, if it stands in the way of a fresh start (or is this request's own) */
  held?: (input: I) => Operation | undefined;
  /** the held operation is this request's own (begun by an earlier run of it): it is taken over, not waited for */
  own?: (input: I, held: Operation) => boolean;
  /**
   * Another run's operation whose lease ended holds the item: finished first (its call may have taken effect, so it
   * is recorded, never overwritten), then the run goes on with the item as it is now, or answers. Default: 409.
   */
  settleStale?: (input: I, stale: Operation) => Promise<{ again: I } | { answer: A }>;
  /** what is answered while another run's lease holds the item (default: 409 with Retry-After) */
  busy?: (input: I, held: Operation) => Promise<A>;
  /** how a fresh run starts */
  start: (input: I) => Begin | Promise<Begin>;
  /** the begin (or a take-over) was refused: another run moved first (default: 409) */
  onRefused?: (input: I, op: Operation) => Promise<A>;
  /** the write that takes `held` over (default: the item's `op`, its lease renewed) */
  takeOver?: (input: I, held: Operation, now: number, leaseUntil: number) => Change;
  /** the outside call, under `op.id` as its idempotency key; `retried`: an earlier run may have made it already */
  call: (op: Operation, input: I, retried: boolean) => Promise<R>;
  /** records the answer: one commit that finishes (or keeps) the operation, or gives up */
  record: (result: R, op: Operation, input: I) => Promise<A>;
}

/** A kind only ever taken over (an operation begun elsewhere, e.g. with its payment's create) declares no start. */
export type TakenOver<I, R, A> = Omit<DeclaredOperation<I, R, A>, 'start'>;

/** A run's input (none for a kind declared where it runs, whose closures hold what it needs). */
type InputOf<I> = [I] extends [void] ? [] : [NoInfer<I>];

const inProgress = (held: Operation, what: string): OperationInProgress => new OperationInProgress((held.lease_until - clock.now()) / 1000, what);

/** While another run's lease holds the item. */
const busy = <I, R, A>(kind: TakenOver<I, R, A>, input: I, held: Operation): Promise<A> =>
  kind.busy ? kind.busy(input, held) : Promise.reject(inProgress(held, kind.what));

/**
 * The driver of every external operation a request starts: its replay, or its own operation taken over, or a wait
 * (409) while another run's lease holds the item, or that run finished first once its lease ended; then begin, call
 * under the operation's id, record.
 */
export async function runOperation<I, R, A>(kind: DeclaredOperation<I, R, A>, ...given: InputOf<I>): Promise<A> {
  let input = given[0] as I;
  const replayed = kind.replay?.(input);
  if (replayed !== undefined) return replayed;
  const held = kind.held?.(input);
  if (held && kind.own?.(input, held)) return takeOver(kind, input);
  if (held) {
    if (held.lease_until >= clock.now()) return busy(kind, input, held);
    if (!kind.settleStale) return Promise.reject(inProgress(held, kind.what));
    const settled = await kind.settleStale(input, held);
    if ('answer' in settled) return settled.answer;
    input = settled.again;
  }
  const { op, begin } = await kind.start(input);
  if ((await commit(begin)) !== 'committed')
    return kind.onRefused ? kind.onRefused(input, op) : Promise.reject(new OperationInProgress(1, kind.what));
  return kind.record(await kind.call(op, input, false), op, input);
}

/**
 * Takes over the operation the item holds (the reconciler's part, or a retried request's own) once its lease ended
 * (while it runs: busy), with a fresh lease, and carries it out again under its own id.
 */
export const takeOverOperation = <I, R, A>(kind: TakenOver<I, R, A>, ...given: InputOf<I>): Promise<A> => takeOver(kind, given[0] as I);

async function takeOver<I, R, A>(kind: TakenOver<I, R, A>, input: I): Promise<A> {
  const held = kind.held?.(input);
  if (!held) throw new Error(`nothing to take over on ${kind.what}`);
  const now = clock.now();
  if (held.lease_until >= now) return busy(kind, input, held);
  const leaseUntil = now + LEASE_MS;
  const change = kind.takeOver?.(input, held, now, leaseUntil) ?? {
    writes: [{ update: kind.target(input), operation: { takeOver: held.id, now, leaseUntil } }],
  };
  if ((await commit(change)) !== 'committed')
    return kind.onRefused ? kind.onRefused(input, held) : Promise.reject(new OperationInProgress(1, kind.what));
  const op = { ...held, lease_until: leaseUntil };
  return kind.record(await kind.call(op, input, true), op, input);
}

/** A change that begins `op` on `target`, under the update's conditions (`inStates`, `expect`, …) and with its fields. */
export const beginOn = (target: Target, op: Operation, update: Omit<Update, 'update' | 'operation'> = {}): Change => ({
  writes: [{ update: target, ...update, operation: { begin: op } }],
});

/** Ends the operation on `target` without any other change (its call changed nothing, or its item moved meanwhile). */
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
