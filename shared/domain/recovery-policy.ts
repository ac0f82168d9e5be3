import { addDays } from '../model/billing-dates.ts';

/**
 * Subscription recovery (docs/api.md "Subscription recovery"): what a declined renewal does next, by its decline code.
 * One table, read top-down; `renewals.ts` applies it after every declined run of a period.
 */
export type Treatment =
  /** retried on the days of RETRY_DAYS after the period's first try (and at once at another connector account) */
  | 'soft'
  /** the issuer will not approve this card again: not retried */
  | 'hard'
  /** waits until the card is updated (the provider's account updater, or the customer) */
  | 'wait_for_card'
  /** waits for the customer to pay through the hosted payment link (3-D Secure needs them) */
  | 'wait_for_shopper';

export const RETRY_POLICY: readonly { codes: readonly string[]; treatment: Treatment }[] = [
  { codes: ['insufficient_funds', 'processing_error', 'issuer_not_available', 'try_again_later', 'generic_decline'], treatment: 'soft' },
  {
    codes: ['stolen_card', 'lost_card', 'pickup_card', 'fraudulent', 'invalid_account', 'card_not_supported', 'incorrect_number', 'do_not_try_again'],
    treatment: 'hard',
  },
  { codes: ['expired_card'], treatment: 'wait_for_card' },
  { codes: ['authentication_required'], treatment: 'wait_for_shopper' },
];

/** Days after the period's first try on which a soft decline is tried again. */
export const RETRY_DAYS = [1, 3, 5, 7] as const;

/** Runs of one period at most (the first try, the soft retries, and runs a card's charge cap put off). */
export const MAX_RENEWAL_RUNS = 20;

/**
 * A code in no row (providers add decline codes: `do_not_honor`, `card_velocity_exceeded`, …) is treated as soft:
 * most are the issuer's "not now", a hard guess would end a paying customer's subscription, and the per-card cap
 * bounds what retrying a hopeless card can cost with the networks.
 */
export const treatmentOf = (declineCode: string): Treatment => RETRY_POLICY.find((row) => row.codes.includes(declineCode))?.treatment ?? 'soft';

/** What a declined run of a period leads to: the next run's date (null: none is scheduled) and why, in words. */
export interface Recovery {
  /** `capped`: put off by the card's charge cap, whatever the code */
  treatment: Treatment | 'capped';
  retry_at: string | null;
  reason: string;
}

/**
 * The next step after a run of the period declined `declineCode` on `today`; `firstTry`: the day of the period's
 * first run (day 0 of RETRY_DAYS); `run`: this run's number (0 for the first try).
 */
export function recoveryAfter(declineCode: string, firstTry: string, today: string, run: number): Recovery {
  const treatment = treatmentOf(declineCode);
  const known = RETRY_POLICY.some((row) => row.codes.includes(declineCode));
  if (treatment === 'hard') {
    return {
      treatment,
      retry_at: null,
      reason: `${declineCode} is a hard decline: the issuer will not approve this card again, so it is not retried`,
    };
  }
  if (treatment === 'wait_for_card') {
    return { treatment, retry_at: null, reason: `${declineCode}: waiting for an updated card (the provider's card updater or the customer)` };
  }
  if (treatment === 'wait_for_shopper') {
    return {
      treatment,
      retry_at: null,
      reason: `${declineCode}: the issuer wants the customer to authenticate; waiting for them to pay the invoice`,
    };
  }
  const soft = known ? `${declineCode} is a soft decline` : `${declineCode} is not in the retry policy, so it is treated as a soft decline`;
  const day = RETRY_DAYS.find((d) => addDays(firstTry, d) > today);
  if (day === undefined || run + 1 >= MAX_RENEWAL_RUNS) {
    return { treatment, retry_at: null, reason: `${soft}; the last retry (day ${RETRY_DAYS.at(-1)}) is past, so none is left` };
  }
  return { treatment, retry_at: addDays(firstTry, day), reason: `${soft}: retried on day ${day} after the first try` };
}

/** A run the card's retry cap put off (card-charge-cap.ts): nothing was sent; tried again once the cap allows. */
export function cappedRecovery(until: string, run: number): Recovery {
  const capped = "the card reached its limit of retries in 30 days (the card networks' rule), over every connector: nothing was sent";
  if (run + 1 >= MAX_RENEWAL_RUNS)
    return { treatment: 'capped', retry_at: null, reason: `${capped}; the period ran ${MAX_RENEWAL_RUNS} times, so it is not tried again` };
  return { treatment: 'capped', retry_at: until, reason: `${capped}; tried again on ${until}` };
}
