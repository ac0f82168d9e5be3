import { reconcile } from '../../shared/domain/reconciler.ts';
import { logger } from '../../shared/logger.ts';
import { worker } from '../../shared/worker.ts';

/** Every minute: finishes the provider operations and invoice sends whose run died or lost its answer (shared/domain/reconciler.ts). */
export const handler = worker(async () => {
  const report = await reconcile();
  if (report.found > 0) logger.info('Reconciler finished operations', { ...report });
  return report;
});
