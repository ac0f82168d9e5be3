import * as cardCharges from '../store/card-charges.ts';
import type { TransactItem } from '../store/client.ts';
import type { Owner } from '../model/targets.ts';
import { addDays } from '../model/billing-dates.ts';

/**
 * The per-card cap of subscription recovery: at most CARD_RETRY_CAP retries of one saved card (its `pm_`
 * fingerprint) in any CAP_WINDOW_DAYS days, over every connector, as the card networks allow. A retry is every
 * authorization attempt of an off-session renewal but the period's first try (the billing the customer agreed to):
 * the schedule's runs and each failover to another connector account. Counted per day, in the attempt's own
 * transaction; the last 30 days are summed before charging.
 */
export const CARD_RETRY_CAP = 15;
export const CAP_WINDOW_DAYS = 30;

/** Thrown before anything is sent: the card has no retry left in the window until `until` (YYYY-MM-DD). */
export class CardRetryCapReached extends Error {
  constructor(readonly until: string) {
    super(`the card reached ${CARD_RETRY_CAP} retries in ${CAP_WINDOW_DAYS} days; next possible on ${until}`);
  }
}

export interface RetryAllowance {
  /** retries the card may still take today */
  remaining: number;
  /** the first day a retry is allowed again, once none remains */
  until: string;
  /** the counter write of one retry today, for its attempt's transaction */
  counted: () => TransactItem;
}

/** The card's retries left on `today` (YYYY-MM-DD, business time). */
export async function retryAllowance(owner: Owner, fingerprint: string, today: string): Promise<RetryAllowance> {
  const counts = await cardCharges.countsBetween(owner, fingerprint, addDays(today, 1 - CAP_WINDOW_DAYS), today);
  const total = counts.reduce((sum, c) => sum + c.count, 0);
  const others = total - (counts.find((c) => c.day === today)?.count ?? 0);
  // the window frees as its oldest days leave it: the day after enough of them are 30 days old
  let left = total;
  let until = addDays(today, 1);
  for (const { day, count } of counts) {
    if (left < CARD_RETRY_CAP) break;
    left -= count;
    until = addDays(day, CAP_WINDOW_DAYS);
  }
  const expiresAt = Date.parse(`${addDays(today, CAP_WINDOW_DAYS + 1)}T00:00:00.000Z`);
  return {
    remaining: Math.max(0, CARD_RETRY_CAP - total),
    until,
    counted: () => cardCharges.retryCounted(owner, fingerprint, today, CARD_RETRY_CAP - others, expiresAt),
  };
}
