import type { ShopperAction } from '../providers/index.ts';
import * as payments from '../store/payments.ts';
import { BadRequest, NotFound } from './errors.ts';
import { isId } from './ids.ts';
import { captureAuthenticated, finishAuthentication } from './payments.ts';
import { verifyHandOff } from './signed-links.ts';

/** Where the shopper goes next: a provider's page (GET, or a form to POST), or back to the merchant. */
export type ShopperStep = { go: 'provider'; action: ShopperAction } | { go: 'merchant'; url: string };

/** The merchant's return URL with the payment's id, as DECISIONS "3-D Secure" hands it back. */
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

/** `next_action.redirect_to_url.url`: while the payment waits, to the provider's page; afterwards back to the merchant. */
export async function handOff(paymentId: string, signature: string | undefined): Promise<ShopperStep> {
  if (!(await verifyHandOff(paymentId, signature))) throw new NotFound();
  const payment = await signedPayment(paymentId);
  if (payment.status === 'requires_action' && payment.op?.kind === 'authenticate' && payment.provider_action) {
    return { go: 'provider', action: payment.provider_action };
  }
  return backToMerchant(payment);
}

/**
 * The provider brings the shopper back: the payment is finished at the provider once (a second return, or one after a
 * void, changes nothing), then the shopper goes back to the merchant with the payment's id.
 */
export async function shopperReturned(paymentId: string, returned: Record<string, string>): Promise<ShopperStep> {
  const payment = await signedPayment(paymentId);
  await finishAuthentication(payment, returned);
  await captureAuthenticated(payment.id);
  return backToMerchant(payment);
}

/**
 * The sandbox issuer's challenge: its page (pass or fail), then back to this service's return page for the payment.
 * The return URL must be one of ours (`/hosted/3ds/return/pay_…` under `baseUrl`): nobody is sent elsewhere.
 */
export function sandboxChallengeReturn(baseUrl: string, returnUrl: string, answer?: 'passed' | 'failed'): string {
  const url = URL.canParse(returnUrl) ? new URL(returnUrl) : undefined;
  const page = /\/hosted\/3ds\/return\/([^/]+)$/.exec(url?.pathname ?? '');
  if (!url || url.host !== new URL(baseUrl).host || url.search || !isId('payment', page?.[1])) {
    throw new BadRequest('parameter_invalid', 'return_url', "return_url must be this service's 3-D Secure return page");
  }
  if (!answer) return returnUrl;
  return `${returnUrl}?${new URLSearchParams({ sandbox_authentication: answer })}`;
}

/**
 * The sandbox challenge page's return (ours) and the merchant's origin the shopper ends at: the page's forms must be
 * allowed to lead there (a browser checks `form-action` at every redirect after a form is sent).
 */
export async function sandboxChallenge(baseUrl: string, returnUrl: string): Promise<{ returnUrl: string; merchantOrigin: string }> {
  const ours = sandboxChallengeReturn(baseUrl, returnUrl);
  const payment = await payments.loadPayment(new URL(ours).pathname.split('/').pop()!);
  if (!payment?.return_url) throw new NotFound();
  return { returnUrl: ours, merchantOrigin: new URL(payment.return_url).origin };
}
