/**
 * Braintree webhook notifications as Braintree writes them: the XML its SDKs parse (`webhookTesting.sampleNotification`
 * in node_modules/braintree/lib/braintree/webhook_testing_gateway.js builds the same shapes), with legacy ids and the
 * GraphQL id as `global-id`, signed the way `webhook_notification_gateway.js` checks: `bt_payload` is the base64 of the
 * XML plus a newline, `bt_signature` is `<public_key>|<hex HMAC-SHA1 of the payload, keyed by SHA-1(private_key)>`.
 */
import { createHash, createHmac } from 'node:crypto';

export interface TransactionSubject {
  legacyId: string;
  globalId: string;
  type: 'sale' | 'credit';
  /** lower case, as in the SDK: `settled`, `settlement_declined` */
  status: string;
  /** decimal string, as in the XML ("10.50") */
  amount: string;
  currency: string;
  merchantAccountId: string;
  orderId: string | null;
  /** a credit's sale (legacy id) */
  refundedTransactionId?: string;
  settlementResponse?: { code: string; text: string };
}

export interface DisputeSubject {
  legacyId: string;
  globalId: string;
  /** lower case, as in the SDK: `open`, `won`… */
  status: string;
  /** lower case: `fraud`, `product_not_received`… */
  reason: string;
  amountDisputed: string;
  currency: string;
  receivedDate: string;
  replyByDate: string;
  transaction: { legacyId: string; amount: string };
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const element = (name: string, value: string | null | undefined) => (value == null ? '' : `\n  <${name}>${escape(value)}</${name}>`);

export function transactionXml(tx: TransactionSubject): string {
  return `<transaction>${element('id', tx.legacyId)}${element('global-id', tx.globalId)}${element('type', tx.type)}${element('status', tx.status)}${element(
    'amount',
    tx.amount,
  )}${element('currency-iso-code', tx.currency)}${element('merchant-account-id', tx.merchantAccountId)}${element('order-id', tx.orderId)}${element(
    'refunded-transaction-id',
    tx.refundedTransactionId,
  )}${element('processor-settlement-response-code', tx.settlementResponse?.code)}${element(
    'processor-settlement-response-text',
    tx.settlementResponse?.text,
  )}
</transaction>`;
}

export function disputeXml(dispute: DisputeSubject): string {
  return `<dispute>${element('id', dispute.legacyId)}${element('global-id', dispute.globalId)}${element('amount', dispute.amountDisputed)}${element(
    'amount-disputed',
    dispute.amountDisputed,
  )}${element('currency-iso-code', dispute.currency)}
  <received-date type="date">${dispute.receivedDate}</received-date>
  <reply-by-date type="date">${dispute.replyByDate}</reply-by-date>${element('kind', 'chargeback')}${element('status', dispute.status)}${element(
    'reason',
    dispute.reason,
  )}
  <transaction>
    <id>${escape(dispute.transaction.legacyId)}</id>
    <amount>${dispute.transaction.amount}</amount>
  </transaction>
  <date-opened type="date">${dispute.receivedDate}</date-opened>
</dispute>`;
}

/** The notification around a subject, timestamped like the SDK's samples (ISO 8601, seconds, UTC). */
export function notificationXml(kind: string, subject: string, at: Date): string {
  return `<notification>
  <timestamp type="datetime">${at.toISOString().replace(/\.\d{3}Z$/, 'Z')}</timestamp>
  <kind>${kind}</kind>
  <subject>${subject}</subject>
</notification>`;
}

/** The form fields Braintree posts: `bt_signature` and `bt_payload`. */
export function signedPayload(xml: string, publicKey: string, privateKey: string): { bt_signature: string; bt_payload: string } {
  const payload = `${Buffer.from(xml, 'utf8').toString('base64')}\n`;
  const key = createHash('sha1').update(privateKey, 'utf8').digest();
  const digest = createHmac('sha1', key).update(payload, 'utf8').digest('hex');
  return { bt_signature: `${publicKey}|${digest}`, bt_payload: payload };
}
