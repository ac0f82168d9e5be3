import { PROVIDERS } from '../providers/types.ts';
import { readCells, sumBySortKey } from '../store/counters.ts';
import { clock } from './clock.ts';
import { dayOf } from './ledger.ts';

/** Windows are whole UTC days ending today: 24h = today, 7d = the last 7 days including today, … */
export const PERIODS = { '24h': 1, '7d': 7, '30d': 30, '90d': 90 } as const;
export type Period = keyof typeof PERIODS;

export interface AnalyticsQuery {
  period: Period;
  currency?: string;
}

function windowDays(period: Period): string[] {
  const today = Date.parse(`${dayOf(new Date(clock.now()).toISOString())}T00:00:00Z`);
  return Array.from({ length: PERIODS[period] }, (_, i) => dayOf(new Date(today - (PERIODS[period] - 1 - i) * 86_400_000).toISOString()));
}

const ratePct = (approvals: number, attempts: number) => (attempts > 0 ? Math.round((approvals / attempts) * 10_000) / 100 : 0);

/** The window's per-day, per-currency payment outcomes (PAY cells), summed across shards. */
interface OutcomeRow {
  day: string;
  currency: string;
  attempts: number;
  approvals: number;
  volume: number;
}

async function outcomes(merchantId: string, days: string[]): Promise<OutcomeRow[]> {
  const sums = sumBySortKey(await readCells(merchantId, 'PAY', days[0]!, `${days.at(-1)}~`));
  return [...sums].map(([sk, v]) => ({
    day: sk.split('#')[0]!,
    currency: sk.split('#')[1]!,
    attempts: v.attempts ?? 0,
    approvals: v.approvals ?? 0,
    volume: v.volume ?? 0,
  }));
}

/** The asked currency, else the one with the most payment attempts in the window (USD when there were none). */
function pickCurrency(requested: string | undefined, rows: Array<{ currency: string; attempts?: number }>): string {
  if (requested) return requested;
  const attempts = new Map<string, number>();
  for (const r of rows) attempts.set(r.currency, (attempts.get(r.currency) ?? 0) + (r.attempts ?? 0));
  return [...attempts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? 'USD';
}

export async function overview(merchantId: string, query: AnalyticsQuery) {
  const rows = await outcomes(merchantId, windowDays(query.period));
  const currency = pickCurrency(query.currency, rows);
  const mine = rows.filter((r) => r.currency === currency);
  const attempts = mine.reduce((n, r) => n + r.attempts, 0);
  const approvals = mine.reduce((n, r) => n + r.approvals, 0);
  return {
    object: 'analytics' as const,
    volume: mine.reduce((n, r) => n + r.volume, 0),
    transactions: approvals,
    attempts,
    approval_rate: ratePct(approvals, attempts),
    currency,
    period: query.period,
  };
}

/** Captured minus refunded per day, every day of the window present. */
export async function revenue(merchantId: string, query: AnalyticsQuery) {
  const days = windowDays(query.period);
  const [rev, rows] = await Promise.all([readCells(merchantId, 'REV', days[0]!, `${days.at(-1)}~`), query.currency ? [] : outcomes(merchantId, days)]);
  const sums = sumBySortKey(rev);
  const currency = pickCurrency(query.currency, rows.length ? rows : [...sums.keys()].map((sk) => ({ currency: sk.split('#')[1]!, attempts: 1 })));
  const by_day = days.map((date) => {
    const v = sums.get(`${date}#${currency}`) ?? {};
    return { date, amount: (v.captured ?? 0) - (v.refunded ?? 0) };
  });
  return { object: 'revenue' as const, total: by_day.reduce((n, d) => n + d.amount, 0), currency, period: query.period, by_day };
}

/** Per provider: approved volume, approval rate of authorization attempts, mean authorization latency (ms). */
export async function providers(merchantId: string, query: AnalyticsQuery) {
  const days = windowDays(query.period);
  const [cells, rows] = await Promise.all([readCells(merchantId, 'PROV', days[0]!, `${days.at(-1)}~`), query.currency ? [] : outcomes(merchantId, days)]);
  const currency = pickCurrency(query.currency, rows);
  const totals = new Map(PROVIDERS.map((p) => [p, { attempts: 0, approvals: 0, volume: 0, latency_sum: 0 }]));
  for (const cell of cells) {
    const [, cellCurrency, provider] = cell.sk.split('#');
    const t = totals.get(provider as (typeof PROVIDERS)[number]);
    if (!t || cellCurrency !== currency) continue;
    for (const k of ['attempts', 'approvals', 'volume', 'latency_sum'] as const) t[k] += cell.values[k] ?? 0;
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
