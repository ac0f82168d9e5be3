import { PROVIDERS } from '../providers/types.ts';
import * as ledger from '../store/ledger.ts';
import type { OutcomeRow } from '../store/ledger.ts';
import { clock } from '../model/clock.ts';
import { type Merchant, ownerOf } from './auth.ts';
import type { Owner } from '../model/targets.ts';

/** Windows are whole UTC days ending today: 24h = today, 7d = the last 7 days including today, … */
export const PERIODS = { '24h': 1, '7d': 7, '30d': 30, '90d': 90 } as const;
export type Period = keyof typeof PERIODS;

export interface AnalyticsQuery {
  period: Period;
  currency?: string;
}

function windowDays(period: Period): string[] {
  const today = Date.parse(`${ledger.dayOf(new Date(clock.now()).toISOString())}T00:00:00Z`);
  return Array.from({ length: PERIODS[period] }, (_, i) => ledger.dayOf(new Date(today - (PERIODS[period] - 1 - i) * 86_400_000).toISOString()));
}

const ratePct = (approvals: number, attempts: number) => (attempts > 0 ? Math.round((approvals / attempts) * 10_000) / 100 : 0);

/** The window's per-day, per-currency payment outcomes, summed across shards. */
const outcomes = (owner: Owner, days: string[]): Promise<OutcomeRow[]> => ledger.readOutcomes(owner, days[0]!, days.at(-1)!);

/** The asked currency, else the one with the most payment attempts in the window (USD when there were none). */
function pickCurrency(requested: string | undefined, rows: Array<{ currency: string; attempts?: number }>): string {
  if (requested) return requested;
  const attempts = new Map<string, number>();
  for (const r of rows) attempts.set(r.currency, (attempts.get(r.currency) ?? 0) + (r.attempts ?? 0));
  return [...attempts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? 'USD';
}

export async function overview(merchant: Merchant, query: AnalyticsQuery) {
  const rows = await outcomes(ownerOf(merchant), windowDays(query.period));
  const currency = pickCurrency(query.currency, rows);
  const mine = rows.filter((r) => r.currency === currency);
  const attempts = mine.reduce((n, r) => n + r.attempts, 0);
  const approvals = mine.reduce((n, r) => n + r.approvals, 0);
  return {
    object: 'analytics' as const,
    livemode: merchant.livemode,
    volume: mine.reduce((n, r) => n + r.volume, 0),
    transactions: approvals,
    attempts,
    approval_rate: ratePct(approvals, attempts),
    currency,
    period: query.period,
  };
}

/**
 * Captured minus refunded and disputed (a won dispute gives its amount back) per day, every day of the window present,
 * with the providers' fees booked from their payouts on the days of the movements they were taken on.
 */
export async function revenue(merchant: Merchant, query: AnalyticsQuery) {
  const days = windowDays(query.period);
  const [rev, rows] = await Promise.all([
    ledger.readRevenue(ownerOf(merchant), days[0]!, days.at(-1)!),
    query.currency ? [] : outcomes(ownerOf(merchant), days),
  ]);
  const currency = pickCurrency(query.currency, rows.length ? rows : rev.map((r) => ({ currency: r.currency, attempts: 1 })));
  const by_day = days.map((date) => {
    const v = rev.find((r) => r.day === date && r.currency === currency);
    return { date, amount: (v?.captured ?? 0) - (v?.refunded ?? 0) - (v?.disputed ?? 0), fees: v?.fees ?? 0 };
  });
  const total = by_day.reduce((n, d) => n + d.amount, 0);
  const fees = by_day.reduce((n, d) => n + d.fees, 0);
  return {
    object: 'revenue' as const,
    livemode: merchant.livemode,
    total,
    fees,
    net: total - fees,
    currency,
    period: query.period,
    by_day,
  };
}

/** Per provider: approved volume, approval rate of authorization attempts, mean authorization latency (ms). */
export async function providers(merchant: Merchant, query: AnalyticsQuery) {
  const days = windowDays(query.period);
  const { payments, providers: cells } = await ledger.readProviderOutcomes(ownerOf(merchant), days[0]!, days.at(-1)!);
  const currency = pickCurrency(query.currency, payments);
  const totals = new Map(PROVIDERS.map((p) => [p, { attempts: 0, approvals: 0, volume: 0, latency_sum: 0 }]));
  for (const cell of cells) {
    const t = totals.get(cell.provider as (typeof PROVIDERS)[number]);
    if (!t || cell.currency !== currency) continue;
    for (const k of ['attempts', 'approvals', 'volume', 'latency_sum'] as const) t[k] += cell[k];
  }
  return {
    object: 'list' as const,
    currency,
    period: query.period,
    data: [...totals].map(([provider, t]) => ({
      provider,
      volume: t.volume,
      attempts: t.attempts,
      approval_rate: ratePct(t.approvals, t.attempts),
      latency: t.attempts > 0 ? Math.round(t.latency_sum / t.attempts) : 0,
    })),
  };
}

/**
 * Subscription recovery over the window: renewals that declined (by their first decline code) and those paid after
 * all, with the revenue that brought back. The currency asked, else the one with the most declines.
 */
export async function recovery(merchant: Merchant, query: AnalyticsQuery) {
  const days = windowDays(query.period);
  const rows = await ledger.readRecovery(ownerOf(merchant), days[0]!, days.at(-1)!);
  const failedIn = (r: ledger.RecoveryRow) => Object.values(r.byCode).reduce((n, c) => n + c.failed, 0);
  const currency = pickCurrency(
    query.currency,
    rows.map((r) => ({ currency: r.currency, attempts: failedIn(r) })),
  );
  const codes = new Map<string, { failed: number; recovered: number; recovered_revenue: number }>();
  for (const row of rows.filter((r) => r.currency === currency)) {
    for (const [code, c] of Object.entries(row.byCode)) {
      const sum = codes.get(code) ?? { failed: 0, recovered: 0, recovered_revenue: 0 };
      codes.set(code, {
        failed: sum.failed + c.failed,
        recovered: sum.recovered + c.recovered,
        recovered_revenue: sum.recovered_revenue + c.recovered_amount,
      });
    }
  }
  const entry = (c: { failed: number; recovered: number; recovered_revenue: number }) => ({ ...c, recovery_rate: ratePct(c.recovered, c.failed) });
  const by = [...codes].sort((a, b) => b[1].failed - a[1].failed || (a[0] < b[0] ? -1 : 1));
  const total = by.reduce(
    (t, [, c]) => ({
      failed: t.failed + c.failed,
      recovered: t.recovered + c.recovered,
      recovered_revenue: t.recovered_revenue + c.recovered_revenue,
    }),
    {
      failed: 0,
      recovered: 0,
      recovered_revenue: 0,
    },
  );
  return {
    object: 'recovery' as const,
    livemode: merchant.livemode,
    currency,
    period: query.period,
    ...entry(total),
    by_decline_code: by.map(([decline_code, c]) => ({ decline_code, ...entry(c) })),
  };
}
