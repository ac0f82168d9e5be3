/**
 * Braintree's inbound webhooks: a form POST of `bt_signature` and `bt_payload` (base64 XML) signed with the merchant's
 * API keys, verified and read by the official SDK (`webhookNotification.parse`, no network; loaded on the first
 * notification). A notification has no id: a digest of its payload stands in, so a resent one is a duplicate.
 * Braintree sends no notification for a void: voids are synchronous, and `changesOf` reads them.
 */
import { createHash } from 'node:crypto';
import type { InboundNotification, InboundWebhook, ProviderChange, WebhookVerification } from '../types.ts';
import { moneyOf } from './amounts.ts';
import { disputeReason, ourRefundId, replyBy } from './changes.ts';
import type { BraintreeCredentials } from './credentials.ts';

/** Braintree waits for any 2xx; the body is not read. */
const ACKNOWLEDGEMENT = { contentType: 'text/plain', body: 'OK' };

/** The dispute kinds we follow, and the status each reports (the kind is the event; `dispute.status` agrees). */
const DISPUTE_KINDS: Readonly<Record<string, Extract<ProviderChange, { object: 'dispute' }>['status']>> = {
  dispute_opened: 'needs_response',
  dispute_under_review: 'under_review',
  // the merchant's evidence was submitted (finalized): the processor decides
  dispute_disputed: 'under_review',
  dispute_won: 'won',
  dispute_lost: 'lost',
  dispute_expired: 'lost',
  dispute_accepted: 'accepted',
  dispute_auto_accepted: 'accepted',
};

/** What the SDK gives of a notification's transaction (XML attributes in camelCase; `globalId` is the GraphQL id). */
interface NotifiedTransaction {
  id?: string;
  graphQLId?: string;
  type?: string;
  amount?: string;
  currencyIsoCode?: string;
  orderId?: string;
  refundedTransactionId?: string;
  processorSettlementResponseCode?: string;
  processorSettlementResponseText?: string;
}
interface NotifiedDispute {
  id?: string;
  graphQLId?: string;
  amountDisputed?: string;
  currencyIsoCode?: string;
  reason?: string;
  replyByDate?: string;
  transactionDetails?: { id?: string };
}
interface Notification {
  kind: string;
  timestamp: string | Date;
  transaction?: NotifiedTransaction;
  dispute?: NotifiedDispute;
}

export async function parseWebhook(credentials: BraintreeCredentials, request: InboundWebhook): Promise<WebhookVerification> {
  if (!credentials.public_key || !credentials.private_key) return { ok: false, reason: 'the connector has no Braintree API keys to verify with' };
  const form = new URLSearchParams(request.body);
  const signature = form.get('bt_signature');
  const payload = form.get('bt_payload');
  if (!signature || !payload) return { ok: false, reason: 'not signed: bt_signature and bt_payload are required (form-encoded)' };

  const { default: braintree } = await import('braintree');
  // Parsing checks the signature with the keys only; the environment is not used (no call is made).
  const gateway = new braintree.BraintreeGateway({
    environment: braintree.Environment.Sandbox,
    merchantId: credentials.merchant_id,
    publicKey: credentials.public_key,
    privateKey: credentials.private_key,
  });
  let notification: Notification;
  try {
    notification = (await gateway.webhookNotification.parse(signature, payload)) as unknown as Notification;
  } catch (error) {
    const message = (error as Error).message || (error as Error).name;
    return { ok: false, reason: `bt_signature does not verify with this connector's API keys (${message})` };
  }
  const read: InboundNotification = {
    eventId: payloadDigest(payload),
    occurredAt: new Date(notification.timestamp).toISOString(),
    change: changeOf(notification),
  };
  return { ok: true, notifications: [read], acknowledgement: ACKNOWLEDGEMENT };
}

/** The event id: SHA-256 of the payload as Braintree sent it (hex). */
export const payloadDigest = (payload: string) => createHash('sha256').update(payload).digest('hex');

/**
 * A GraphQL id from a legacy id, for a notification without `global-id` (Braintree's own carry it; the SDK's samples
 * do not): Braintree's GraphQL ids are the unpadded base64 of `<type>_<legacy id>`, a convention it keeps but does not
 * document (the `idFromLegacyId` query is the documented way, and parsing makes no call).
 */
export const graphQLId = (type: 'transaction' | 'dispute', legacyId: string) =>
  Buffer.from(`${type}_${legacyId}`).toString('base64').replace(/=+$/, '');

function changeOf(notification: Notification): ProviderChange | null {
  const { kind, transaction, dispute } = notification;
  if (transaction && ['transaction_settled', 'transaction_settlement_declined', 'refund_failed'].includes(kind)) {
    return transactionChange(kind, transaction);
  }
  const status = DISPUTE_KINDS[kind];
  if (dispute && status) return disputeChange(status, dispute);
  return null;
}

function transactionChange(kind: string, tx: NotifiedTransaction): ProviderChange | null {
  const settled = kind === 'transaction_settled';
  const reason = settled ? undefined : [tx.processorSettlementResponseCode, tx.processorSettlementResponseText].filter(Boolean).join(' ');
  const reasonField = reason ? { reason } : {};
  const isRefund = tx.type === 'credit' || kind === 'refund_failed';
  if (!isRefund) {
    if (kind === 'refund_failed') return null;
    const paymentReference = tx.graphQLId ?? (tx.id ? graphQLId('transaction', tx.id) : undefined);
    if (!paymentReference) return null;
    return { object: 'capture', status: settled ? 'succeeded' : 'failed', paymentReference, ...reasonField };
  }
  const money = moneyOf(tx.amount, tx.currencyIsoCode);
  const refundReference = tx.graphQLId ?? (tx.id ? graphQLId('transaction', tx.id) : undefined);
  if (!tx.refundedTransactionId || !refundReference || !money) return null;
  const refundId = ourRefundId(tx.orderId);
  return {
    object: 'refund',
    status: settled ? 'succeeded' : 'failed',
    paymentReference: graphQLId('transaction', tx.refundedTransactionId),
    refundReference,
    ...(refundId ? { refundId } : {}),
    ...money,
    ...reasonField,
  };
}

function disputeChange(status: Extract<ProviderChange, { object: 'dispute' }>['status'], dispute: NotifiedDispute): ProviderChange | null {
  const money = moneyOf(dispute.amountDisputed, dispute.currencyIsoCode);
  const transactionId = dispute.transactionDetails?.id;
  const disputeReference = dispute.graphQLId ?? (dispute.id ? graphQLId('dispute', dispute.id) : undefined);
  if (!money || !transactionId || !disputeReference) return null;
  return {
    object: 'dispute',
    status,
    paymentReference: graphQLId('transaction', transactionId),
    disputeReference,
    ...money,
    reason: disputeReason(dispute.reason),
    evidenceDueBy: dispute.replyByDate ? replyBy(dispute.replyByDate) : null,
  };
}
