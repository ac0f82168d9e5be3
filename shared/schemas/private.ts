import * as v from 'valibot';
import { idPattern } from '../model/ids.ts';
import { FormId } from './hosted.ts';

/*
 * What a public page hands the private function that acts for it (catalog trigger `invoke`, shared/invoke.ts): ids and
 * what the shopper typed, already checked by the page. The private side reads everything else itself (the invoice, its
 * amount, the saved card, the payment).
 */

const PageUrl = v.pipe(v.string(), v.maxLength(2048), v.url());

/** `private/pay-invoice`: the invoice, the page's form (its payment's origin), the page, and a typed card or none (the saved one). */
export const PayInvoiceInput = v.object({
  invoice_id: v.pipe(v.string(), v.regex(idPattern('invoice'))),
  form_id: FormId,
  page_url: PageUrl,
  card: v.optional(
    v.object({
      number: v.pipe(v.string(), v.regex(/^\d{13,19}$/)),
      exp_month: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(12)),
      exp_year: v.pipe(v.number(), v.integer(), v.minValue(2000), v.maxValue(2100)),
      cvc: v.pipe(v.string(), v.regex(/^\d{3,4}$/)),
    }),
  ),
});
export type PayInvoiceInput = v.InferOutput<typeof PayInvoiceInput>;

/** `private/pay-link`: the payment link, the page's form (its payment's origin), the page, the typed card and e-mail. */
export const PayLinkInput = v.object({
  link_id: v.pipe(v.string(), v.regex(idPattern('paymentLink'))),
  form_id: FormId,
  page_url: PageUrl,
  card: PayInvoiceInput.entries.card.wrapped,
  email: v.optional(v.pipe(v.string(), v.maxLength(254))),
});
export type PayLinkInput = v.InferOutput<typeof PayLinkInput>;

/** `private/finish-authentication`: the payment whose signed return page the shopper reached, and the provider's fields. */
export const FinishAuthenticationInput = v.object({
  payment_id: v.pipe(v.string(), v.regex(idPattern('payment'))),
  returned: v.record(v.pipe(v.string(), v.maxLength(200)), v.pipe(v.string(), v.maxLength(8192))),
});
export type FinishAuthenticationInput = v.InferOutput<typeof FinishAuthenticationInput>;
