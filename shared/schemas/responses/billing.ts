/** Subscriptions and invoices as the API returns them (shared/domain/subscriptions.ts, invoices.ts). */
import * as v from 'valibot';
import { INTERVALS } from '../../model/billing-dates.ts';
import { INVOICE_CHANNELS } from '../invoices.ts';
import { SUBSCRIPTION_STATUSES } from '../subscriptions.ts';
import { Amount, CalendarDate, Currency, Id, list, Livemode, Metadata, Timestamp } from './common.ts';

export const Subscription = v.object({
  id: Id('subscription'),
  object: v.literal('subscription'),
  status: v.picklist(SUBSCRIPTION_STATUSES),
  customer_id: Id('customer'),
  payment_method: v.pipe(v.nullable(Id('paymentMethod')), v.description("the saved card renewals charge; null: the customer's default")),
  plan: v.pipe(v.string(), v.examples(['Pro monthly'])),
  amount: Amount,
  currency: Currency,
  interval: v.picklist(INTERVALS),
  interval_count: v.pipe(v.number(), v.integer(), v.minValue(1), v.examples([1])),
  current_period_start: CalendarDate,
  next_billing: CalendarDate,
  retry_at: v.nullable(v.pipe(CalendarDate, v.description('past_due: the date of the next retry'))),
  retry_reason: v.pipe(
    v.nullable(v.string()),
    v.description('past_due: why the renewal failed and what happens next (retried, waiting for a new card or the customer, or given up)'),
    v.examples(['insufficient_funds is a soft decline: retried on day 3 after the first try']),
  ),
  latest_invoice: v.nullable(Id('invoice')),
  metadata: Metadata,
  cancel_at_period_end: v.pipe(v.boolean(), v.description('cancelled on `next_billing` instead of renewing')),
  livemode: Livemode,
  created_at: Timestamp,
  cancelled_at: v.nullable(Timestamp),
});

export const SubscriptionList = list(Subscription);

const invoiceEntries = {
  id: Id('invoice'),
  object: v.literal('invoice'),
  livemode: Livemode,
  number: v.pipe(v.string(), v.regex(/^INV-\d{6,}$/), v.description('per merchant, gapless'), v.examples(['INV-000001'])),
  customer_id: Id('customer'),
  status: v.picklist(['draft', 'sent', 'paid']),
  currency: Currency,
  items: v.array(
    v.object({
      name: v.pipe(v.string(), v.examples(['Consulting hour'])),
      amount: v.pipe(Amount, v.description('per unit')),
      quantity: v.pipe(v.number(), v.integer(), v.minValue(1), v.examples([3])),
    }),
  ),
  subtotal: v.pipe(Amount, v.examples([5997])),
  tax: v.pipe(Amount, v.examples([435])),
  tax_rate: v.pipe(v.number(), v.minValue(0), v.maxValue(100), v.examples([7.25])),
  total: v.pipe(Amount, v.description('subtotal + tax'), v.examples([6432])),
  due_date: CalendarDate,
  pdf_url: v.nullable(v.pipe(v.string(), v.url(), v.description('signed link to the PDF, valid 7 days, new on every read'))),
  created_at: Timestamp,
  sent_at: v.nullable(Timestamp),
  sent_to: v.nullable(v.string()),
  channel: v.nullable(v.picklist(INVOICE_CHANNELS)),
  paid_at: v.nullable(Timestamp),
  payment_id: v.nullable(Id('payment')),
  subscription_id: v.nullable(Id('subscription')),
  period_start: v.nullable(CalendarDate),
  metadata: Metadata,
  next_retry_at: v.nullable(v.pipe(CalendarDate, v.description("a renewal's charge failed: the date it is tried again"))),
  retry_reason: v.pipe(
    v.nullable(v.string()),
    v.description("a renewal's charge failed: why, and what happens next (retried, waiting for a new card or the customer, or given up)"),
  ),
  payment_attempts: v.pipe(
    v.array(
      v.object({
        payment_id: Id('payment'),
        attempt_id: Id('attempt'),
        provider: v.pipe(v.string(), v.examples(['stripe'])),
        connector_id: v.nullable(Id('connector')),
        status: v.pipe(v.string(), v.examples(['declined'])),
        decline_code: v.nullable(v.pipe(v.string(), v.examples(['insufficient_funds']))),
        reason: v.pipe(
          v.string(),
          v.description('why this attempt was made, there'),
          v.examples(['stripe via con_… declined insufficient_funds (a soft decline): tried at adyen via con_… with the vaulted card']),
        ),
        created_at: Timestamp,
      }),
    ),
    v.description("the renewal charges' authorization attempts, oldest first"),
  ),
};

export const Invoice = v.object(invoiceEntries);

export const InvoiceList = list(Invoice);

export const SentInvoice = v.object({
  ...invoiceEntries,
  status: v.literal('sent'),
  sent_to: v.pipe(v.string(), v.description('the e-mail address or phone number'), v.examples(['jane@example.com'])),
});

export const PaidInvoice = v.object({ ...invoiceEntries, status: v.literal('paid'), paid_at: Timestamp });
