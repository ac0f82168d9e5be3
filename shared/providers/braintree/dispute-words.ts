/**
 * Braintree's dispute statuses and reasons in our words. The GraphQL API spells them in capitals (`OPEN`, `FRAUD`),
 * webhook notifications in lower case (`open`, `fraud`): both are read.
 */
import type { DisputeReason, DisputeStatus } from '../types.ts';

const STATUSES: Readonly<Record<string, DisputeStatus>> = {
  OPEN: 'needs_response',
  // DISPUTED: the merchant's evidence was submitted (finalized) and the processor decides
  DISPUTED: 'under_review',
  UNDER_REVIEW: 'under_review',
  WON: 'won',
  LOST: 'lost',
  // the merchant let the reply-by date pass: the cardholder keeps the money
  EXPIRED: 'lost',
  ACCEPTED: 'accepted',
  AUTO_ACCEPTED: 'accepted',
};

const REASONS: Readonly<Record<string, DisputeReason>> = {
  FRAUD: 'fraudulent',
  DUPLICATE: 'duplicate',
  PRODUCT_NOT_RECEIVED: 'product_not_received',
  PRODUCT_UNSATISFACTORY: 'product_unacceptable',
  CANCELLED_RECURRING_TRANSACTION: 'subscription_canceled',
  CREDIT_NOT_PROCESSED: 'credit_not_processed',
  NOT_RECOGNIZED: 'unrecognized',
};

/** undefined: a status we do not know (the change is not followed rather than guessed). */
export const disputeStatus = (status: string | null | undefined): DisputeStatus | undefined => STATUSES[(status ?? '').toUpperCase()];

/** GENERAL, RETRIEVAL, INVALID_ACCOUNT, TRANSACTION_AMOUNT_DIFFERS and anything new: `general`. */
export const disputeReason = (reason: string | null | undefined): DisputeReason => REASONS[(reason ?? '').toUpperCase()] ?? 'general';

/** Braintree's reply-by date (a day, when no `responseDeadline` is given) as an instant: the end of that day, UTC. */
export const replyBy = (date: string) => new Date(`${date}T23:59:59Z`).toISOString();
