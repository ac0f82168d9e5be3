import { logger } from '../logger.ts';
import { expiredOperations } from '../store/payments.ts';
import { clock } from './clock.ts';
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
 * key, which the provider answers without a second effect. What still cannot be resolved waits for the next run.
 */
export async function reconcile(now = clock.now()): Promise<ReconcileReport> {
  const report: ReconcileReport = { found: 0, settled: 0, pending: 0 };
  for (const leased of await expiredOperations(now)) {
    report.found++;
    try {
      if (leased.entity === 'refund') await reconcileRefundOperation(leased.refund);
      else if (leased.payment.op.kind === 'authorize') {
        if ((await resolveAuthorization(leased.payment, 'reconciler')) === 'pending') throw new Error('authorization still unknown');
      } else await reconcilePaymentOperation(leased.payment);
      report.settled++;
    } catch (error) {
      report.pending++;
      const op = leased.entity === 'refund' ? leased.refund.op : leased.payment.op;
      logger.warn('An operation could not be finished yet; the next run tries again', { operation_id: op.id, kind: op.kind, error: (error as Error).message });
    }
  }
  return report;
}
