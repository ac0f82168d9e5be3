/**
 * Signed, expiring links a customer opens without an API key: an invoice's `pdf_url`, and its hosted payment link.
 * `signature` = hex HMAC-SHA256 of `<invoice id>.<expires>` (the payment link: `pay:<invoice id>.<expires>`) under
 * the links secret; `expires` = epoch seconds. Nothing is stored: every read makes a new link, and a link proves itself.
 */
import { readSecret } from '../secrets.ts';
import { clock } from './clock.ts';
import { constantTimeEqual, hmac } from './credentials.ts';

/** A link is valid for 7 days from when it was made (DECISIONS.md "Invoices"). */
export const PDF_LINK_TTL_SECONDS = 7 * 24 * 60 * 60;

const nowSeconds = (): number => Math.floor(clock.now() / 1000);

const sign = async (invoiceId: string, expires: string, purpose: '' | 'pay:' = ''): Promise<string> =>
  hmac(await readSecret('links'), `${purpose}${invoiceId}.${expires}`);

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

async function verifyLink(invoiceId: string, query: LinkQuery, purpose: '' | 'pay:'): Promise<boolean> {
  const { expires, signature } = query;
  if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = await sign(invoiceId, expires, purpose);
  // Signature first, then expiry: the answer takes the same path for a forged link whatever its expiry.
  const authentic = constantTimeEqual(expected, signature);
  return authentic && Number(expires) > nowSeconds();
}

/** A payment link stays valid 30 days: past the last retry of a renewal (DECISIONS "Subscription recovery"). */
export const PAY_LINK_TTL_SECONDS = 30 * 24 * 60 * 60;

/** `${baseUrl}/hosted/pay/<invoice id>?expires=<epoch s>&signature=<hex>`: the page where the customer pays the invoice. */
export async function signedPayUrl(baseUrl: string, invoiceId: string): Promise<string> {
  const expires = String(nowSeconds() + PAY_LINK_TTL_SECONDS);
  const signature = await sign(invoiceId, expires, 'pay:');
  return `${baseUrl.replace(/\/+$/, '')}/hosted/pay/${invoiceId}?expires=${expires}&signature=${signature}`;
}

export const verifyPayLink = (invoiceId: string, query: LinkQuery): Promise<boolean> => verifyLink(invoiceId, query, 'pay:');

/** The 3-D Secure hand-off link of a payment (`/hosted/3ds/pay_…?signature=…`): signed, so nobody else's id works. */
export const handOffSignature = async (paymentId: string): Promise<string> => hmac(await readSecret('links'), `3ds:${paymentId}`);

export async function verifyHandOff(paymentId: string, signature: string | undefined): Promise<boolean> {
  return typeof signature === 'string' && /^[0-9a-f]{64}$/.test(signature) && constantTimeEqual(await handOffSignature(paymentId), signature);
}
