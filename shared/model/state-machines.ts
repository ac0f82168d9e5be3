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
  /** the issuer asks the shopper to authenticate (3-D Secure): the create answers with the shopper's next action */
  requireAction: { from: ['processing'], to: 'requires_action', event: 'payment.requires_action' },
  /** the shopper came back authenticated and the provider authorized */
  authenticate: { from: ['requires_action'], to: 'succeeded', event: 'payment.succeeded' },
  /** the shopper failed or abandoned the authentication, or the issuer declined after it */
  failAuthentication: { from: ['requires_action'], to: 'failed', event: 'payment.failed' },
  capture: { from: ['succeeded'], to: 'captured', event: 'payment.captured' },
  void: { from: ['succeeded', 'requires_action'], to: 'voided', event: 'payment.voided' },
  refund: { from: ['captured', 'refunded'], to: 'refunded', event: 'payment.refunded' },
  /** the provider refused the only refund: the payment is captured again */
  restore: { from: ['refunded'], to: 'captured' },
  /** a capture the provider accepted for later failed after all (Adyen CAPTURE_FAILED): the authorization stands */
  captureFail: { from: ['captured'], to: 'succeeded', event: 'payment.capture_failed' },
} as const satisfies StateMachine<PaymentStatus, string>;
/** `processing`: stored while its authorization runs, invisible to the API (a payment's other statuses are shown). */
export type PaymentStatus = 'processing' | 'requires_action' | 'succeeded' | 'failed' | 'captured' | 'voided' | 'refunded';

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
 * its operation while the message goes out (see invoice-delivery.ts); no other transition is made meanwhile.
 */
export const INVOICE = {
  send: { from: ['draft', 'sent'], to: 'sent', event: 'invoice.sent' },
  markPaid: { from: ['draft', 'sent'], to: 'paid', event: 'invoice.paid' },
} as const satisfies StateMachine<InvoiceState, string>;
export type InvoiceState = 'draft' | 'sent' | 'paid';

/**
 * A subscription (docs/api.md "Subscriptions"): paused and resumed by the merchant, cancelled for good; renewals move
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
  /** a waiting period is due again: its expired card was updated, or its customer paid the invoice online */
  retryNow: { from: ['past_due'], to: 'past_due' },
} as const satisfies StateMachine<SubscriptionState, string>;
export type SubscriptionState = 'active' | 'paused' | 'past_due' | 'cancelled';
/** The states in which the merchant may change a subscription's terms (PUT, no change of state): all but cancelled. */
export const SUBSCRIPTION_CHANGEABLE = ['active', 'paused', 'past_due'] as const satisfies readonly SubscriptionState[];

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

/**
 * One authorization attempt of a payment (an entry of its `attempts`): `pending` while its provider is asked; an
 * answer lost to a timeout leaves it `unknown` until the provider is asked what it holds under the attempt's key; a
 * soft failure after a reversal is `reversed` (its key is closed).
 */
export const ATTEMPT = {
  challenge: { from: ['pending', 'unknown'], to: 'requires_action' },
  authorize: { from: ['pending', 'unknown', 'requires_action'], to: 'authorized' },
  decline: { from: ['pending', 'unknown', 'requires_action'], to: 'declined' },
  fail: { from: ['pending', 'unknown'], to: 'failed' },
  reverse: { from: ['pending', 'unknown'], to: 'reversed' },
  answerLost: { from: ['pending'], to: 'unknown' },
} as const satisfies StateMachine<AttemptState, string>;
export type AttemptState = 'pending' | 'requires_action' | 'authorized' | 'declined' | 'failed' | 'unknown' | 'reversed';

/**
 * A settlement is made `pending` by the daily job (or from a provider's payout still on its way), with its arrival
 * date, and paid once that date has come; a provider's payout that has arrived is made `paid`.
 */
export const SETTLEMENT = {
  pay: { from: ['pending'], to: 'paid', event: 'settlement.paid' },
} as const satisfies StateMachine<SettlementState, string>;
export type SettlementState = 'pending' | 'paid';

/** A reconciliation exception is `open` until the merchant resolves it (with a resolution and a note), once. */
export const RECONCILIATION_EXCEPTION = {
  resolve: { from: ['open'], to: 'resolved' },
} as const satisfies StateMachine<ReconciliationExceptionState, string>;
export type ReconciliationExceptionState = 'open' | 'resolved';

/**
 * A test clock is `ready` until an advance starts; `advancing` (towards its target, recording how far it got) until
 * the advance has run every piece of due work; then ready again, at its target.
 */
export const TEST_CLOCK = {
  advance: { from: ['ready'], to: 'advancing' },
  finish: { from: ['advancing'], to: 'ready', event: 'test_clock.ready' },
} as const satisfies StateMachine<TestClockState, string>;
export type TestClockState = 'ready' | 'advancing';

/**
 * A webhook endpoint is enabled and disabled by the merchant (PUT `status`), and disabled when it answers 410 Gone
 * (`disable` then records why); deleting it is the merchant's.
 */
export const WEBHOOK_ENDPOINT = {
  enable: { from: ['active', 'disabled'], to: 'active' },
  disable: { from: ['active', 'disabled'], to: 'disabled' },
} as const satisfies StateMachine<WebhookEndpointState, string>;
export type WebhookEndpointState = 'active' | 'disabled';

/** A payment link takes payments while `active`; the merchant switches it off and on (docs/api.md "Payment links"). */
export const PAYMENT_LINK = {
  deactivate: { from: ['active', 'inactive'], to: 'inactive' },
  activate: { from: ['active', 'inactive'], to: 'active' },
} as const satisfies StateMachine<PaymentLinkState, string>;
export type PaymentLinkState = 'active' | 'inactive';

/**
 * A place a payment of a payment link holds while it is made (the link's `limit` counts the places held): `claimed`
 * before the card is charged, `paid` once the payment is captured (the link's `paid_count` and event, once per
 * payment), `released` when it failed (the place is given back).
 */
export const PAYMENT_LINK_PLACE = {
  pay: { from: ['claimed'], to: 'paid', event: 'payment_link.paid' },
  release: { from: ['claimed'], to: 'released' },
} as const satisfies StateMachine<PaymentLinkPlaceState, string>;
export type PaymentLinkPlaceState = 'claimed' | 'paid' | 'released';

/**
 * An API key is revoked for good; revoking a revoked key again is allowed and changes nothing. A rolled key has a
 * successor and works until its `expires_at` (the overlap the roll gave it); it is rolled once.
 */
export const API_KEY = {
  roll: { from: ['active'], to: 'rolled' },
  revoke: { from: ['active', 'rolled', 'revoked'], to: 'revoked' },
} as const satisfies StateMachine<ApiKeyState, string>;
export type ApiKeyState = 'active' | 'rolled' | 'revoked';

/**
 * A merchant's connector account: enabled and disabled by the merchant (routing uses active ones only), deleted for
 * good (its record stays, so the payments it authorized are still captured, voided and refunded through it).
 */
export const CONNECTOR = {
  enable: { from: ['active', 'disabled'], to: 'active' },
  disable: { from: ['active', 'disabled'], to: 'disabled' },
  delete: { from: ['active', 'disabled'], to: 'deleted' },
} as const satisfies StateMachine<ConnectorState, string>;
export type ConnectorState = 'active' | 'disabled' | 'deleted';

/**
 * A routing rule is enabled and disabled by the merchant; only active rules are matched. A delete (from any state)
 * removes the rule and its routing copies for good: it has no state to move to.
 */
export const ROUTING_RULE = {
  enable: { from: ['active', 'disabled'], to: 'active' },
  disable: { from: ['active', 'disabled'], to: 'disabled' },
} as const satisfies StateMachine<RoutingRuleState, string>;
export type RoutingRuleState = 'active' | 'disabled';

/**
 * An invitation to a merchant's team is `pending` until the invited e-mail accepts it (then its membership exists) or
 * the team revokes it; revoking a revoked one again changes nothing. A pending invitation past its 7 days is shown
 * `expired` and can no longer be accepted (no stored change: the accept's condition reads the expiry).
 */
export const INVITATION = {
  accept: { from: ['pending'], to: 'accepted' },
  revoke: { from: ['pending', 'revoked'], to: 'revoked' },
} as const satisfies StateMachine<InvitationState, string>;
export type InvitationState = 'pending' | 'accepted' | 'revoked';

/**
 * Every machine with its states and the states its entity is created in: what a reader (and the consistency test)
 * needs to see each one whole.
 */
export const MACHINES = {
  payment: {
    table: PAYMENT,
    states: ['processing', 'requires_action', 'succeeded', 'failed', 'captured', 'voided', 'refunded'],
    initial: ['processing'],
  },
  attempt: {
    table: ATTEMPT,
    states: ['pending', 'requires_action', 'authorized', 'declined', 'failed', 'unknown', 'reversed'],
    initial: ['pending'],
  },
  refund: { table: REFUND, states: ['pending', 'succeeded', 'failed'], initial: ['pending'] },
  dispute: {
    table: DISPUTE,
    states: ['needs_response', 'under_review', 'won', 'lost', 'accepted'],
    // created in whatever state its provider first reports
    initial: ['needs_response', 'under_review', 'won', 'lost', 'accepted'],
  },
  invoice: { table: INVOICE, states: ['draft', 'sent', 'paid'], initial: ['draft'] },
  subscription: { table: SUBSCRIPTION, states: ['active', 'paused', 'past_due', 'cancelled'], initial: ['active'] },
  subscription_period: { table: PERIOD, states: ['open', 'charging', 'settled', 'failed'], initial: ['open'] },
  settlement: { table: SETTLEMENT, states: ['pending', 'paid'], initial: ['pending', 'paid'] },
  reconciliation_exception: { table: RECONCILIATION_EXCEPTION, states: ['open', 'resolved'], initial: ['open'] },
  test_clock: { table: TEST_CLOCK, states: ['ready', 'advancing'], initial: ['ready'] },
  webhook_endpoint: { table: WEBHOOK_ENDPOINT, states: ['active', 'disabled'], initial: ['active'] },
  api_key: { table: API_KEY, states: ['active', 'rolled', 'revoked'], initial: ['active'] },
  connector: { table: CONNECTOR, states: ['active', 'disabled', 'deleted'], initial: ['active'] },
  routing_rule: { table: ROUTING_RULE, states: ['active', 'disabled'], initial: ['active'] },
  invitation: { table: INVITATION, states: ['pending', 'accepted', 'revoked'], initial: ['pending'] },
  payment_link: { table: PAYMENT_LINK, states: ['active', 'inactive'], initial: ['active'] },
  payment_link_place: { table: PAYMENT_LINK_PLACE, states: ['claimed', 'paid', 'released'], initial: ['claimed'] },
} as const satisfies Record<string, { table: StateMachine<string, string>; states: readonly string[]; initial: readonly string[] }>;

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
  pay: 'paid',
  advance: 'advanced',
  finish: 'finished',
  disable: 'disabled',
  enable: 'enabled',
  revoke: 'revoked',
  delete: 'deleted',
  resolve: 'resolved',
  roll: 'rolled',
  deactivate: 'deactivated',
  activate: 'activated',
  release: 'released',
} as Record<string, string>;

/**
 * The transition `operation` of `machine`, when `current` allows it; otherwise 400 invalid_state with a reason a
 * developer can act on, e.g. "a voided payment cannot be captured".
 */
export function transition<S extends string, O extends string>(entity: string, machine: StateMachine<S, O>, operation: O, current: S): Transition<S> {
  const step = machine[operation];
  if (step.from.includes(current)) return step;
  throw new InvalidState(undefined, `${article(current)} ${current.replace('_', ' ')} ${entity} cannot be ${PAST[operation] ?? operation}`);
}

/** Whether `operation` of `machine` may start from `current` (for a job that skips what it may not change). */
export const allows = <S extends string, O extends string>(machine: StateMachine<S, O>, operation: O, current: string): boolean =>
  (machine[operation].from as readonly string[]).includes(current);

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');
