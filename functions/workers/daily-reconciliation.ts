import { enqueueReconciliations } from '../../shared/domain/reconciliation.ts';
import { logger } from '../../shared/logger.ts';
import { worker } from '../../shared/worker.ts';

/** Daily: one reconciliation message per connector account with payouts to read (the reconciliations queue). */
export const handler = worker(async () => {
  const result = await enqueueReconciliations();
  logger.info('Reconciliations enqueued', result);
  return result;
});
