/**
 * Stripe's public test cards and what the sandbox answers for them. Any other Luhn-valid number is approved.
 * `first_attempt_processing_error` fails only at the first provider tried, so routing fails over.
 */
export const TEST_CARDS: Readonly<Record<string, { decline: string } | { soft: 'first_attempt_processing_error' } | { laterChargesDecline: true }>> =
  {
    '4000000000000002': { decline: 'generic_decline' },
    '4000000000009995': { decline: 'insufficient_funds' },
    '4000000000009987': { decline: 'lost_card' },
    '4000000000009979': { decline: 'stolen_card' },
    '4000000000000069': { decline: 'expired_card' },
    '4000000000000127': { decline: 'incorrect_cvc' },
    '4100000000000019': { decline: 'fraudulent' },
    '4000000000000119': { soft: 'first_attempt_processing_error' },
    // Stripe's "attaches, but charges fail": the first payment succeeds, charges on its card-on-file token decline.
    '4000000000000341': { laterChargesDecline: true },
  };

/**
 * Stripe's 3-D Secure test cards (docs/api.md "Test mode"): whether the issuer asks the shopper to authenticate, and
 * what it answers once the shopper passed. Any other card authenticates frictionless when asked to; 378282246310005
 * has no 3-D Secure at all. `everyCharge`: asks even off-session, where nobody can answer (authentication_required).
 */
export const AUTHENTICATION_CARDS: Readonly<
  Record<string, { challenge: boolean; afterPass: 'approve' | 'decline'; everyCharge?: true } | { none: true }>
> = {
  '4000002760003184': { challenge: true, afterPass: 'approve', everyCharge: true },
  '4000000000003220': { challenge: true, afterPass: 'approve' },
  '4000008400001629': { challenge: true, afterPass: 'decline' },
  '4000000000003055': { challenge: false, afterPass: 'approve' },
  '378282246310005': { none: true },
};

/** A card every sandbox provider approves (Stripe's 4242… test card), for demos and fixtures. */
export const SANDBOX_APPROVED_CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' } as const;
