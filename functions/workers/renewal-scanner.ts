import { scanRenewals } from '../../shared/domain/renewals.ts';
import { logger } from '../../shared/logger.ts';
import { worker } from '../../shared/worker.ts';

/** Hourly: enqueues one renewal message per subscription due today or earlier (read from the sparse due index). */
export const handler = worker(async () => {
  const result = await scanRenewals();
  logger.info('Renewal scan', result);
  return result;
});
