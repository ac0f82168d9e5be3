import { InvalidState } from './errors.ts';
import type { EventType } from './events.ts';

/**
 * Every state machine of the service, one table each: operation → the states it may start from → the state it
 * leads to → the event it emits. Use cases read these tables; the store derives its write conditions from them
 * (`from` becomes `status IN (…)`), so the rules are written once.
 */
export interface Transition<S extends string = string> {
  readonly from: readonly S[];
  readonly to: S;
  readonly event?: EventType;
}

export type StateMachine<S extends string, O extends string> = { readonly [op in O]: Transition<S> };

/**
 * A payment is `processing` (stored, invisible to the API) while its authorization runs; the create answers once it
 * is `succeeded` or `failed`. Refunds repeat while captured money remains.
 */
export const PAYMENT = {
  authorize: { from: ['processing'], to: 'succeeded', event: 'payment.succeeded' },
  decline: { from: ['processing'], to: 'failed', event: 'payment.failed' },
  capture: { from: ['succeeded'], to: 'captured', event: 'payment.captured' },
  void: { from: ['succeeded'], to: 'voided', event: 'payment.voided' },
  refund: { from: ['captured', 'refunded'], to: 'refunded', event: 'payment.refunded' },
  /** the provider refused the only refund: the payment is captured again */
  restore: { from: ['refunded'], to: 'captured' },
} as const satisfies StateMachine<PaymentState, string>;
export type PaymentState = 'processing' | 'succeeded' | 'failed' | 'captured' | 'voided' | 'refunded';

/** A refund holds its amount on the payment while `pending` (reserved before the provider is asked). */
export const REFUND = {
  confirm: { from: ['pending'], to: 'succeeded' },
} as const satisfies StateMachine<RefundState, string>;
export type RefundState = 'pending' | 'succeeded' | 'failed';

const PAST = { capture: 'captured', void: 'voided', refund: 'refunded', authorize: 'authorized', decline: 'declined' } as Record<string, string>;

/**
 * The transition `operation` of `machine`, when `current` allows it; otherwise 400 invalid_state with a reason a
 * developer can act on, e.g. "a voided payment cannot be captured".
 */
export function transition<S extends string, O extends string>(
  entity: string,
  machine: StateMachine<S, O>,
  operation: O,
  current: S,
): Transition<S> {
  const move = machine[operation];
  if (move.from.includes(current)) return move;
  throw new InvalidState(undefined, `${article(current)} ${current} ${entity} cannot be ${PAST[operation] ?? operation}`);
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');
