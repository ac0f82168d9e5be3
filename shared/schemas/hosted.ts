import * as v from 'valibot';
import { notExpired } from './payments.ts';
import { luhnValid } from '../model/cards.ts';

const PublishableKey = v.pipe(
  v.string(),
  v.regex(/^pk_(live|test)_[0-9A-Za-z]{1,100}$/, 'a publishable key (pk_test_… or pk_live_…)'),
  v.examples(['pk_test_4eC39HqLyjWDarjtT1zdp7dcXz81Kf0pLm3Rt7Ux9Qa']),
);

/** `GET /hosted/card-fields`: the key, and the origin of the page that frames the fields (where they post to). */
export const CardFieldsQuery = v.object({
  key: PublishableKey,
  origin: v.pipe(
    v.string(),
    v.maxLength(300),
    v.description('the framing page’s origin, one of its checkout origins'),
    v.examples(['https://shop.example']),
  ),
});

/** `GET /hosted/card-fields.js`: the key may be given here instead of to `CardFields.mount`. */
export const CardFieldsScriptQuery = v.object({ key: v.optional(PublishableKey) });

/** `GET /hosted/3ds/pay_…`: the hand-off link's expiry and signature. */
export const HandOffQuery = v.object({
  expires: v.optional(v.pipe(v.string(), v.maxLength(20))),
  signature: v.optional(v.pipe(v.string(), v.maxLength(128))),
});

/**
 * `GET /hosted/3ds/return/pay_…`: our `expires` and `signature`, and whatever the provider's redirect adds (Stripe
 * `payment_intent`, Adyen `redirectResult`, the sandbox's signed answer).
 */
export const ReturnQuery = v.looseObject({});

const ReturnUrl = v.pipe(v.string(), v.maxLength(2048), v.description("this service's 3-D Secure return page of the payment, as signed"));

export const SandboxChallengeQuery = v.object({ return_url: ReturnUrl });

export const SandboxAnswerQuery = v.object({
  return_url: ReturnUrl,
  answer: v.picklist(['passed', 'failed']),
  signature: v.pipe(v.string(), v.maxLength(128), v.description("the answer's signature, as the challenge page gave it")),
});

/** `/hosted/pay/inv_…`: the link's expiry and signature; back from the bank, the customer's payment. */
export const PayLinkQuery = v.object({
  expires: v.optional(v.pipe(v.string(), v.maxLength(20))),
  signature: v.optional(v.pipe(v.string(), v.maxLength(128))),
  payment_id: v.optional(v.pipe(v.string(), v.regex(/^pay_[0-9a-z]{26}$/, 'a payment id'))),
});

export const FormId = v.pipe(
  v.string(),
  v.regex(/^\d{1,15}\.[0-9a-f-]{36}$/, "the page's form id"),
  v.examples(['1795302000000.2207e25f-f761-493c-a705-bd5fa7331bae']),
);

const digits = (text: string) => text.replace(/[\s-]/g, '');

/** `MM / YY` (spaces optional), read as the month and 20YY. */
export const expiryOf = (text: string) => {
  const [month, year] = text.split('/').map((part) => Number(part.trim()));
  return { exp_month: month!, exp_year: 2000 + year! };
};

/** The payment page's forms: the saved card, or a new card (number as typed, `MM / YY`, CVC). */
export const PayFormBody = v.variant('pay_with', [
  v.object({ pay_with: v.literal('saved'), form_id: FormId }),
  // as typed: checked field by field (`checkTypedCard`), so that a typo is shown next to its field, the form kept
  v.object({
    pay_with: v.literal('card'),
    form_id: FormId,
    number: v.pipe(v.string(), v.maxLength(40), v.examples(['4242 4242 4242 4242'])),
    exp: v.pipe(v.string(), v.maxLength(20), v.examples(['12 / 34'])),
    cvc: v.pipe(v.string(), v.maxLength(10), v.examples(['123'])),
  }),
]);

/** A card as typed into the page, as a payment takes it. */
export const typedCard = (form: { number: string; exp: string; cvc: string }) => ({
  number: digits(form.number),
  ...expiryOf(form.exp),
  cvc: form.cvc,
});

/**
 * A payment link's form as posted: plain strings, checked field by field by `checkLinkForm` so that each mistake is
 * shown next to its field with the form kept (a typo is no 400 page). Only the form id must be well formed.
 */
export const LinkFormBody = v.object({
  form_id: FormId,
  number: v.pipe(v.string(), v.maxLength(40)),
  exp: v.pipe(v.string(), v.maxLength(20)),
  cvc: v.pipe(v.string(), v.maxLength(10)),
  email: v.optional(v.pipe(v.string(), v.maxLength(254))),
});

/** What a shopper reads next to a field typed wrong. */
export const FIELD_ERRORS = {
  number: 'Enter the 13 to 19 digits of the card number.',
  numberTypo: 'This card number has a typo: check the digits.',
  exp: 'Enter the expiry as MM / YY.',
  expired: 'This card has expired.',
  cvc: 'Enter the 3 or 4 digit security code.',
  email: 'Enter an e-mail address such as name@example.com, or leave it empty.',
} as const;

type FieldName = 'number' | 'exp' | 'cvc' | 'email';

/** The card typed (as a payment takes it) and the e-mail, or each field's error and what the form keeps. */
export function checkTypedCard(form: {
  number: string;
  exp: string;
  cvc: string;
  email?: string | undefined;
}):
  | { card: { number: string; exp_month: number; exp_year: number; cvc: string }; email?: string }
  | { errors: Partial<Record<FieldName, string>>; kept: { exp?: string; email?: string } } {
  const errors: Partial<Record<FieldName, string>> = {};
  const number = digits(form.number);
  if (!/^\d{13,19}$/.test(number)) errors.number = FIELD_ERRORS.number;
  else if (!luhnValid(number)) errors.number = FIELD_ERRORS.numberTypo;
  if (!/^\s*(0[1-9]|1[0-2])\s*\/\s*\d{2}\s*$/.test(form.exp)) errors.exp = FIELD_ERRORS.exp;
  else if (!notExpired(expiryOf(form.exp))) errors.exp = FIELD_ERRORS.expired;
  if (!/^\d{3,4}$/.test(form.cvc.trim())) errors.cvc = FIELD_ERRORS.cvc;
  const email = form.email?.trim() ? v.safeParse(v.pipe(v.string(), v.trim(), v.email(), v.toLowerCase()), form.email) : undefined;
  if (email && !email.success) errors.email = FIELD_ERRORS.email;
  if (Object.keys(errors).length > 0) {
    return { errors, kept: { exp: form.exp.slice(0, 20), ...(form.email ? { email: form.email.slice(0, 254) } : {}) } };
  }
  return { card: { number, ...expiryOf(form.exp), cvc: form.cvc.trim() }, ...(email?.success ? { email: email.output } : {}) };
}

/** `/hosted/link/plink_…`: back from paying or from the bank, the shopper's payment. */
export const LinkPageQuery = v.object({
  payment_id: v.optional(v.pipe(v.string(), v.regex(/^pay_[0-9a-z]{26}$/, 'a payment id'))),
});

/** `/hosted/checkout.css`: the merchant's colour, `rrggbb`. */
export const StylesheetQuery = v.object({
  accent: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{6}$/, 'a colour as rrggbb'))),
});
