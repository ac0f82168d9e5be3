import type { PageQuery } from '../store/pagination.ts';
import * as reconciliationStore from '../store/reconciliation.ts';
import type { ExceptionFilters, ExceptionRecord } from '../store/reconciliation.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { isoNow } from '../model/clock.ts';
import { NotFound } from '../model/errors.ts';
import { RECONCILIATION_EXCEPTION, transition } from '../model/state-machines.ts';

/** How the merchant settled a difference (docs/api.md "Reconciliation"). */
export const RESOLUTIONS = ['accepted', 'adjusted', 'claimed_from_provider', 'timing_difference', 'other'] as const;

export const exceptionView = (e: ExceptionRecord) => ({
  id: e.id,
  object: 'reconciliation_exception' as const,
  livemode: e.livemode,
  kind: e.kind,
  connector_id: e.connector_id,
  provider_payout_id: e.provider_payout_id,
  settlement_id: e.settlement_id,
  source: e.source,
  payment_id: e.payment_id,
  refund_id: e.refund_id,
  dispute_id: e.dispute_id,
  expected: e.expected,
  actual: e.actual,
  status: e.status,
  resolution: e.resolution,
  note: e.note,
  resolved_by: e.resolved_by,
  resolved_at: e.resolved_at,
  created_at: e.created_at,
});

export async function listExceptions(merchant: Merchant, filters: ExceptionFilters, page: PageQuery) {
  const result = await reconciliationStore.exceptionPage(ownerOf(merchant), filters, page);
  return { object: 'list' as const, data: result.data.map(exceptionView), has_more: result.has_more };
}

/** Resolves an open exception once, recording who (the API key, or the signed-in merchant), when, how and why. */
export async function resolveException(merchant: Merchant, id: string, body: { resolution: (typeof RESOLUTIONS)[number]; note?: string }) {
  const owner = ownerOf(merchant);
  const exception = await reconciliationStore.getException(owner, id);
  if (!exception) throw new NotFound();
  const step = transition('reconciliation exception', RECONCILIATION_EXCEPTION, 'resolve', exception.status);
  const fields: Partial<ExceptionRecord> = {
    resolution: body.resolution,
    note: body.note ?? null,
    resolved_by: merchant.apiKeyId ?? merchant.id,
    resolved_at: isoNow(),
  };
  if (!(await reconciliationStore.resolveException(exception, step, fields))) {
    const now = await reconciliationStore.getException(owner, id);
    transition('reconciliation exception', RECONCILIATION_EXCEPTION, 'resolve', now?.status ?? 'resolved');
  }
  return exceptionView({ ...exception, ...fields, status: step.to });
}
