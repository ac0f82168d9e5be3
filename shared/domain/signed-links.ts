/**
 * Signed, expiring links a customer opens without an API key: an invoice's `pdf_url`.
 * `signature` = hex HMAC-SHA256 of `<invoice id>.<expires>` under the app secret; `expires` = epoch seconds.
 * Nothing is stored: every read makes a new link, and a link proves itself.
 */
import { appSecret } from '../secrets.ts';
import { clock } from './clock.ts';
import { constantTimeEqual, hmac } from './credentials.ts';

/** A link is valid for 7 days from when it was made (DECISIONS.md "Invoices"). */
export const PDF_LINK_TTL_SECONDS = 7 * 24 * 60 * 60;

const nowSeconds = (): number => Math.floor(clock.now() / 1000);

const sign = async (invoiceId: string, expires: string): Promise<string> => hmac(await appSecret(), `${invoiceId}.${expires}`);

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
export async function verifyPdfLink(invoiceId: string, query: LinkQuery): Promise<boolean> {
  const { expires, signature } = query;
  if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = await sign(invoiceId, expires);
  // Signature first, then expiry: the answer takes the same path for a forged link whatever its expiry.
  const authentic = constantTimeEqual(expected, signature);
  return authentic && Number(expires) > nowSeconds();
}

/** The 3-D Secure hand-off link of a payment (`/hosted/3ds/pay_…?signature=…`): signed, so nobody else's id works. */
export const handOffSignature = async (paymentId: string): Promise<string> => hmac(await appSecret(), `3ds:${paymentId}`);

export async function verifyHandOff(paymentId: string, signature: string | undefined): Promise<boolean> {
  return typeof signature === 'string' && /^[0-9a-f]{64}$/.test(signature) && constantTimeEqual(await handOffSignature(paymentId), signature);
}
