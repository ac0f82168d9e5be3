import { type AuthorizeResult, FAILED_CHALLENGE, type ThreeDSecureResult } from '../providers/types.ts';
import type { RouteTarget } from './route-targets.ts';
import { BadRequest } from '../model/errors.ts';

/**
 * Where 3-D Secure meets routing and what a payment records of it (docs/api.md "3-D Secure"). Braintree authenticates
 * in its own client SDK, never by sending the shopper to a page: it cannot take a payment that must authenticate, and
 * its `authentication_required` sends a shopper who can authenticate on to an account that can ask them.
 */
export const redirectsShopper = (target: Pick<RouteTarget, 'provider'>): boolean => target.provider !== 'braintree';

/**
 * A route for a payment that must authenticate (`why`: the create's `three_d_secure: "required"`, or the rule that
 * requires it): Braintree is left out and the reason says so; with nothing left, 400 naming `three_d_secure`.
 */
export function redirectAuthenticating<R extends { targets: RouteTarget[]; reason: string }>(route: R, why: string): R {
  const targets = route.targets.filter(redirectsShopper);
  if (targets.length === route.targets.length) return route;
  if (targets.length === 0) {
    throw new BadRequest(
      'parameter_invalid',
      'three_d_secure',
      `no connector account can take a payment that must authenticate (${why}): Braintree authenticates in its own client SDK, not by redirect`,
    );
  }
  return { ...route, targets, reason: `${route.reason} Braintree was left out: it authenticates in its own client SDK, not by redirect.` };
}

/**
 * Whether a decline at `target` moves the payment on to authenticate elsewhere: `authentication_required` from an
 * account that cannot send the shopper to authenticate, while one of the accounts still to try (`rest`) can. Only for
 * a shopper who can authenticate (the create gave `return_url`); the caller checks that.
 */
export const authenticatesElsewhere = (target: RouteTarget, declineCode: string, rest: readonly RouteTarget[]): boolean =>
  declineCode === 'authentication_required' && !redirectsShopper(target) && rest.some(redirectsShopper);

/** How the routing decision's reason names that decline. */
export const AUTHENTICATION_DECLINE =
  'declined authentication_required, which it cannot ask the shopper for (it authenticates in its own client SDK)';

/**
 * What a payment records of a challenge that ended (the shopper's return, or the reconciler after their hour): the
 * provider's 3-D Secure details, else what its answer says. `authentication_required` means the shopper failed or
 * never finished the challenge (an abandoned challenge is a failed one, as Stripe counts it); an approval or another
 * decline means the shopper passed (no ECI or liability shift the provider confirmed). Undefined: nothing ended yet.
 */
export function challengeOutcome(result: AuthorizeResult): ThreeDSecureResult | undefined {
  if (result.outcome !== 'approved' && result.outcome !== 'declined') return undefined;
  if (result.threeDSecure) return result.threeDSecure;
  if (result.outcome === 'declined' && result.declineCode === 'authentication_required') return FAILED_CHALLENGE;
  return { ...FAILED_CHALLENGE, result: 'authenticated' };
}
