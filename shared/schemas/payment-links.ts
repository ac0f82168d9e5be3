import * as v from 'valibot';
import { listQuery, Metadata } from './common.ts';
import { InvoiceItem, TaxRate } from './invoices.ts';
import { Currency } from './payments.ts';

/** After paying: on to the merchant's page (on a checkout origin, checked by the domain), or our receipt with a message. */
export const AfterCompletion = v.variant(
  'type',
  [
    v.object({
      type: v.literal('redirect'),
      url: v.pipe(
        v.string(),
        v.minLength(1),
        v.maxLength(2048),
        v.description("https on one of the mode's checkout_origins; the shopper arrives with `payment_id`"),
        v.examples(['https://shop.example/thanks']),
      ),
    }),
    v.object({
      type: v.literal('hosted_confirmation'),
      message: v.pipe(
        v.string(),
        v.trim(),
        v.minLength(1),
        v.maxLength(500),
        v.description('shown on the receipt page above the receipt'),
        v.examples(['Thanks! Your T-shirts ship tomorrow.']),
      ),
    }),
  ],
  'an object with type "redirect" and a url, or type "hosted_confirmation" and a message',
);

export const CreatePaymentLinkBody = v.object({
  line_items: v.pipe(v.array(InvoiceItem), v.minLength(1), v.maxLength(100)),
  currency: Currency,
  tax_rate: v.optional(TaxRate, 0),
  after_completion: v.optional(AfterCompletion),
  limit: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(1_000_000),
      v.description('how many payments the link takes, then it says it is sold out (absent: no limit)'),
      v.examples([100]),
    ),
  ),
  metadata: v.optional(Metadata),
});

/** `PUT /api/payment_links/:id`: the fields sent replace their values. */
export const UpdatePaymentLinkBody = v.object({
  active: v.optional(v.pipe(v.boolean(), v.description('false: the page says the link is closed and takes no payment'))),
  after_completion: v.optional(AfterCompletion),
  metadata: v.optional(Metadata),
});

export const ListPaymentLinksQuery = listQuery('paymentLink', { active: v.optional(v.picklist(['true', 'false'])) });
