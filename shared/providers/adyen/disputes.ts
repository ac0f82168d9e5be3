/**
 * A dispute's defense and acceptance through Adyen's Disputes API v30 (dispute-client.ts), naming it by its
 * `disputePspReference` (our dispute's provider reference). The defense reason is the first applicable one that takes
 * `DefenseMaterial`, else the first with its first required document type; the merchant's text goes as one PDF of that
 * type (evidence-pdf.ts). Calls that change the dispute carry keys derived from ours (Adyen takes `Idempotency-Key` on
 * every POST). A `disputeServiceResult` with `success: false` (closed, accepted, period over) is refused, with its message.
 */
import { providerDeadlines } from '../deadlines.ts';
import { within } from '../transport.ts';
import type { DisputeEvidence, OperationResult } from '../types.ts';
import { adyenKey, type Answer, derivedKey, operationFailure, send } from './client.ts';
import type { DisputeClient } from './dispute-client.ts';
import type { components } from './dispute-v30.d.ts';

type DefenseReason = components['schemas']['DefenseReason'];
type Result = { disputeServiceResult: components['schemas']['DisputeServiceResult'] };

const GENERIC_DOCUMENT = 'DefenseMaterial';

const idempotent = (key: string) => ({ 'Idempotency-Key': key });

/** A step's answer: undefined when Adyen did it, else the OperationResult to stop with. */
function failureOf(answer: Answer<Result>): OperationResult | undefined {
  if (!answer.ok) return operationFailure(answer);
  const { success, errorMessage } = answer.data.disputeServiceResult;
  return success ? undefined : { ok: false, reason: 'refused', message: errorMessage || 'Adyen refused the dispute action' };
}

/** The defense reason to use and the document type to supply under it, or undefined when Adyen offers none. */
export function chooseDefense(reasons: DefenseReason[]): { reason: string; documentType: string } | undefined {
  const generic = reasons.find((r) => r.defenseDocumentTypes?.some((d) => d.defenseDocumentTypeCode === GENERIC_DOCUMENT));
  if (generic) return { reason: generic.defenseReasonCode, documentType: GENERIC_DOCUMENT };
  const [first] = reasons;
  if (!first) return undefined;
  const types = first.defenseDocumentTypes ?? [];
  const documentType = (types.find((d) => d.requirementLevel === 'Required') ?? types[0])?.defenseDocumentTypeCode ?? GENERIC_DOCUMENT;
  return { reason: first.defenseReasonCode, documentType };
}

export async function submitEvidence(
  client: DisputeClient,
  merchantAccountCode: string,
  disputePspReference: string,
  evidence: DisputeEvidence,
  idempotencyKey: string,
): Promise<OperationResult> {
  const dispute = { merchantAccountCode, disputePspReference };
  const reasons = await send(
    (signal) => client.POST('/retrieveApplicableDefenseReasons', { body: dispute, signal }),
    within(providerDeadlines.operationMs),
  );
  if (!reasons.ok || !reasons.data.disputeServiceResult.success) return failureOf(reasons)!;
  const defense = chooseDefense(reasons.data.defenseReasons ?? []);
  if (!defense) return { ok: false, reason: 'refused', message: 'Adyen offers no defense reason for this dispute' };

  // pdf-lib is loaded for the one call that needs it, not at the cold start of every function that can reach Adyen
  const { evidencePdf } = await import('./evidence-pdf.ts');
  const content = await evidencePdf(disputePspReference, evidence);
  const supplied = await send(
    (signal) =>
      client.POST('/supplyDefenseDocument', {
        body: { ...dispute, defenseDocuments: [{ defenseDocumentTypeCode: defense.documentType, contentType: 'application/pdf', content }] },
        headers: idempotent(derivedKey(idempotencyKey, 'document')),
        signal,
      }),
    within(providerDeadlines.operationMs),
  );
  const refusedDocument = failureOf(supplied);
  if (refusedDocument) return refusedDocument;

  const defended = await send(
    (signal) =>
      client.POST('/defendDispute', {
        body: { ...dispute, defenseReasonCode: defense.reason },
        headers: idempotent(adyenKey(idempotencyKey)),
        signal,
      }),
    within(providerDeadlines.operationMs),
  );
  return failureOf(defended) ?? { ok: true, reference: disputePspReference };
}

export async function acceptDispute(
  client: DisputeClient,
  merchantAccountCode: string,
  disputePspReference: string,
  idempotencyKey: string,
): Promise<OperationResult> {
  const accepted = await send(
    (signal) =>
      client.POST('/acceptDispute', {
        body: { merchantAccountCode, disputePspReference },
        headers: idempotent(adyenKey(idempotencyKey)),
        signal,
      }),
    within(providerDeadlines.operationMs),
  );
  return failureOf(accepted) ?? { ok: true, reference: disputePspReference };
}
