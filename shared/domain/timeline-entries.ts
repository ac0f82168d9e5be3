import type { HistoryEntry } from '../store/item-schemas.ts';
import { isoNow } from '../model/clock.ts';

export type { HistoryEntry };

/** Who made a change: the merchant through the API, the provider's notification, the reconciler, or a schedule. */
export type ChangeSource = HistoryEntry['source'];

/** One entry of an object's history (appended with the change it records, in the same commit). */
export const historyEntry = (change: string, source: ChangeSource, reference: string | null = null, at = isoNow()): HistoryEntry => ({
  at,
  change,
  source,
  reference,
});
