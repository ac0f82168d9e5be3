import type { RemovalMessage } from '../events/removals.ts';
import { logger } from '../logger.ts';
import * as paymentMethods from '../store/payment-methods.ts';
import { connectorForOperation } from './connectors.ts';

/**
 * The removals queue's work (docs/api.md "Deleting a payment method"): a deleted payment method's tokens are removed
 * at each connector account that issued one, each forgotten once its provider confirms, so a retry calls only the
 * ones still left. Any failure fails the message: SQS hands it back after its visibility timeout, and after five
 * tries moves it to the dead-letter queue (alarmed). The customer's default and card claim are let go of again, in
 * case the delete's request ended before it did.
 */
export async function removeDeletedPaymentMethod(message: RemovalMessage): Promise<void> {
  const owner = { merchant_id: message.merchant_id, livemode: message.livemode };
  const pm = await paymentMethods.getAnyPaymentMethod(owner, message.payment_method_id);
  if (!pm?.deleted_at) return;
  await paymentMethods.releaseCustomer(pm);
  const failures = (
    await Promise.all(
      Object.entries(pm.tokens).map(async ([account, token]) => {
        const connector = await connectorForOperation(owner, { provider: token.provider, connector_id: token.connector_id ?? undefined });
        const removed = await connector.removeToken(token.token);
        if (!removed.ok) return [`${account}: ${removed.reason}${removed.reason === 'refused' ? ` (${removed.message})` : ''}`];
        await paymentMethods.forgetToken(pm.id, account);
        return [];
      }),
    )
  ).flat();
  if (failures.length) {
    logger.warn('A deleted payment method keeps tokens at connector accounts; the removal is retried', { payment_method_id: pm.id, failures });
    throw new Error(`Token removal failed at ${failures.length} connector account(s); retried`);
  }
}
