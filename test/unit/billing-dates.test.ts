import { describe, expect, it } from 'vitest';
import {
  addDays,
  billingDate,
  billingDateAfter,
  billingDateOnOrAfter,
  firstBillingDate,
  isCalendarDate,
  resumedNextBilling,
  type Schedule,
} from '../../shared/model/billing-dates.ts';

const schedule = (anchor: string, interval: Schedule['interval'], interval_count = 1): Schedule => ({ anchor, interval, interval_count });

/** The first `n` renewal dates, each computed the way the worker advances: the next date after the previous one. */
function renewals(s: Schedule, n: number): string[] {
  const dates = [firstBillingDate(s)];
  while (dates.length < n) dates.push(billingDateAfter(s, dates.at(-1)!));
  return dates;
}

describe('next_billing', () => {
  it('clamps a Jan 31 monthly schedule to month ends and comes back to the 31st (anchor day kept)', () => {
    expect(renewals(schedule('2025-01-31', 'month'), 6)).toEqual([
      '2025-02-28',
      '2025-03-31',
      '2025-04-30',
      '2025-05-31',
      '2025-06-30',
      '2025-07-31',
    ]);
    expect(renewals(schedule('2024-01-31', 'month'), 3)).toEqual(['2024-02-29', '2024-03-31', '2024-04-30']);
  });

  it('keeps a 30th and a 29th on their day except in February', () => {
    expect(renewals(schedule('2025-01-30', 'month'), 3)).toEqual(['2025-02-28', '2025-03-30', '2025-04-30']);
    expect(renewals(schedule('2023-12-29', 'month'), 3)).toEqual(['2024-01-29', '2024-02-29', '2024-03-29']);
  });

  it('bills a Feb 29 yearly schedule on Feb 28 in common years and Feb 29 in leap years', () => {
    expect(renewals(schedule('2024-02-29', 'year'), 5)).toEqual(['2025-02-28', '2026-02-28', '2027-02-28', '2028-02-29', '2029-02-28']);
    expect(renewals(schedule('2023-03-15', 'year'), 2)).toEqual(['2024-03-15', '2025-03-15']);
  });

  it('adds 7 days per week across month and year ends', () => {
    expect(renewals(schedule('2025-12-24', 'week'), 3)).toEqual(['2025-12-31', '2026-01-07', '2026-01-14']);
    expect(renewals(schedule('2024-02-22', 'week', 2), 2)).toEqual(['2024-03-07', '2024-03-21']);
  });

  it('adds days across Feb 28/29 and the year end', () => {
    expect(renewals(schedule('2024-02-27', 'day'), 4)).toEqual(['2024-02-28', '2024-02-29', '2024-03-01', '2024-03-02']);
    expect(renewals(schedule('2025-02-27', 'day'), 2)).toEqual(['2025-02-28', '2025-03-01']);
    expect(renewals(schedule('2025-12-30', 'day', 10), 2)).toEqual(['2026-01-09', '2026-01-19']);
  });

  it('counts interval_count months from the anchor: quarterly from Nov 30', () => {
    expect(renewals(schedule('2024-11-30', 'month', 3), 5)).toEqual(['2025-02-28', '2025-05-30', '2025-08-30', '2025-11-30', '2026-02-28']);
    expect(billingDate(schedule('2024-11-30', 'month', 3), 0)).toBe('2024-11-30');
  });

  it('twelve months equal one year, also from Feb 29', () => {
    const months = schedule('2024-02-29', 'month', 12);
    const years = schedule('2024-02-29', 'year');
    expect(renewals(months, 5)).toEqual(renewals(years, 5));
  });
});

describe('resuming', () => {
  const monthly = schedule('2025-01-31', 'month');

  it('moves next_billing to the next future schedule date', () => {
    // Paused with next_billing 2025-02-28, resumed on 2025-05-10: Feb, Mar, Apr are skipped
    expect(resumedNextBilling(monthly, '2025-02-28', '2025-05-10')).toBe('2025-05-31');
    // Resumed on a billing day: that day is skipped too, nothing is charged at once
    expect(resumedNextBilling(monthly, '2025-02-28', '2025-04-30')).toBe('2025-05-31');
    // Resumed the day before a billing day: due tomorrow
    expect(resumedNextBilling(monthly, '2025-02-28', '2025-04-29')).toBe('2025-04-30');
    expect(resumedNextBilling(schedule('2025-03-01', 'week'), '2025-03-08', '2025-03-20')).toBe('2025-03-22');
    expect(resumedNextBilling(schedule('2025-03-01', 'day', 3), '2025-03-04', '2025-03-20')).toBe('2025-03-22');
  });

  it('keeps next_billing when it is still ahead (nothing is billed twice, nothing early)', () => {
    expect(resumedNextBilling(monthly, '2025-03-31', '2025-03-02')).toBe('2025-03-31');
  });

  it('finds dates far from the anchor', () => {
    expect(billingDateOnOrAfter(schedule('2000-01-31', 'month'), '2100-02-01')).toBe('2100-02-28');
    expect(billingDateOnOrAfter(schedule('2000-02-29', 'year'), '2099-06-01')).toBe('2100-02-28');
    expect(billingDateOnOrAfter(schedule('2024-01-01', 'week', 52), '2024-01-01')).toBe('2024-12-30');
  });
});

describe('calendar dates', () => {
  it.each([
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2025-04-31', false],
    ['2025-13-01', false],
    ['2025-1-01', false],
    ['2025-01-01T00:00:00Z', false],
  ])('%s is a calendar date: %s', (date, valid) => expect(isCalendarDate(date)).toBe(valid));

  it('adds days', () => expect(addDays('2024-02-28', 1)).toBe('2024-02-29'));
});
