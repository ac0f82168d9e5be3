/**
 * Signed, expiring links a customer opens without an API key: an invoice's `pdf_url`, its hosted payment link, and a
 * payment's 3-D Secure legs. `signature` = hex HMAC-SHA256 of `<purpose><id>.<expires>` (the PDF: no purpose; the
 * payment link `pay:`; the 3-D Secure hand-off `3ds:`, its return `3ds-return:`) under the links secret; `expires` =
 * epoch seconds (the sandbox issuer's answer: `3ds-sandbox:<payment id>.<answer>.<expires>`). Nothing is stored: a link
 * proves itself.
 */
import { readSecret } from '../secrets.ts';
import { clock } from '../model/clock.ts';
import { constantTimeEqual, hmac } from '../model/credentials.ts';

/** A link is valid for 7 days from when it was made (docs/api.md "Invoices"). */
export const PDF_LINK_TTL_SECONDS = 7 * 24 * 60 * 60;

const nowSeconds = (): number => Math.floor(clock.now() / 1000);

type Purpose = '' | 'pay:' | '3ds:' | '3ds-return:' | '3ds-sandbox:';

const sign = async (id: string, expires: string, purpose: Purpose = ''): Promise<string> =>
  hmac(await readSecret('links'), `${purpose}${id}.${expires}`);

/** The path of an invoice's PDF below the API's base URL. */
export const pdfPath = (invoiceId: string): string => `/api/invoices/${invoiceId}/pdf`;

/** `${baseUrl}/api/invoices/<id>/pdf?expires=<epoch s>&signature=<hex>`, valid for 7 days from now. */
export async function signedPdfUrl(baseUrl: string, invoiceId: string): Promise<string> {
  const expires = String(nowSeconds() + PDF_LINK_TTL_SECONDS);
  const signature = await sign(invoiceId, expires);
  return `${baseUrl.replace(/\/+$/, '')}${pdfPath(invoiceId)}?expires=${expires}&signature=${signature}`;
}

export interface LinkQuery {
  expires?: string | undefined;
  signature?: string | undefined;
}

/**
 * True when the link's signature is the one this service made for this invoice and expiry (compared in constant
 * time) and the link has not expired. Anything missing or malformed is simply not valid.
 */
export const verifyPdfLink = (invoiceId: string, query: LinkQuery): Promise<boolean> => verifyLink(invoiceId, query, '');

async function verifyLink(id: string, query: LinkQuery, purpose: Purpose): Promise<boolean> {
  const { expires, signature } = query;
  if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = await sign(id, expires, purpose);
  // Signature first, then expiry: the answer takes the same path for a forged link whatever its expiry.
  const authentic = constantTimeEqual(expected, signature);
  return authentic && Number(expires) > nowSeconds();
}

/** A payment link stays valid 30 days: past the last retry of a renewal (docs/api.md "Subscription recovery"). */
export const PAY_LINK_TTL_SECONDS = 30 * 24 * 60 * 60;

/** `${baseUrl}/hosted/pay/<invoice id>?expires=<epoch s>&signature=<hex>`: the page where the customer pays the invoice. */
export async function signedPayUrl(baseUrl: string, invoiceId: string): Promise<string> {
  const expires = String(nowSeconds() + PAY_LINK_TTL_SECONDS);
  const signature = await sign(invoiceId, expires, 'pay:');
  return `${baseUrl.replace(/\/+$/, '')}/hosted/pay/${invoiceId}?expires=${expires}&signature=${signature}`;
}

export const verifyPayLink = (invoiceId: string, query: LinkQuery): Promise<boolean> => verifyLink(invoiceId, query, 'pay:');

/**
 * A payment's 3-D Secure legs, valid until `expiresMs`, the end of the shopper's hour (docs/api.md "3-D Secure and
 * return URLs"): the hand-off (`next_action.redirect_to_url.url`), and the return the provider is given, which brings
 * the shopper back with the provider's fields added to its query (ours kept).
 */
export async function threeDSecureLinks(baseUrl: string, paymentId: string, expiresMs: number): Promise<{ handOff: string; return: string }> {
  const base = baseUrl.replace(/\/+$/, '');
  const expires = String(Math.floor(expiresMs / 1000));
  const [handOff, back] = await Promise.all([sign(paymentId, expires, '3ds:'), sign(paymentId, expires, '3ds-return:')]);
  return {
    handOff: `${base}/hosted/3ds/${paymentId}?expires=${expires}&signature=${handOff}`,
    return: `${base}/hosted/3ds/return/${paymentId}?expires=${expires}&signature=${back}`,
  };
}

export const verifyHandOff = (paymentId: string, query: LinkQuery): Promise<boolean> => verifyLink(paymentId, query, '3ds:');

export const verifyThreeDSecureReturn = (paymentId: string, query: LinkQuery): Promise<boolean> => verifyLink(paymentId, query, '3ds-return:');

/**
 * The sandbox issuer's answer (`passed` or `failed`), as its challenge page gives it to the shopper's button: signed
 * with the payment and the return's expiry, so a return URL with an answer typed in changes nothing.
 */
export const sandboxAnswerSignature = (paymentId: string, answer: 'passed' | 'failed', expires: string): Promise<string> =>
  sign(`${paymentId}.${answer}`, expires, '3ds-sandbox:');

export const verifySandboxAnswer = (paymentId: string, answer: 'passed' | 'failed', query: LinkQuery): Promise<boolean> =>
  verifyLink(`${paymentId}.${answer}`, query, '3ds-sandbox:');
