import { logger } from '../logger.ts';
import { expiredOperations, type Leased } from '../store/payments.ts';
import { clock } from './clock.ts';
import { reconcileInvoiceSend } from './invoice-delivery.ts';
import { reconcilePaymentOperation, reconcileRefundOperation } from './payment-lifecycle.ts';
import { resolveAuthorization } from './payments.ts';

export interface ReconcileReport {
  found: number;
  settled: number;
  pending: number;
}

/**
 * Finishes every operation whose lease ended (its run died, timed out, or lost the provider's answer): an
 * authorization is looked up under its key and used or reversed; a capture, void or refund is asked again under its
 * key, which the provider answers without a second effect; an invoice send is sent again (at least once, see
 * reconcileInvoiceSend). What still cannot be resolved waits for the next run.
 */
export async function reconcile(now = clock.now()): Promise<ReconcileReport> {
  const report: ReconcileReport = { found: 0, settled: 0, pending: 0 };
  for (const leased of await expiredOperations(now)) {
    report.found++;
    if (await reconcileLeased(leased)) report.settled++;
    else report.pending++;
  }
  return report;
}

/** Finishes one operation whose lease ended; false (logged) when it could not be finished yet. */
export async function reconcileLeased(leased: Leased): Promise<boolean> {
  try {
    if (leased.entity === 'refund') await reconcileRefundOperation(leased.refund);
    else if (leased.entity === 'invoice') await reconcileInvoiceSend(leased.invoice);
    else if (leased.payment.op.kind === 'authorize') {
      if ((await resolveAuthorization(leased.payment, 'reconciler')) === 'pending') throw new Error('authorization still unknown');
    } else await reconcilePaymentOperation(leased.payment);
    return true;
  } catch (error) {
    const op = leased.entity === 'refund' ? leased.refund.op : leased.entity === 'invoice' ? leased.invoice.op : leased.payment.op;
    logger.warn('An operation could not be finished yet; the next run tries again', {
      operation_id: op.id,
      kind: op.kind,
      error: (error as Error).message,
    });
    return false;
  }
}
