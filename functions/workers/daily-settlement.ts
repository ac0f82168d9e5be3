import { runDailySettlement } from '../../shared/domain/settlements.ts';
import { worker } from '../../shared/worker.ts';

/** Daily: pending funds two days old become available, available funds are settled, arrived settlements are paid. */
export const handler = worker(async () => runDailySettlement());
