import { sweepOutbox } from '../../shared/domain/webhook-delivery.ts';
import { logger } from '../../shared/logger.ts';
import { worker } from '../../shared/worker.ts';

/** Every 5 minutes: resends events whose send to the queue was lost after their transaction committed. */
export const handler = worker(async () => {
  const result = await sweepOutbox();
  if (result.resent > 0) logger.warn('Outbox sweeper resent stranded events', result);
  return result;
});
