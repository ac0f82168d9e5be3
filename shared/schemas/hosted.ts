import * as v from 'valibot';

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

/** `GET /hosted/3ds/pay_…`: the hand-off link's signature. */
export const HandOffQuery = v.object({ signature: v.optional(v.pipe(v.string(), v.maxLength(128))) });

/** `GET /hosted/3ds/return/pay_…`: whatever the provider's redirect carries (Stripe `payment_intent`, Adyen `redirectResult`, …). */
export const ReturnQuery = v.looseObject({});

const ReturnUrl = v.pipe(v.string(), v.maxLength(2048), v.description("this service's 3-D Secure return page of the payment"));

export const SandboxChallengeQuery = v.object({ return_url: ReturnUrl });

export const SandboxAnswerQuery = v.object({ return_url: ReturnUrl, answer: v.picklist(['passed', 'failed']) });
