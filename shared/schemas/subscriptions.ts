import * as v from 'valibot';
import { addDays, INTERVALS, isCalendarDate, MAX_INTERVAL_COUNT, utcDate } from '../model/billing-dates.ts';
import { MAX_RENEWAL_RUNS } from '../domain/recovery-policy.ts';
import { clock } from '../model/clock.ts';
import { exampleId, idPattern } from '../model/ids.ts';
import { listQuery, Metadata } from './common.ts';
import { Amount, Currency } from './payments.ts';

export const SUBSCRIPTION_STATUSES = ['active', 'paused', 'past_due', 'cancelled'] as const;

/** How far ahead a subscription may start. */
export const MAX_START_DAYS_AHEAD = 366;

const CalendarDate = v.pipe(v.string(), v.check(isCalendarDate, 'a real calendar date YYYY-MM-DD'));

/** Today (UTC) or later, at most a year ahead. */
const StartDate = v.pipe(
  CalendarDate,
  v.check((d) => d >= utcDate(clock.now()), 'a date from today (UTC) on'),
  v.check((d) => d <= addDays(utcDate(clock.now()), MAX_START_DAYS_AHEAD), 'a date at most 366 days ahead'),
);

const PaymentMethodId = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(64),
  v.description("a card saved for the customer (pm_…) that renewals charge; default: the customer's default payment method"),
  v.examples([exampleId('paymentMethod')]),
);

const Plan = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200), v.examples(['Pro monthly']));

export const CreateSubscriptionBody = v.pipe(
  v.object({
    // Any string: an id that is not the merchant's customer (whatever its shape) answers resource_missing.
    customer_id: v.pipe(v.string(), v.minLength(1), v.maxLength(64), v.examples([exampleId('customer')])),
    payment_method: v.optional(PaymentMethodId),
    plan: Plan,
    amount: Amount,
    currency: Currency,
    interval: v.pipe(v.picklist(INTERVALS), v.examples(['month' as const])),
    interval_count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(365)), 1),
    start_date: v.optional(StartDate),
    metadata: v.optional(Metadata),
  }),
  // At most a year per period: 365 days, 52 weeks, 12 months, 1 year.
  v.forward(
    v.partialCheck(
      [['interval'], ['interval_count']],
      (s) => s.interval_count <= MAX_INTERVAL_COUNT[s.interval],
      'must keep a period to a year at most: 365 days, 52 weeks, 12 months or 1 year',
    ),
    ['interval_count'],
  ),
);

/** The terms a merchant may change: they apply from the next period (the next renewal bills them). */
export const UpdateSubscriptionBody = v.object({
  payment_method: v.optional(PaymentMethodId),
  plan: v.optional(Plan),
  amount: v.optional(Amount),
  /** replaces the metadata as a whole */
  metadata: v.optional(Metadata),
  cancel_at_period_end: v.optional(
    v.pipe(v.boolean(), v.description('true: cancelled on its next billing date instead of renewing; false: renews again')),
  ),
});

export const ListSubscriptionsQuery = listQuery('subscription', {
  status: v.optional(v.picklist(SUBSCRIPTION_STATUSES)),
  customer_id: v.optional(v.pipe(v.string(), v.regex(idPattern('customer'), 'a customer id'))),
});

/**
 * A message of the `renewals` queue: renew one period of one subscription. `attempt` 0 (or absent) is the renewal on
 * the due date; later ones are the retries recovery-policy.ts schedules after a decline.
 */
export const RenewalMessage = v.object({
  subscription_id: v.pipe(v.string(), v.regex(idPattern('subscription'), 'a subscription id')),
  period_start: CalendarDate,
  attempt: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_RENEWAL_RUNS - 1)), 0),
});
export type RenewalMessage = v.InferOutput<typeof RenewalMessage>;
/** As it travels: a first renewal's message carries no `attempt`. */
export type RenewalMessageBody = v.InferInput<typeof RenewalMessage>;
