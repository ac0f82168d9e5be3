/**
 * The merchant's answer to a dispute through Stripe's SDK, under our idempotency key: our evidence fields are Stripe's
 * own, sent with `submit: true` (to the card network at once); accepting is Stripe's close (the dispute is then `lost`).
 */
import type Stripe from 'stripe';
import { providerDeadlines } from '../deadlines.ts';
import { DISPUTE_EVIDENCE_FIELDS, type DisputeEvidence, type OperationResult } from '../types.ts';
import { operationFailure, send } from './client.ts';

const timeout = providerDeadlines.operationMs;

export async function submitEvidence(
  stripe: Stripe,
  disputeReference: string,
  evidence: DisputeEvidence,
  idempotencyKey: string,
): Promise<OperationResult> {
  const fields = Object.fromEntries(DISPUTE_EVIDENCE_FIELDS.flatMap((field) => (evidence[field] === undefined ? [] : [[field, evidence[field]]])));
  const sent = await send(() => stripe.disputes.update(disputeReference, { evidence: fields, submit: true }, { idempotencyKey, timeout }));
  return sent.ok ? { ok: true, reference: sent.value.id } : operationFailure(sent);
}

export async function acceptDispute(stripe: Stripe, disputeReference: string, idempotencyKey: string): Promise<OperationResult> {
  const sent = await send(() => stripe.disputes.close(disputeReference, {}, { idempotencyKey, timeout }));
  return sent.ok ? { ok: true, reference: sent.value.id } : operationFailure(sent);
}
