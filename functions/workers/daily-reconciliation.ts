import { reconcileAll } from '../../shared/domain/reconciliation.ts';
import { worker } from '../../shared/worker.ts';

/** Daily: every connector account with payouts to read is reconciled with its provider's payouts since its last run. */
export const handler = worker(async () => reconcileAll());
