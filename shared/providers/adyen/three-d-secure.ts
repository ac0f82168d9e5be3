/**
 * 3-D Secure at Adyen (Checkout v72), redirect flow: what a /payments request carries when the shopper may
 * authenticate, the shopper's redirect (`action`) as our ShopperAction, and the 3DS data Adyen returns in
 * `additionalData` (ResponseAdditionalDataCommon) as our ThreeDSecureResult.
 */
import type { AuthorizeRequest, ShopperAction, ThreeDSecureResult } from '../types.ts';
import type { components } from './checkout-v72.d.ts';

type PaymentRequest = components['schemas']['PaymentRequest'];
type PaymentResponse = components['schemas']['PaymentResponse'];

/**
 * `returnUrl` is required by the contract but only brings back a redirected shopper: without `authentication` this
 * service never redirects one, so it points nowhere (RFC 2606 `.invalid`).
 */
const NO_RETURN_URL = 'https://no-redirect.invalid/adyen';

/**
 * The shopper's browser as Adyen needs it for 3DS2 on the Web channel (the whole object is required). The shopper
 * reaches Adyen through our hosted page, a desktop browser; the issuer only uses these to size its challenge page.
 */
const HOSTED_PAGE_BROWSER: NonNullable<PaymentRequest['browserInfo']> = {
  userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  acceptHeader: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  javaEnabled: false,
  javaScriptEnabled: true,
  colorDepth: 24,
  screenHeight: 1080,
  screenWidth: 1920,
  timeZoneOffset: 0,
  language: 'en-GB',
};

/** Adyen's `origin` takes at most 80 characters. */
const MAX_ORIGIN = 80;

/**
 * The 3DS part of a /payments request. No `authentication` (or a merchant-initiated charge, never challenged):
 * `attemptAuthentication: never`, so a payment that needs it is refused. With it: the real `returnUrl`, the Web
 * channel and browser, and the redirect flow (`nativeThreeDS: disabled`); `required` forces 3DS and asks the issuer
 * for a challenge (`threeDSRequestorChallengeInd` 04, "mandate"); otherwise Adyen's dynamic 3DS rules decide.
 */
export function authenticationFields(request: AuthorizeRequest): Partial<PaymentRequest> & { returnUrl: string } {
  const { authentication } = request;
  if (!authentication || request.initiator?.type === 'merchant')
    return { returnUrl: NO_RETURN_URL, authenticationData: { attemptAuthentication: 'never' } };
  const origin = new URL(authentication.returnUrl).origin;
  return {
    returnUrl: authentication.returnUrl,
    channel: 'Web',
    browserInfo: HOSTED_PAGE_BROWSER,
    ...(origin.length <= MAX_ORIGIN ? { origin } : {}),
    authenticationData: {
      ...(authentication.required ? { attemptAuthentication: 'always' as const } : {}),
      threeDSRequestData: { nativeThreeDS: 'disabled' },
    },
    ...(authentication.required ? { threeDS2RequestData: { threeDSRequestorChallengeInd: '04' as const } } : {}),
  };
}

/**
 * The shopper's redirect of a `RedirectShopper` answer (`type: redirect`: GET `url`, or POST `data` to it), or
 * undefined when the action is another kind (native 3DS2, SDK), which this integration does not perform. v72's
 * redirect action has no `paymentData`: the `redirectResult` it returns with is all /payments/details needs.
 */
export function shopperActionOf(action: PaymentResponse['action']): ShopperAction | undefined {
  if (!action || action.type !== 'redirect' || !('url' in action) || !action.url) return undefined;
  const method = (action.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'POST') return undefined;
  const data = 'data' in action && action.data ? { data: action.data } : {};
  return { url: action.url, method, ...data };
}

/** `threeDAuthenticatedResponse` (the issuer's final transStatus) → our result. */
const RESULTS: Readonly<Record<string, ThreeDSecureResult['result']>> = {
  Y: 'authenticated',
  A: 'attempted',
  N: 'failed',
  R: 'failed',
  // "could not be performed" (a technical problem at the issuer or directory): no authentication to rely on.
  U: 'not_supported',
};

/**
 * The 3DS outcome Adyen reports in `additionalData` (when the account returns the 3DS fields), or undefined when it
 * says nothing of 3DS. `threeDOfferedResponse` is the directory's answer (C: a challenge was required); `challenged`
 * stands in when it is absent (the shopper came back from Adyen's redirect).
 */
export function threeDSecureOf(data: Record<string, string> | undefined, challenged = false): ThreeDSecureResult | undefined {
  if (!data || (data.threeDOffered === undefined && data.threeDAuthenticated === undefined)) return undefined;
  const offered = data.threeDOffered === 'true';
  const flow = data.threeDOfferedResponse === 'C' || (challenged && !data.threeDOfferedResponse) ? 'challenge' : 'frictionless';
  let result: ThreeDSecureResult['result'];
  if (!offered) result = data.scaExemptionRequested ? 'exempted' : 'not_supported';
  else result = RESULTS[data.threeDAuthenticatedResponse ?? ''] ?? (data.threeDAuthenticated === 'true' ? 'authenticated' : 'failed');
  return {
    version: data.threeDSVersion || null,
    flow,
    result,
    eci: data.eci && data.eci !== 'N/A' ? data.eci : null,
    liability_shift: data.liabilityShift === 'true',
  };
}
