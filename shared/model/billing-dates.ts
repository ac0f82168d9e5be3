import { addDays as addDaysTo } from 'date-fns/addDays';
import { addMonths } from 'date-fns/addMonths';
import { differenceInCalendarDays } from 'date-fns/differenceInCalendarDays';
import { differenceInCalendarMonths } from 'date-fns/differenceInCalendarMonths';
import { formatISO } from 'date-fns/formatISO';
import { isValid } from 'date-fns/isValid';
import { parseISO } from 'date-fns/parseISO';

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

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** True for a real calendar date written `YYYY-MM-DD` from year 1 on (no Feb 30, no 2023-02-29). */
export const isCalendarDate = (value: string): boolean => DATE.test(value) && !value.startsWith('0000') && isValid(parseISO(value));

// date-fns works in local time: dates are read and written back in local time, so the machine's zone cancels out.
function toDate(date: string): Date {
  if (!isCalendarDate(date)) throw new Error(`not a calendar date: ${date}`);
  return parseISO(date);
}
const toText = (date: Date): string => formatISO(date, { representation: 'date' });

/** The UTC calendar date of an instant (epoch ms). */
export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export const addDays = (date: string, days: number): string => toText(addDaysTo(toDate(date), days));

/** Whole days from `a` to `b` (negative when `b` is earlier). */
export const daysBetween = (a: string, b: string): number => differenceInCalendarDays(toDate(b), toDate(a));

/** One interval in days, or in calendar months (whose day `addMonths` clamps to the target month's length). */
const LENGTH: Readonly<Record<Interval, { days: number } | { months: number }>> = {
  day: { days: 1 },
  week: { days: 7 },
  month: { months: 1 },
  year: { months: 12 },
};

/** The n-th billing date of the schedule (n = 0 is the anchor itself, n = 1 the first renewal). */
export function billingDate(schedule: Schedule, n: number): string {
  const length = LENGTH[schedule.interval];
  const count = schedule.interval_count * n;
  const anchor = toDate(schedule.anchor);
  return toText('days' in length ? addDaysTo(anchor, length.days * count) : addMonths(anchor, length.months * count));
}

/** The first renewal: start + one interval. */
export const firstBillingDate = (schedule: Schedule): string => billingDate(schedule, 1);

/** A lower estimate of the number of whole periods from the anchor to `date` (never above the true count). */
function periodsBefore(schedule: Schedule, date: string): number {
  const length = LENGTH[schedule.interval];
  const [anchor, until] = [toDate(schedule.anchor), toDate(date)];
  if ('days' in length) return Math.floor(differenceInCalendarDays(until, anchor) / (length.days * schedule.interval_count));
  return Math.floor(differenceInCalendarMonths(until, anchor) / (length.months * schedule.interval_count)) - 1;
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
