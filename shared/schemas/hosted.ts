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

/** As typed: digits, with spaces or dashes between groups. */
const TypedCardNumber = v.pipe(
  v.string(),
  v.regex(/^[\d\s-]{13,30}$/, 'a card number of 13 to 19 digits'),
  v.check((text) => /^\d{13,19}$/.test(digits(text)) && luhnValid(digits(text)), 'a card number that passes the Luhn check'),
  v.examples(['4242 4242 4242 4242']),
);

/** `MM / YY` (spaces optional), read as the month and 20YY. */
export const expiryOf = (text: string) => {
  const [month, year] = text.split('/').map((part) => Number(part.trim()));
  return { exp_month: month!, exp_year: 2000 + year! };
};

const Expiry = v.pipe(
  v.string(),
  v.regex(/^\s*(0[1-9]|1[0-2])\s*\/\s*\d{2}\s*$/, 'an expiry as MM / YY'),
  v.check((text) => notExpired(expiryOf(text)), 'must not be past: the card has expired'),
  v.examples(['12 / 34']),
);

/** The payment page's forms: the saved card, or a new card (number as typed, `MM / YY`, CVC). */
export const PayFormBody = v.variant('pay_with', [
  v.object({ pay_with: v.literal('saved'), form_id: FormId }),
  v.object({
    pay_with: v.literal('card'),
    form_id: FormId,
    number: TypedCardNumber,
    exp: Expiry,
    cvc: v.pipe(v.string(), v.regex(/^\d{3,4}$/, '3 or 4 digits'), v.examples(['123'])),
  }),
]);

/** A card as typed into the page, as a payment takes it. */
export const typedCard = (form: { number: string; exp: string; cvc: string }) => ({
  number: digits(form.number),
  ...expiryOf(form.exp),
  cvc: form.cvc,
});
