import { logger } from '../logger.ts';
import { providerDeadlines } from '../providers/deadlines.ts';
import { commit } from '../store/commit.ts';
import type { Operation } from '../model/targets.ts';
import * as payments from '../store/payments.ts';
import { expiredOperations, type Leased } from '../store/leases.ts';
import { connectorForOperation } from './connectors.ts';
import { reconcileDisputeOperation } from './disputes.ts';
import { applyProviderChange } from './provider-changes.ts';
import { clock } from '../model/clock.ts';
import { reconcileInvoiceSend } from './invoice-delivery.ts';
import { reconcilePaymentOperation } from './payment-lifecycle.ts';
import { reconcileRefundOperation } from './refund-operation.ts';
import { awaiting } from './operations.ts';
import { resolveAuthorization } from './authorization-outcomes.ts';
import { finishAuthentication } from './shopper-authentication.ts';
import { resumeStalledAdvances } from './test-clocks.ts';
import { count } from '../metrics.ts';

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
  const resumed = await resumeStalledAdvances(now);
  if (resumed) logger.info('Stalled test clock advances sent again', { resumed });
  return report;
}

/** Finishes one operation whose lease ended; false (logged) when it could not be finished yet. */
export async function reconcileLeased(leased: Leased): Promise<boolean> {
  const op = leasedOperation(leased);
  try {
    const settled = op.awaiting ? await settleAwaiting(leased) : await finishLeased(leased);
    await count('ReconcilerActions', { entity: leased.entity, action: settled ? 'settled' : 'deferred' });
    return settled;
  } catch (error) {
    await count('ReconcilerActions', { entity: leased.entity, action: 'deferred' });
    logger.warn('An operation could not be finished yet; the next run tries again', {
      operation_id: op.id,
      kind: op.kind,
      error: (error as Error).message,
    });
    return false;
  }
}

/** Carries an operation begun by a run that did not finish it to its end, as the primitive of its entity does. */
async function finishLeased(leased: Leased): Promise<true> {
  if (leased.entity === 'refund') await reconcileRefundOperation(leased.refund);
  else if (leased.entity === 'invoice') await reconcileInvoiceSend(leased.invoice);
  else if (leased.entity === 'dispute') await reconcileDisputeOperation(leased.dispute);
  else if (leased.payment.op.kind === 'authenticate') await finishAuthentication(leased.payment, {}, 'reconciler');
  else if (leased.payment.op.kind === 'authorize') {
    if ((await resolveAuthorization(leased.payment, 'reconciler')) === 'pending') throw new Error('authorization still unknown');
  } else await reconcilePaymentOperation(leased.payment);
  return true;
}

const leasedOperation = (leased: Leased): Operation => {
  switch (leased.entity) {
    case 'payment':
      return leased.payment.op;
    case 'refund':
      return leased.refund.op;
    case 'invoice':
      return leased.invoice.op;
    case 'dispute':
      return leased.dispute.op;
  }
};

/**
 * A capture, cancellation or refund the provider accepted, whose outcome no notification brought: the provider is
 * asked about the payment and what it answers is applied as a notification would be. Still undecided (or a provider
 * that cannot be asked, Adyen: it retries its notifications instead): asked again after another wait.
 */
async function settleAwaiting(leased: Leased): Promise<boolean> {
  if (leased.entity !== 'payment' && leased.entity !== 'refund') return false;
  const item = leased.entity === 'payment' ? leased.payment : leased.refund;
  const op = item.op;
  const payment = leased.entity === 'payment' ? leased.payment : await payments.loadPayment(leased.refund.payment_id);
  if (!payment?.provider_reference) return false;
  const connector = await connectorForOperation(payment, op);
  const changes = await connector.changesOf(payment.provider_reference, AbortSignal.timeout(providerDeadlines.lookupMs * 3));
  for (const change of changes ?? []) {
    const now = await payments.getStoredPayment(payment, payment.id);
    if (now) await applyProviderChange(now, change, { source: 'reconciler', reference: null });
  }
  const target = leased.entity === 'payment' ? payments.paymentTarget(leased.payment) : payments.refundTarget(leased.refund);
  const still =
    leased.entity === 'payment' ? (await payments.getStoredPayment(payment, payment.id))?.op : (await payments.getRefund(payment.id, item.id))?.op;
  if (still?.id !== op.id) return true;
  await commit({ writes: [{ update: target, operation: { replace: op.id, with: awaiting(op) } }] });
  return false;
}
