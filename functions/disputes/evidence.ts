import { submitDisputeEvidence } from '../../shared/domain/disputes.ts';
import { http } from '../../shared/http/index.ts';
import { DisputeEvidenceBody } from '../../shared/schemas/disputes.ts';
import { Dispute } from '../../shared/schemas/responses/disputes.ts';

export const handler = http(
  { auth: 'merchant', permission: 'disputes:write', params: { id: 'dispute' }, body: DisputeEvidenceBody, idempotent: true, response: Dispute },
  async ({ merchant, params, body, origin }) => submitDisputeEvidence(merchant, params.id, body, origin),
);
