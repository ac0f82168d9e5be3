import type { ShopperAction } from '../providers/index.ts';
import * as settings from '../store/settings.ts';
import type { BrandingRecord } from '../store/settings.ts';
import { invokeFunction } from '../invoke.ts';
import type { FinishAuthenticationInput } from '../schemas/private.ts';
import * as payments from '../store/payments.ts';
import { NotFound } from '../model/errors.ts';
import { isId } from '../model/ids.ts';
import { captureAuthenticated } from './payment-create.ts';
import { finishAuthentication } from './shopper-authentication.ts';
import { type LinkQuery, sandboxAnswerSignature, verifyHandOff, verifySandboxAnswer, verifyThreeDSecureReturn } from './signed-links.ts';

/** Where the shopper goes next: a provider's page (GET, or a form to POST), or back to the merchant. */
export type ShopperStep =
  { go: 'provider'; action: ShopperAction; shown: { amount: number; currency: string; branding: BrandingRecord } } | { go: 'merchant'; url: string };

/** The merchant's return URL with the payment's id (docs/checkout.md "3-D Secure"). */
const backToMerchant = (payment: { id: string; return_url?: string }): ShopperStep => {
  if (!payment.return_url) throw new NotFound();
  const url = new URL(payment.return_url);
  url.searchParams.set('payment_id', payment.id);
  return { go: 'merchant', url: url.toString() };
};

async function signedPayment(paymentId: string) {
  const payment = isId('payment', paymentId) ? await payments.loadPayment(paymentId) : undefined;
  if (!payment) throw new NotFound();
  return payment;
}

/** What a forged, altered or expired 3-D Secure link shows: nothing changes, nobody is sent anywhere. */
const EXPIRED = 'this payment link is not valid or has expired: go back to the shop and pay again';

/** `next_action.redirect_to_url.url`: while the payment waits, to the provider's page; afterwards back to the merchant. */
export async function handOff(paymentId: string, query: LinkQuery): Promise<ShopperStep> {
  if (!(await verifyHandOff(paymentId, query))) throw new NotFound(EXPIRED);
  const payment = await signedPayment(paymentId);
  if (payment.status === 'requires_action' && payment.op?.kind === 'authenticate' && payment.provider_action) {
    // what the shopper confirms on a hand-off page (a bank that wants a POST): the amount, to whom
    const branding = await settings.getBranding(payment.merchant_id);
    return { go: 'provider', action: payment.provider_action, shown: { amount: payment.amount, currency: payment.currency, branding } };
  }
  return backToMerchant(payment);
}

type SandboxAnswer = 'passed' | 'failed';
const isSandboxAnswer = (value: unknown): value is SandboxAnswer => value === 'passed' || value === 'failed';

/**
 * The provider brings the shopper back to the return URL it was given (signed; the provider's fields added): the
 * payment is finished at the provider once (a second return, or one after a void, changes nothing), then the shopper
 * goes back to the merchant with the payment's id. A return not signed by us, or past the shopper's hour, changes
 * nothing and sends nobody on; so does a sandbox answer not signed by the sandbox's challenge page.
 */
export async function shopperReturned(paymentId: string, returned: Record<string, string>): Promise<ShopperStep> {
  const { expires, signature, sandbox_signature: sandboxSignature, ...fromProvider } = returned;
  if (!(await verifyThreeDSecureReturn(paymentId, { expires, signature }))) throw new NotFound(EXPIRED);
  const answer = fromProvider.sandbox_authentication;
  if (
    answer !== undefined &&
    !(isSandboxAnswer(answer) && (await verifySandboxAnswer(paymentId, answer, { expires, signature: sandboxSignature })))
  ) {
    throw new NotFound(EXPIRED);
  }
  // finished at the provider apart (private/finish-authentication), where the provider's credentials are
  return invokeFunction<ShopperStep>(FINISH_AUTHENTICATION, { payment_id: paymentId, returned: fromProvider });
}

const FINISH_AUTHENTICATION = 'private/finish-authentication';

/**
 * `private/finish-authentication`: the payment whose signed return page the shopper reached (the page checked the
 * signatures) is finished at the provider with the provider's fields, captured when automatic, and the shopper sent
 * back to the merchant.
 */
export async function finishReturnedAuthentication({ payment_id: paymentId, returned }: FinishAuthenticationInput): Promise<ShopperStep> {
  const payment = await signedPayment(paymentId);
  await finishAuthentication(payment, returned);
  await captureAuthenticated(payment.id);
  return backToMerchant(payment);
}

/** Our return page of a payment, as the sandbox provider was given it: its id and signed expiry, checked. */
async function ourReturnPage(baseUrl: string, returnUrl: string): Promise<{ paymentId: string; expires: string }> {
  const url = URL.canParse(returnUrl) ? new URL(returnUrl) : undefined;
  const paymentId = /\/hosted\/3ds\/return\/([^/]+)$/.exec(url?.pathname ?? '')?.[1];
  const expires = url?.searchParams.get('expires') ?? '';
  const signature = url?.searchParams.get('signature') ?? '';
  const ours = url?.host === new URL(baseUrl).host && url.search === `?${new URLSearchParams({ expires, signature })}`;
  if (!ours || !isId('payment', paymentId) || !(await verifyThreeDSecureReturn(paymentId, { expires, signature }))) throw new NotFound(EXPIRED);
  return { paymentId, expires };
}

/**
 * The sandbox issuer's challenge page for our (signed) return page of a payment: the merchant's page the shopper
 * ends at (the page's forms must be allowed to lead there: a browser checks `form-action` at every redirect after a
 * form is sent), and each button's answer, signed here, so only this page can pass or fail the challenge.
 */
export async function sandboxChallenge(
  baseUrl: string,
  returnUrl: string,
): Promise<{
  returnUrl: string;
  merchantReturnUrl: string;
  answers: Record<SandboxAnswer, string>;
  /** what the shopper confirms: the amount, to whom (docs/api.md "Shopper pages (every page)") */
  amount: number;
  currency: string;
  branding: BrandingRecord;
}> {
  const { paymentId, expires } = await ourReturnPage(baseUrl, returnUrl);
  const payment = await payments.loadPayment(paymentId);
  if (!payment?.return_url) throw new NotFound(EXPIRED);
  const [passed, failed, branding] = await Promise.all([
    sandboxAnswerSignature(paymentId, 'passed', expires),
    sandboxAnswerSignature(paymentId, 'failed', expires),
    settings.getBranding(payment.merchant_id),
  ]);
  const shown = { amount: payment.amount, currency: payment.currency, branding };
  return { returnUrl, merchantReturnUrl: payment.return_url, answers: { passed, failed }, ...shown };
}

/**
 * The shopper's answer on the sandbox challenge page: back to our return page with it and its signature. Only our own
 * signed return page is a destination, and only with an answer that page signed.
 */
export async function sandboxChallengeReturn(baseUrl: string, returnUrl: string, answer: SandboxAnswer, signature: string): Promise<string> {
  const { paymentId, expires } = await ourReturnPage(baseUrl, returnUrl);
  if (!(await verifySandboxAnswer(paymentId, answer, { expires, signature }))) throw new NotFound(EXPIRED);
  const url = new URL(returnUrl);
  url.searchParams.set('sandbox_authentication', answer);
  url.searchParams.set('sandbox_signature', signature);
  return url.href;
}
