/**
 * What one of Adyen's notification items (Webhooks v1 `NotificationRequestItem`) says about our payments, as a
 * ProviderChange: a capture, cancellation, refund (our refund id from `merchantReference`) or dispute, or null for any
 * other event or another merchant account. The event id is `eventCode:pspReference:success`, what Adyen repeats when it
 * resends an item, so duplicates share it.
 */
import type { DisputeReason, DisputeStatus, InboundNotification, ProviderChange } from '../types.ts';
import { fromAdyenValue } from './amounts.ts';
import { refundIdOf, SETTLEMENT_REPORT_NAME } from './references.ts';

export interface NotificationItem {
  eventCode: string;
  pspReference: string;
  originalReference?: string;
  merchantAccountCode: string;
  merchantReference: string;
  eventDate: string;
  success: string;
  amount: { value: number; currency: string };
  reason?: string;
  additionalData?: Record<string, string | undefined>;
}

const DISPUTE_EVENTS: Readonly<Record<string, DisputeStatus>> = {
  NOTIFICATION_OF_CHARGEBACK: 'needs_response',
  CHARGEBACK: 'needs_response',
  REQUEST_FOR_INFORMATION: 'needs_response',
  INFORMATION_SUPPLIED: 'under_review',
  CHARGEBACK_REVERSED: 'won',
  PREARBITRATION_WON: 'won',
  SECOND_CHARGEBACK: 'lost',
  PREARBITRATION_LOST: 'lost',
};
const REFUND_FAILURES = new Set(['REFUND_FAILED', 'REFUNDED_REVERSED']);

/**
 * Scheme reason codes (Visa VCR, Mastercard) → our reason; any other code is `general`. Fraud: Visa 10.x,
 * Mastercard 4837 (no cardholder authorization), 4840, 4849, 4863, 4870, 4871.
 */
export const CHARGEBACK_REASONS: Readonly<Record<string, DisputeReason>> = {
  '10.1': 'fraudulent',
  '10.2': 'fraudulent',
  '10.3': 'fraudulent',
  '10.4': 'fraudulent',
  '10.5': 'fraudulent',
  '4837': 'fraudulent',
  '4840': 'fraudulent',
  '4849': 'fraudulent',
  '4863': 'fraudulent',
  '4870': 'fraudulent',
  '4871': 'fraudulent',
  '12.6.1': 'duplicate',
  '4834': 'duplicate',
  '13.1': 'product_not_received',
  '4855': 'product_not_received',
  '13.2': 'subscription_canceled',
  '4841': 'subscription_canceled',
  '13.3': 'product_unacceptable',
  '13.6': 'credit_not_processed',
  '4860': 'credit_not_processed',
};

export function disputeReasonOf(item: NotificationItem): DisputeReason {
  const code = (item.additionalData?.chargebackReasonCode ?? item.additionalData?.rfiReasonCode)?.trim();
  const listed = code ? CHARGEBACK_REASONS[code] : undefined;
  if (listed) return listed;
  return /fraud/i.test(item.reason ?? '') ? 'fraudulent' : 'general';
}

/** An ISO 8601 instant of Adyen's `YYYY-MM-DDThh:mm:ss+TZD`, or undefined when it is not one. */
const instant = (text: string | undefined) => {
  const time = text ? Date.parse(text) : NaN;
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
};

function disputeStatusOf(item: NotificationItem, byEvent: DisputeStatus): DisputeStatus {
  if (byEvent !== 'needs_response') return byEvent;
  const adyenStatus = item.additionalData?.disputeStatus;
  if (adyenStatus === 'Accepted') return 'accepted';
  if (adyenStatus === 'Responded') return 'under_review';
  return byEvent;
}

export function changeOf(item: NotificationItem, merchantAccount: string): ProviderChange | null {
  const paymentReference = item.originalReference;
  if (!paymentReference || item.merchantAccountCode !== merchantAccount) return null;
  const success = item.success === 'true';
  const reason = item.reason || undefined;
  const { eventCode } = item;
  const money = { amount: fromAdyenValue(item.amount.value, item.amount.currency), currency: item.amount.currency.toUpperCase() };
  if (eventCode === 'CAPTURE' || eventCode === 'CAPTURE_FAILED' || eventCode === 'CANCELLATION') {
    const failed = !success || eventCode === 'CAPTURE_FAILED';
    return {
      object: eventCode === 'CANCELLATION' ? 'cancellation' : 'capture',
      status: failed ? 'failed' : 'succeeded',
      paymentReference,
      ...(failed && reason ? { reason } : {}),
    };
  }
  if (eventCode === 'REFUND' || REFUND_FAILURES.has(eventCode)) {
    const failed = !success || REFUND_FAILURES.has(eventCode);
    const refundId = refundIdOf(item.merchantReference);
    return {
      object: 'refund',
      status: failed ? 'failed' : 'succeeded',
      paymentReference,
      refundReference: item.pspReference,
      ...(refundId ? { refundId } : {}),
      ...money,
      ...(failed && reason ? { reason } : {}),
    };
  }
  const byEvent = DISPUTE_EVENTS[eventCode];
  if (!byEvent) return null;
  return {
    object: 'dispute',
    status: disputeStatusOf(item, byEvent),
    paymentReference,
    disputeReference: item.pspReference,
    ...money,
    reason: disputeReasonOf(item),
    evidenceDueBy: instant(item.additionalData?.defensePeriodEndsAt) ?? null,
  };
}

/** The item as our notification; `receivedAt` stands in for an `eventDate` that is not a date. */
export function notificationOf(item: NotificationItem, merchantAccount: string, receivedAt: string): InboundNotification {
  const report =
    item.eventCode === 'REPORT_AVAILABLE' && item.merchantAccountCode === merchantAccount && SETTLEMENT_REPORT_NAME.test(item.pspReference);
  return {
    eventId: `${item.eventCode}:${item.pspReference}:${item.success}`,
    occurredAt: instant(item.eventDate) ?? receivedAt,
    change: changeOf(item, merchantAccount),
    ...(report ? { payoutReport: item.pspReference } : {}),
  };
}
