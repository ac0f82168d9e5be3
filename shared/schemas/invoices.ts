import * as v from 'valibot';
import { exampleId, idPattern } from '../model/ids.ts';
import { isTaxRate } from '../domain/tax.ts';
import { listQuery, Metadata, Name } from './common.ts';
import { Currency } from './payments.ts';

/** Per unit, minor units; unlike a payment an item may cost 0. */
const ItemAmount = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(99_999_999), v.examples([1999]));
const Quantity = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000), v.examples([3]));

export const InvoiceItem = v.object({ name: v.pipe(Name, v.examples(['Consulting hour'])), amount: ItemAmount, quantity: Quantity });

/** A percentage from 0 to 100 with at most 4 decimals (8.875 yes, 7.12345 no). */
export const TaxRate = v.pipe(
  v.number(),
  v.check((rate: number) => isTaxRate(rate), 'a percentage from 0 to 100 with at most 4 decimals'),
  v.examples([7.25]),
);

/** `YYYY-MM-DD`, a real calendar date (no Feb 30). */
export const CalendarDate = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD'),
  v.check((s) => {
    const date = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === s;
  }, 'a real calendar date'),
  v.examples(['2026-04-30']),
);

export const CreateInvoiceBody = v.object({
  // Any string: an id that is not one of the merchant's customers (malformed ones included) is `resource_missing`.
  customer_id: v.pipe(v.string(), v.minLength(1), v.maxLength(255), v.examples([exampleId('customer')])),
  items: v.pipe(v.array(InvoiceItem), v.minLength(1), v.maxLength(100)),
  currency: Currency,
  due_date: CalendarDate,
  tax_rate: v.optional(TaxRate, 0),
  metadata: v.optional(Metadata),
});

export const INVOICE_CHANNELS = ['email', 'sms', 'whatsapp'] as const;

/** `channel` defaults to e-mail. */
export const SendInvoiceBody = v.object({
  channel: v.optional(v.pipe(v.picklist(INVOICE_CHANNELS), v.examples(['email' as const])), 'email'),
});

export const ListInvoicesQuery = listQuery('invoice', {
  status: v.optional(v.picklist(['draft', 'sent', 'paid'])),
  customer_id: v.optional(v.pipe(v.string(), v.regex(idPattern('customer'), 'a customer id'))),
});

/**
 * The signed link's query. Deliberately lenient: a missing or malformed signature is not a 400 but the same 404 as a
 * forged one, decided by the link check.
 */
export const PdfLinkQuery = v.object({
  expires: v.optional(v.string()),
  signature: v.optional(v.string()),
});
