/**
 * The merchant's answer to a dispute through Braintree's GraphQL API. Braintree deduplicates nothing, so each action
 * reads the dispute first (or after a refusal): evidence already there, a dispute already finalized or accepted, is
 * an earlier call under the same key whose answer was lost. Every mutation carries our key as `clientMutationId`.
 */
import { providerDeadlines } from '../deadlines.ts';
import { failedOperation } from '../failures.ts';
import { DISPUTE_EVIDENCE_FIELDS, type DisputeEvidence, type OperationResult } from '../types.ts';
import { type Answer, type Endpoint, post } from './client.ts';
import { ACCEPT_DISPUTE, CREATE_DISPUTE_TEXT_EVIDENCE, DISPUTE_BY_ID, FINALIZE_DISPUTE } from './queries.ts';
import { failedCall } from './transactions.ts';

interface WireDisputeState {
  id: string;
  status?: string | null;
  evidence?: Array<{ id: string; content?: string | null }> | null;
}

/** Evidence went to the processor: finalized by us (DISPUTED) or already in its hands. */
const SUBMITTED = new Set(['DISPUTED', 'UNDER_REVIEW']);

const signal = () => AbortSignal.timeout(providerDeadlines.operationMs);

/** Each of our fields becomes one text evidence, labelled with the field's name: "product_description: …". */
export const evidenceContent = (field: string, text: string) => `${field}: ${text}`;

async function readDispute(endpoint: Endpoint, disputeId: string): Promise<Answer<WireDisputeState | null>> {
  const answer = await post<{ node: WireDisputeState | null }>(endpoint, DISPUTE_BY_ID, { id: disputeId }, signal());
  if (!answer.ok && answer.errorClass === 'NOT_FOUND') return { ok: true, data: null };
  return answer.ok ? { ok: true, data: answer.data.node } : answer;
}

const noSuchDispute = (disputeId: string): OperationResult => ({ ok: false, reason: 'refused', message: `Braintree has no dispute ${disputeId}.` });

export async function submitEvidence(endpoint: Endpoint, disputeId: string, evidence: DisputeEvidence, key: string): Promise<OperationResult> {
  const now = await readDispute(endpoint, disputeId);
  if (!now.ok) return failedOperation(now.failure);
  if (!now.data) return noSuchDispute(disputeId);
  const status = now.data.status ?? '';
  if (SUBMITTED.has(status)) return { ok: true, reference: disputeId };
  if (status !== 'OPEN') return { ok: false, reason: 'refused', message: `Dispute is ${status.toLowerCase()}: only an open dispute takes evidence.` };

  const present = new Set((now.data.evidence ?? []).map((e) => e.content));
  for (const field of DISPUTE_EVIDENCE_FIELDS) {
    const text = evidence[field];
    if (!text || present.has(evidenceContent(field, text))) continue;
    const added = await post(
      endpoint,
      CREATE_DISPUTE_TEXT_EVIDENCE,
      { input: { clientMutationId: key, disputeId, content: evidenceContent(field, text) } },
      signal(),
    );
    if (!added.ok) return failedCall(added);
  }
  const finalized = await post(endpoint, FINALIZE_DISPUTE, { input: { clientMutationId: key, disputeId } }, signal());
  return finalized.ok ? { ok: true, reference: disputeId } : failedCall(finalized);
}

export async function acceptDispute(endpoint: Endpoint, disputeId: string, key: string): Promise<OperationResult> {
  const accepted = await post(endpoint, ACCEPT_DISPUTE, { input: { clientMutationId: key, disputeId } }, signal());
  if (accepted.ok) return { ok: true, reference: disputeId };
  if (accepted.errorClass === 'NOT_FOUND') return noSuchDispute(disputeId);
  const refused = failedCall(accepted);
  if (refused.reason !== 'refused') return refused;
  // Refused because it is no longer open: accepted already (an earlier call whose answer was lost) is the same accept.
  const now = await readDispute(endpoint, disputeId);
  return now.ok && now.data?.status === 'ACCEPTED' ? { ok: true, reference: disputeId } : refused;
}
