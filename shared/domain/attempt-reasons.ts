import type { AuthorizeRequest, AuthorizeResult } from '../providers/index.ts';
import { describeTarget, type RouteTarget } from './route-targets.ts';

/** An attempt that did not end the payment: where it went, and what it answered. */
export interface PassedOver {
  target: RouteTarget;
  result: AuthorizeResult;
}

const answered = (result: AuthorizeResult): string =>
  result.outcome === 'declined'
    ? `declined ${result.declineCode} (a soft decline)`
    : result.outcome === 'soft_failure'
      ? result.reason === 'provider_down'
        ? 'was unavailable'
        : `failed before authorizing (${result.reason})`
      : result.outcome;

const paidWith = (method: Pick<AuthorizeRequest, 'card' | 'providerToken' | 'initiator'>): string => {
  const offSession = method.initiator?.type === 'merchant';
  if (method.providerToken) return offSession ? "with that account's token for the card, merchant-initiated" : "with that account's token";
  if (!offSession) return 'with the card';
  return method.initiator?.networkTransactionId
    ? "with the vaulted card, merchant-initiated with the network transaction id of the card's first authorization"
    : 'with the vaulted card, merchant-initiated';
};

/**
 * Why an attempt goes to `target`: the route's first choice (after `why`, what made the charge run), or a failover
 * after what the attempt before it answered; and how it pays there.
 */
export function attemptReason(
  target: RouteTarget,
  before: PassedOver | undefined,
  method: Pick<AuthorizeRequest, 'card' | 'providerToken' | 'initiator'>,
  why?: string,
): string {
  const where = before
    ? `${describeTarget(before.target)} ${answered(before.result)}, so tried at ${describeTarget(target)}`
    : `${why ? `${why}: ` : ''}tried first at ${describeTarget(target)}, the route's first choice`;
  return `${where}, ${paidWith(method)}`;
}
