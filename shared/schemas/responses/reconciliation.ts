/** Reconciliation runs and exceptions as the API returns them (shared/domain/reconciliation.ts). */
import * as v from 'valibot';
import { EXCEPTION_KINDS } from '../../model/reconciliation.ts';
import { Id, list, Livemode, Timestamp } from './common.ts';

export const ReconciliationRun = v.object({
  object: v.literal('reconciliation_run'),
  connector_id: Id('connector'),
  livemode: Livemode,
  payouts_read: v.pipe(v.number(), v.integer(), v.description("the provider's payouts read since the account's last run")),
  settlements_created: v.pipe(v.array(Id('settlement')), v.description('one per payout not reconciled before (a second run creates none)')),
  lines_matched: v.pipe(v.number(), v.integer(), v.description('payout lines matched to a payment, refund or dispute')),
  exceptions_created: v.pipe(v.number(), v.integer()),
});

const Value = v.pipe(v.nullable(v.union([v.number(), v.string()])), v.description('an amount (minor units) or a currency; null: absent there'));

export const ReconciliationException = v.object({
  id: Id('reconciliationException'),
  object: v.literal('reconciliation_exception'),
  livemode: Livemode,
  kind: v.picklist(EXCEPTION_KINDS),
  connector_id: Id('connector'),
  provider_payout_id: v.string(),
  settlement_id: Id('settlement'),
  source: v.pipe(v.nullable(v.string()), v.description("the provider's id of the line (Stripe ch_…), null when the provider has no line")),
  payment_id: v.nullable(Id('payment')),
  refund_id: v.nullable(Id('refund')),
  dispute_id: v.nullable(Id('dispute')),
  expected: v.pipe(Value, v.description('what our records say')),
  actual: v.pipe(Value, v.description('what the provider paid or reported')),
  status: v.picklist(['open', 'resolved']),
  resolution: v.nullable(v.string()),
  note: v.nullable(v.string()),
  resolved_by: v.pipe(v.nullable(v.string()), v.description('the API key (key_…) or the signed-in merchant (mer_…) that resolved it')),
  resolved_at: v.nullable(Timestamp),
  created_at: Timestamp,
});

export const ReconciliationExceptionList = list(ReconciliationException);
