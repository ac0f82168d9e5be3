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

export const Settlement = v.object({
  id: Id('settlement'),
  object: v.literal('settlement'),
  livemode: Livemode,
  amount: Amount,
  currency: Currency,
  status: v.picklist(['pending', 'paid']),
  arrival_date: CalendarDate,
  transactions: v.pipe(Count, v.description('payments whose captured funds it carries')),
  created_at: Timestamp,
  paid_at: v.nullable(Timestamp),
});

export const SettlementList = list(Settlement);

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

export const RevenueReport = v.object({
  object: v.literal('revenue'),
  livemode: Livemode,
  total: Revenue,
  currency: Currency,
  period: Period,
  by_day: v.array(v.object({ date: CalendarDate, amount: Revenue })),
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
