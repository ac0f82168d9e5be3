import { config } from '../config.ts';
import type * as v from 'valibot';
import type { DisputeEvidence, OperationResult, ProviderChange } from '../providers/types.ts';
import type { DisputeEvidenceBody, OpenTestDisputeBody } from '../schemas/disputes.ts';
import { commit } from '../store/commit.ts';
import type { Operation } from '../model/targets.ts';
import * as disputesStore from '../store/disputes.ts';
import type { StoredDispute } from '../store/disputes.ts';
import * as ledger from '../store/ledger.ts';
import type { PageQuery } from '../store/pagination.ts';
import * as payments from '../store/payments.ts';
import type { PaymentRecord, StoredPayment } from '../store/payments.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { clock, isoNow } from '../model/clock.ts';
import { disputeDeskFor } from './follow-up.ts';
import { BadRequest, InvalidState, NotFound, OperationInProgress, ProvidersUnavailable } from '../model/errors.ts';
import { newEvent } from '../model/events.ts';
import { freshOrigin, idFor, newId, type Origin } from '../model/ids.ts';
import { beginOn, type DeclaredOperation, finish, giveUp, leaseFromNow, runOperation, takeOverOperation } from './operations.ts';
import type { OutcomeContext } from './refund-outcomes.ts';
import { DISPUTE, type DisputeState, transition } from '../model/state-machines.ts';
import { historyEntry } from './timeline-entries.ts';
import { count } from '../metrics.ts';
import { modeOf } from './route-targets.ts';

/**
 * Disputes (chargebacks), docs/api.md "Disputes": created from what the provider reports, moved only forward by the
 * DISPUTE table. The disputed amount leaves the balance when the dispute is first recorded (unless it is already
 * won) and comes back if it is won; the merchant answers with evidence or accepts, both forwarded to the provider.
 */
export const disputeObject = (d: StoredDispute) => ({
  id: d.id,
  object: 'dispute' as const,
  payment_id: d.payment_id,
  amount: d.amount,
  currency: d.currency,
  reason: d.reason,
  status: d.status,
  evidence_due_by: d.evidence_due_by,
  created_at: d.created_at,
  livemode: d.livemode,
  // docs/api.md "Lists": returned on disputes too. A dispute is opened by the provider and its evidence body holds only
  // the text forwarded to it, so nothing sets a dispute's metadata yet: always {}.
  metadata: {} as Record<string, string>,
});

export async function getDispute(merchant: Merchant, id: string) {
  const dispute = await disputesStore.findDispute(ownerOf(merchant), id);
  if (!dispute || dispute.livemode !== merchant.livemode) throw new NotFound();
  return disputeObject(dispute);
}

export async function listDisputes(merchant: Merchant, page: PageQuery) {
  const result = await disputesStore.disputePage(ownerOf(merchant), page);
  return { object: 'list' as const, data: result.data.map(disputeObject), has_more: result.has_more };
}

/** The transition a provider's reported status asks for; none for `needs_response` (where every dispute starts). */
const moveTo: Record<DisputeState, keyof typeof DISPUTE | undefined> = {
  needs_response: undefined,
  under_review: 'review',
  won: 'win',
  lost: 'lose',
  accepted: 'accept',
};

type DisputeChange = Extract<ProviderChange, { object: 'dispute' }>;

/**
 * Records what the provider reports about a dispute of `payment`: a new one is created in the reported state (its
 * amount debited unless it is already won); a known one moves forward if the DISPUTE table allows. True when
 * something changed.
 */
export async function recordDisputeChange(payment: PaymentRecord, change: DisputeChange, context: OutcomeContext): Promise<boolean> {
  // A refused write means another report changed the dispute first: judged again on what it is now.
  for (let attempt = 0; attempt < 5; attempt++) {
    const { disputes } = await disputesStore.disputesAndRefundsOf(payment.id);
    const known = disputes.find((d) => d.provider_reference === change.disputeReference);
    const operation = moveTo[change.status];
    if (known && (!operation || !(DISPUTE[operation].from as readonly string[]).includes(known.status))) return false;
    if (await (known ? stepDispute(known, operation!, context) : openDispute(payment, change, context))) return true;
  }
  throw new OperationInProgress(1, 'this dispute');
}

async function openDispute(payment: PaymentRecord, change: DisputeChange, context: OutcomeContext): Promise<boolean> {
  const now = isoNow();
  const debited = change.status !== 'won';
  const dispute: StoredDispute = {
    id: newId('dispute'),
    payment_id: payment.id,
    merchant_id: payment.merchant_id,
    livemode: payment.livemode,
    provider: payment.provider ?? 'unknown',
    connector_id: payment.connector_id ?? null,
    provider_reference: change.disputeReference,
    amount: change.amount,
    currency: change.currency,
    reason: change.reason,
    status: change.status,
    debited,
    evidence_due_by: change.evidenceDueBy,
    created_at: now,
    updated_at: now,
    history: [historyEntry(`dispute.${change.status}`, context.source, context.reference, now)],
  };
  // First reported already decided (a late or reordered notification): created and closed, as if seen in order.
  const final = change.status === 'won' || change.status === 'lost' || change.status === 'accepted';
  const events = [
    newEvent(payment, 'dispute.created', disputeObject(dispute)),
    ...(final ? [newEvent(payment, 'dispute.closed', disputeObject(dispute))] : []),
  ];
  const created = await commit({
    writes: [{ create: disputesStore.disputeTarget(dispute), item: { ...dispute } }, ...(context.seen ? [context.seen] : [])],
    events,
    counters: debited ? ledger.disputeCounters(payment, change.currency, change.amount, ledger.dayOf(now)) : [],
  });
  if (created === 'refused') return false;
  await countDispute(dispute, dispute.status);
  return true;
}

/** Moves a dispute by the DISPUTE table; a won dispute that was debited gives its amount back. */
async function stepDispute(
  dispute: StoredDispute,
  operation: keyof typeof DISPUTE,
  context: OutcomeContext,
  extra: { set?: Record<string, unknown>; finish?: string } = {},
): Promise<boolean> {
  const step = DISPUTE[operation];
  const now = isoNow();
  const credit = operation === 'win' && dispute.debited;
  const next: StoredDispute = { ...dispute, status: step.to, updated_at: now, ...(credit ? { debited: false } : {}) };
  const event = newEvent(dispute, step.event, disputeObject(next));
  const committed = await commit({
    writes: [
      {
        update: disputesStore.disputeTarget(dispute),
        transition: { ...step, from: [dispute.status] },
        set: { updated_at: now, ...(credit ? { debited: false } : {}), ...extra.set },
        append: { history: [historyEntry(`dispute.${step.to}`, context.source, context.reference, now)] },
        ...(extra.finish ? { operation: { finish: extra.finish } } : {}),
      },
      ...(context.seen ? [context.seen] : []),
    ],
    events: [event],
    counters: credit ? ledger.disputeCounters(dispute, dispute.currency, -dispute.amount, ledger.dayOf(now)) : [],
  });
  if (committed === 'refused') return false;
  await countDispute(dispute, step.to);
  return true;
}

const countDispute = (dispute: StoredDispute, status: string): Promise<void> =>
  count('Disputes', { mode: modeOf(dispute), provider: dispute.provider, status });

type DisputeAction = { kind: 'dispute_evidence'; evidence: DisputeEvidence } | { kind: 'dispute_accept' };

/** Sends the merchant's evidence to the provider; the dispute is then under review. */
export async function submitDisputeEvidence(merchant: Merchant, id: string, body: v.InferOutput<typeof DisputeEvidenceBody>, origin = freshOrigin()) {
  return act(merchant, id, { kind: 'dispute_evidence', evidence: body }, origin);
}

/** Accepts the dispute at the provider: the merchant does not contest it, and its amount stays debited. */
export const acceptDispute = (merchant: Merchant, id: string, origin = freshOrigin()) => act(merchant, id, { kind: 'dispute_accept' }, origin);

/** An evidence submission or acceptance on `dispute` (as read) under the operation `opId`. */
interface DisputeRun {
  dispute: StoredDispute;
  action: DisputeAction;
  opId: string;
  source: OutcomeContext['source'];
}

const moveOf = (action: DisputeAction) => (action.kind === 'dispute_accept' ? 'accept' : 'review');

/** An evidence submission or acceptance: begun on the dispute, forwarded to the provider's dispute desk, recorded. */
export const disputeAction: DeclaredOperation<DisputeRun, OperationResult, DisputeView> = {
  what: 'this dispute',
  target: ({ dispute }) => disputesStore.disputeTarget(dispute),
  held: ({ dispute }) => dispute.op,
  own: ({ opId }, held) => held.id === opId,
  start: ({ dispute, action, opId }) => {
    transition('dispute', DISPUTE, moveOf(action), dispute.status);
    const op: Operation = {
      id: opId,
      kind: action.kind,
      lease_until: leaseFromNow(),
      provider: dispute.provider,
      ...(dispute.connector_id ? { connector_id: dispute.connector_id } : {}),
      reference: dispute.provider_reference,
    };
    const begin = beginOn(disputesStore.disputeTarget(dispute), op, {
      inStates: DISPUTE[moveOf(action)].from,
      ...(action.kind === 'dispute_evidence' ? { set: { evidence: action.evidence } } : {}),
    });
    return { op, begin };
  },
  onRefused: () => Promise.reject(new InvalidState(undefined, 'the dispute changed meanwhile; read it again')),
  call: async (op, { dispute, action }) => {
    const desk = await disputeDeskFor(dispute, op);
    return action.kind === 'dispute_accept'
      ? desk.accept(dispute.provider_reference, op.id)
      : desk.submitEvidence(dispute.provider_reference, action.evidence, op.id);
  },
  record: async (result, op, { dispute, action, source }) => {
    if (!result.ok)
      return giveUp(
        disputesStore.disputeTarget(dispute),
        { id: dispute.payment_id, livemode: dispute.livemode, provider: dispute.provider },
        op,
        result,
      );
    const moved = await stepDispute({ ...dispute, op }, moveOf(action), { source, reference: result.reference }, { finish: op.id });
    // A notification may have moved it meanwhile (e.g. the provider closed it): the operation still ends.
    if (!moved) await finish(disputesStore.disputeTarget(dispute), op);
    return disputeObject((await disputesStore.findDispute(dispute, dispute.id)) ?? dispute);
  },
};

/** An evidence submission or acceptance through the operation driver: begun on the dispute, then carried out. */
async function act(merchant: Merchant, id: string, action: DisputeAction, origin: Origin) {
  const dispute = await disputesStore.findDispute(ownerOf(merchant), id);
  if (!dispute || dispute.livemode !== merchant.livemode) throw new NotFound();
  return runOperation(disputeAction, { dispute, action, opId: idFor('operation', origin), source: 'api' });
}

type DisputeView = ReturnType<typeof disputeObject>;

/** The reconciler's part: an evidence submission or acceptance whose run died is taken over and sent again under its key. */
export async function reconcileDisputeOperation(dispute: StoredDispute & { op: Operation }): Promise<void> {
  const action: DisputeAction =
    dispute.op.kind === 'dispute_accept'
      ? { kind: 'dispute_accept' }
      : { kind: 'dispute_evidence', evidence: (dispute.evidence ?? {}) as DisputeEvidence };
  await takeOverOperation(disputeAction, { dispute, action, opId: dispute.op.id, source: 'reconciler' });
}

/** Where each provider's fake takes a test dispute (docs/api.md "Test mode"): its API origin, as configured. */
const fakeOrigin = (provider: string): string | undefined =>
  ({ stripe: config.STRIPE_API_BASE_URL, adyen: config.ADYEN_CHECKOUT_BASE_URL, braintree: config.BRAINTREE_GATEWAY_URL })[provider];

/**
 * Opens a dispute on a captured test payment the way its provider would: the sandbox reports it at once; a provider
 * fake (a connector whose API origin is configured) is asked to open it and notifies the connector's webhook_url.
 */
export async function openTestDispute(merchant: Merchant, paymentId: string, body: v.InferOutput<typeof OpenTestDisputeBody>) {
  if (merchant.livemode) throw new BadRequest('livemode_not_allowed', undefined, 'test helpers act in test mode only');
  const payment = await payments.getStoredPayment(ownerOf(merchant), paymentId);
  if (!payment || payment.status === 'processing') throw new NotFound();
  if (payment.status !== 'captured' && payment.status !== 'refunded')
    throw new InvalidState(undefined, `a ${payment.status} payment cannot be disputed`);
  const reason = body.reason ?? 'fraudulent';
  if (!payment.connector_id) {
    const change: DisputeChange = {
      object: 'dispute',
      status: 'needs_response',
      paymentReference: payment.provider_reference ?? payment.id,
      disputeReference: newId('dispute').replace('dis_', 'dp_sandbox_'),
      amount: payment.amount_captured,
      currency: payment.currency,
      reason,
      evidenceDueBy: new Date(clock.now() + 7 * 86_400_000).toISOString(),
    };
    await recordDisputeChange(payment as PaymentRecord, change, { source: 'provider_webhook', reference: change.disputeReference });
    return {
      payment_id: payment.id,
      provider: payment.provider,
      requested: true as const,
      dispute: await sandboxDisputeOf(payment, change.disputeReference),
    };
  }
  await askFakeForDispute(payment, reason);
  return { payment_id: payment.id, provider: payment.provider, requested: true as const, dispute: null };
}

async function sandboxDisputeOf(payment: StoredPayment, reference: string) {
  const { disputes } = await disputesStore.disputesAndRefundsOf(payment.id);
  const found = disputes.find((d) => d.provider_reference === reference);
  return found ? disputeObject(found) : null;
}

async function askFakeForDispute(payment: StoredPayment, reason: string): Promise<void> {
  const origin = payment.provider ? fakeOrigin(payment.provider) : undefined;
  if (!origin) {
    throw new BadRequest(
      'test_helper_unavailable',
      undefined,
      `${payment.provider} offers no API to dispute an existing test payment; use its dispute test card, or a local provider fake`,
    );
  }
  const answer = await fetch(`${origin}/_fake/disputes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ reference: payment.provider_reference, reason }),
    signal: AbortSignal.timeout(5_000),
  }).catch(() => undefined);
  if (!answer?.ok) throw new ProvidersUnavailable();
}
