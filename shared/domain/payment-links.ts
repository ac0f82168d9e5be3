import { logger } from '../logger.ts';
import type { InvoiceRecord } from '../store/invoices.ts';
import type { SubscriptionRecord } from '../store/subscriptions.ts';

/**
 * The one place a renewal that needs the customer (`authentication_required`) asks them to pay: the hosted payment
 * link (`/hosted/pay/inv_…`, signed, expiring) with `invoice.payment_action_required` goes out from here. Until the
 * hosted page exists the invoice only waits (`next_retry_at: null`, its `retry_reason` says why).
 */
export async function sendHostedPaymentLink(subscription: SubscriptionRecord, invoice: InvoiceRecord): Promise<void> {
  logger.info('Renewal waits for the customer to pay its invoice', { subscription_id: subscription.id, invoice_id: invoice.id });
}
