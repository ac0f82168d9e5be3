/** Balance, settlements and analytics as the API returns them (shared/domain/balance.ts, settlements.ts, analytics.ts). */
import * as v from 'valibot';
import { PERIODS } from '../../domain/analytics.ts';
import { PROVIDERS } from '../../providers/types.ts';
import { Amount, CalendarDate, Count, Currency, Id, list, Livemode, Timestamp } from './common.ts';

const Funds = v.array(v.object({ amount: Amount, currency: Currency }));
/** Available funds go negative when refunds exceed what has not been paid out yet (money already settled). */
const AvailableFunds = v.array(
  v.object({
    amount: v.pipe(v.number(), v.integer(), v.description('minor units; negative while refunds exceed the funds not yet settled')),
    currency: Currency,
  }),
);

export const Balance = v.object({ object: v.literal('balance'), livemode: Livemode, available: AvailableFunds, pending: Funds });

const Signed = v.pipe(v.number(), v.integer(), v.description('minor units; negative when taken from the settlement'));

/** One line of a provider's payout: what moved money, matched to our payment, refund or dispute by the provider's reference. */
export const SettlementLine = v.object({
  type: v.picklist(['charge', 'refund', 'dispute', 'fee', 'adjustment']),
  amount: Signed,
  fee: v.pipe(v.number(), v.integer(), v.description("the provider's fee on this line (minor units)")),
  net: Signed,
  source: v.pipe(v.string(), v.description("the provider's id of what moved the money (Stripe ch_…, re_…, dp_…)"), v.examples(['ch_3Pq…'])),
  payment_id: v.nullable(Id('payment')),
  refund_id: v.nullable(Id('refund')),
  dispute_id: v.nullable(Id('dispute')),
});

/**
 * A settlement: the sandbox's simulated one (the daily job's sweep of available funds: no connector, no fees, no
 * lines), or a connector account's payout as its provider made it, with its lines and real fees.
 */
const settlementEntries = {
  id: Id('settlement'),
  object: v.literal('settlement'),
  livemode: Livemode,
  amount: v.pipe(Amount, v.description('what the settlement pays: its net')),
  currency: Currency,
  status: v.picklist(['pending', 'paid']),
  arrival_date: CalendarDate,
  transactions: v.pipe(Count, v.description('payments whose captured funds it carries')),
  connector_id: v.pipe(
    v.nullable(Id('connector')),
    v.description("the connector account whose provider paid it out; null: the sandbox's simulated settlement"),
  ),
  provider_payout_id: v.pipe(v.nullable(v.string()), v.description("the provider's id of the payout (Stripe po_…)"), v.examples(['po_1Pgc79…'])),
  gross: Signed,
  fees: v.pipe(v.number(), v.integer(), v.description("the providers' fees it paid (minor units)")),
  net: Signed,
  created_at: Timestamp,
  paid_at: v.nullable(Timestamp),
};
export const SettlementSummary = v.object(settlementEntries);
export const Settlement = v.object({ ...settlementEntries, lines: v.array(SettlementLine) });

export const SettlementList = list(SettlementSummary);

const Period = v.picklist(Object.keys(PERIODS) as (keyof typeof PERIODS)[]);
/** approved ÷ attempted × 100, two decimals; 0 without attempts */
const ApprovalRate = v.pipe(v.number(), v.minValue(0), v.maxValue(100), v.examples([91.67]));
/** Captured minus refunded: negative on a day with more refunds than captures. */
const Revenue = v.pipe(v.number(), v.integer(), v.examples([4000]));

export const AnalyticsOverview = v.object({
  object: v.literal('analytics'),
  livemode: Livemode,
  volume: Amount,
  transactions: v.pipe(Count, v.description('approved payments')),
  attempts: Count,
  approval_rate: ApprovalRate,
  currency: Currency,
  period: Period,
});

/** The providers' fees booked from their payouts (reconciliation), per day of the movement they were taken on. */
const Fees = v.pipe(v.number(), v.integer(), v.description("the providers' fees booked from their payouts, minor units"));

export const RevenueReport = v.object({
  object: v.literal('revenue'),
  livemode: Livemode,
  total: Revenue,
  fees: Fees,
  net: v.pipe(Revenue, v.description('total minus fees')),
  currency: Currency,
  period: Period,
  by_day: v.array(v.object({ date: CalendarDate, amount: Revenue, fees: Fees })),
});

const RecoveryRate = v.pipe(v.number(), v.minValue(0), v.maxValue(100), v.description('recovered ÷ failed × 100, two decimals'), v.examples([62.5]));
const recoveryEntries = {
  failed: v.pipe(Count, v.description('renewals whose first charge declined, on the day it declined')),
  recovered: v.pipe(
    Count,
    v.description('renewals paid after a decline (a retry, another account, an updated card, the payment link), on the day paid'),
  ),
  recovery_rate: RecoveryRate,
  recovered_revenue: v.pipe(Amount, v.description('what the recovered renewals brought in, minor units')),
};

export const RecoveryReport = v.object({
  object: v.literal('recovery'),
  livemode: Livemode,
  currency: Currency,
  period: Period,
  ...recoveryEntries,
  by_decline_code: v.array(
    v.object({
      decline_code: v.pipe(v.string(), v.description("the renewal's first decline"), v.examples(['insufficient_funds'])),
      ...recoveryEntries,
    }),
  ),
});

export const ProviderReport = v.object({
  object: v.literal('list'),
  currency: Currency,
  period: Period,
  data: v.array(
    v.object({
      provider: v.picklist(PROVIDERS),
      volume: Amount,
      attempts: Count,
      approval_rate: ApprovalRate,
      latency: v.pipe(Count, v.description('mean authorization latency, ms')),
    }),
  ),
});
