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
  /** a capture the provider accepted for later failed after all (Adyen CAPTURE_FAILED): the authorization stands */
  captureFail: { from: ['captured'], to: 'succeeded', event: 'payment.capture_failed' },
} as const satisfies StateMachine<PaymentStatus, string>;
/** `processing`: stored while its authorization runs, invisible to the API (a payment's other statuses are shown). */
export type PaymentStatus = 'processing' | 'succeeded' | 'failed' | 'captured' | 'voided' | 'refunded';

/** A refund holds its amount on the payment while `pending` (reserved before the provider is asked). */
export const REFUND = {
  confirm: { from: ['pending'], to: 'succeeded' },
  /** refused at once, or failed at settlement after it was accepted (Adyen REFUND_FAILED, a Stripe late failure) */
  fail: { from: ['pending', 'succeeded'], to: 'failed', event: 'refund.failed' },
} as const satisfies StateMachine<RefundState, string>;

/**
 * A dispute (chargeback) is created in whatever state its provider first reports; from there it only moves forward:
 * won, lost and accepted are final, so a late or repeated notification never moves it back.
 */
export const DISPUTE = {
  /** the merchant's evidence was submitted, or the provider reports the dispute under review */
  review: { from: ['needs_response'], to: 'under_review', event: 'dispute.updated' },
  accept: { from: ['needs_response'], to: 'accepted', event: 'dispute.closed' },
  win: { from: ['needs_response', 'under_review'], to: 'won', event: 'dispute.closed' },
  lose: { from: ['needs_response', 'under_review'], to: 'lost', event: 'dispute.closed' },
} as const satisfies StateMachine<DisputeState, string>;
export type DisputeState = 'needs_response' | 'under_review' | 'won' | 'lost' | 'accepted';
export type RefundState = 'pending' | 'succeeded' | 'failed';

/**
 * An invoice is a `draft` on create, `sent` (again and again) by a send, `paid` once. A send holds the invoice with
 * its operation while the message goes out (see invoice-delivery.ts); no other move is made meanwhile.
 */
export const INVOICE = {
  send: { from: ['draft', 'sent'], to: 'sent', event: 'invoice.sent' },
  markPaid: { from: ['draft', 'sent'], to: 'paid', event: 'invoice.paid' },
} as const satisfies StateMachine<InvoiceState, string>;
export type InvoiceState = 'draft' | 'sent' | 'paid';

/**
 * A subscription (DECISIONS "Subscriptions"): paused and resumed by the merchant, cancelled for good; renewals move
 * it to `past_due` on a declined charge (again on each declined retry) and back to `active` once a period is paid.
 */
export const SUBSCRIPTION = {
  pause: { from: ['active'], to: 'paused', event: 'subscription.paused' },
  resume: { from: ['paused'], to: 'active', event: 'subscription.resumed' },
  cancel: { from: ['active', 'paused', 'past_due'], to: 'cancelled', event: 'subscription.cancelled' },
  renew: { from: ['active', 'past_due'], to: 'active', event: 'subscription.renewed' },
  /** the first charge of a period was declined */
  decline: { from: ['active'], to: 'past_due', event: 'subscription.past_due' },
  /** a retry of a past_due period was declined too */
  declineRetry: { from: ['past_due'], to: 'past_due', event: 'subscription.past_due' },
} as const satisfies StateMachine<SubscriptionState, string>;
export type SubscriptionState = 'active' | 'paused' | 'past_due' | 'cancelled';

/**
 * The renewal of one period of a subscription (its row makes the renewal idempotent; see renewals.ts). A worker's
 * claim (with a lease) holds it `open` while the invoice is made; `charging` while the card on file is charged
 * (never charged again from here, whatever happens); `settled` once paid or invoiced; `failed` after a decline,
 * until a retry claims it again.
 */
export const PERIOD = {
  retry: { from: ['failed'], to: 'open' },
  charge: { from: ['open'], to: 'charging' },
  /** settled without a charge: the invoice was paid elsewhere, or sent */
  settle: { from: ['open'], to: 'settled' },
  /** settled by the charge */
  charged: { from: ['charging'], to: 'settled' },
  fail: { from: ['charging'], to: 'failed' },
} as const satisfies StateMachine<PeriodState, string>;
export type PeriodState = 'open' | 'charging' | 'settled' | 'failed';

const PAST = {
  capture: 'captured',
  void: 'voided',
  refund: 'refunded',
  authorize: 'authorized',
  decline: 'declined',
  declineRetry: 'declined',
  send: 'sent',
  markPaid: 'marked paid',
  pause: 'paused',
  resume: 'resumed',
  cancel: 'cancelled',
  renew: 'renewed',
  review: 'put under review',
  accept: 'accepted',
  win: 'won',
  lose: 'lost',
} as Record<string, string>;

/**
 * The transition `operation` of `machine`, when `current` allows it; otherwise 400 invalid_state with a reason a
 * developer can act on, e.g. "a voided payment cannot be captured".
 */
export function transition<S extends string, O extends string>(entity: string, machine: StateMachine<S, O>, operation: O, current: S): Transition<S> {
  const move = machine[operation];
  if (move.from.includes(current)) return move;
  throw new InvalidState(undefined, `${article(current)} ${current.replace('_', ' ')} ${entity} cannot be ${PAST[operation] ?? operation}`);
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');
