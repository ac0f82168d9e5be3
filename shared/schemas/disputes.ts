import * as v from 'valibot';
import { DISPUTE_EVIDENCE_FIELDS, DISPUTE_REASONS } from '../providers/types.ts';
import { listQuery } from './common.ts';

export const ListDisputesQuery = listQuery('dispute');

const EvidenceText = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(20_000));

/** The merchant's text evidence: any of Stripe's text fields (DISPUTE_EVIDENCE_FIELDS), at least one. */
export const DisputeEvidenceBody = v.pipe(
  v.strictObject(
    Object.fromEntries(DISPUTE_EVIDENCE_FIELDS.map((field) => [field, v.optional(EvidenceText)])) as Record<
      (typeof DISPUTE_EVIDENCE_FIELDS)[number],
      v.OptionalSchema<typeof EvidenceText, undefined>
    >,
  ),
  v.check((evidence) => Object.values(evidence).some((text) => text !== undefined), `give at least one of ${DISPUTE_EVIDENCE_FIELDS.join(', ')}`),
  v.examples([{ product_description: 'Annual plan, delivered by e-mail on 2026-11-02', shipping_tracking_number: '1Z999AA10123456784' }]),
);

export const OpenTestDisputeBody = v.object({
  reason: v.optional(v.pipe(v.picklist(DISPUTE_REASONS), v.examples(['fraudulent' as const]))),
});
