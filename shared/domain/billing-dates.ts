/**
 * Calendar arithmetic of billing schedules, on `YYYY-MM-DD` dates in UTC. Pure: "today" is passed in.
 *
 * A schedule is anchored on its start date and every billing date is computed from the ANCHOR, never from the
 * previous billing date (Stripe's billing anchor): a month-end start clamps in short months and comes back in long
 * ones, Jan 31 → Feb 28 (29 in leap years) → Mar 31 → Apr 30; a Feb 29 yearly start bills Feb 28 in common years and
 * Feb 29 in leap years.
 */
export const INTERVALS = ['day', 'week', 'month', 'year'] as const;
export type Interval = (typeof INTERVALS)[number];

/** Longest period per interval: at most one year, like Stripe (365 days, 52 weeks, 12 months, 1 year). */
export const MAX_INTERVAL_COUNT: Readonly<Record<Interval, number>> = { day: 365, week: 52, month: 12, year: 1 };

export interface Schedule {
  /** the start date: billing dates are `anchor + n × interval_count intervals` */
  anchor: string;
  interval: Interval;
  interval_count: number;
}

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

interface Ymd {
  y: number;
  /** 1–12 */
  m: number;
  d: number;
}

/** True for a real calendar date written `YYYY-MM-DD` (no Feb 30, no 2023-02-29). */
export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m);
}

function parse(date: string): Ymd {
  if (!isCalendarDate(date)) throw new Error(`not a calendar date: ${date}`);
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return { y, m, d };
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const format = ({ y, m, d }: Ymd): string => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;

export const daysInMonth = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();

const toDays = (date: string): number => {
  const { y, m, d } = parse(date);
  return Date.UTC(y, m - 1, d) / DAY_MS;
};
const fromDays = (days: number): string => new Date(days * DAY_MS).toISOString().slice(0, 10);

/** The UTC calendar date of an instant (epoch ms). */
export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export const addDays = (date: string, days: number): string => fromDays(toDays(date) + days);

/** Whole days from `a` to `b` (negative when `b` is earlier). */
export const daysBetween = (a: string, b: string): number => toDays(b) - toDays(a);

/** `anchor` + `months` calendar months, the day clamped to the target month's length. */
function addMonthsClamped(anchor: Ymd, months: number): string {
  const index = anchor.y * 12 + (anchor.m - 1) + months;
  const y = Math.floor(index / 12);
  const m = (index % 12) + 1;
  return format({ y, m, d: Math.min(anchor.d, daysInMonth(y, m)) });
}

/** The n-th billing date of the schedule (n = 0 is the anchor itself, n = 1 the first renewal). */
export function billingDate(schedule: Schedule, n: number): string {
  const count = schedule.interval_count * n;
  switch (schedule.interval) {
    case 'day':
      return addDays(schedule.anchor, count);
    case 'week':
      return addDays(schedule.anchor, 7 * count);
    case 'month':
      return addMonthsClamped(parse(schedule.anchor), count);
    case 'year':
      return addMonthsClamped(parse(schedule.anchor), 12 * count);
  }
}

/** The first renewal: start + one interval. */
export const firstBillingDate = (schedule: Schedule): string => billingDate(schedule, 1);

/** A lower estimate of the number of whole periods from the anchor to `date` (never above the true count). */
function periodsBefore(schedule: Schedule, date: string): number {
  const a = parse(schedule.anchor);
  const b = parse(date);
  switch (schedule.interval) {
    case 'day':
      return Math.floor(daysBetween(schedule.anchor, date) / schedule.interval_count);
    case 'week':
      return Math.floor(daysBetween(schedule.anchor, date) / (7 * schedule.interval_count));
    case 'month':
      return Math.floor(((b.y - a.y) * 12 + (b.m - a.m)) / schedule.interval_count) - 1;
    case 'year':
      return Math.floor((b.y - a.y) / schedule.interval_count) - 1;
  }
}

/** The earliest renewal date (n ≥ 1) that is on or after `date`. */
export function billingDateOnOrAfter(schedule: Schedule, date: string): string {
  let n = Math.max(1, periodsBefore(schedule, date));
  for (;;) {
    const candidate = billingDate(schedule, n);
    if (candidate >= date) return candidate;
    n++;
  }
}

/** The earliest renewal date (n ≥ 1) strictly after `date`: where `next_billing` goes once `date`'s period renewed. */
export const billingDateAfter = (schedule: Schedule, date: string): string => billingDateOnOrAfter(schedule, addDays(date, 1));

/**
 * Where a resumed subscription bills next: the next future date of its schedule (after today, so resuming never
 * charges at once) and not before the renewal it was waiting for (a period already billed is never billed again;
 * periods missed while paused, today's included, are skipped, not billed).
 */
export const resumedNextBilling = (schedule: Schedule, nextBilling: string, today: string): string => {
  const tomorrow = addDays(today, 1);
  return billingDateOnOrAfter(schedule, nextBilling > tomorrow ? nextBilling : tomorrow);
};

/** Days after a failed renewal's due date on which the charge is retried. */
export const RETRY_DAYS = [1, 3, 5] as const;
