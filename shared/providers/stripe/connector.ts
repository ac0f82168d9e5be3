import type Stripe from 'stripe';
import { providerDeadlines } from '../deadlines.ts';
import {
  type AuthorizeRequest,
  type AuthorizeResult,
  type Connector,
  FAILED_CHALLENGE,
  type LookupResult,
  type OperationResult,
  type ProviderChange,
} from '../types.ts';
import { toStripeAmount } from './amounts.ts';
import { findIntent, reverseAttempt } from './attempts.ts';
import { changesOf } from './changes.ts';
import { operationFailure, type Sent, send } from './client.ts';
import { alreadyCanceled, authorizeAnswer, foundIn, type IntentParams, notSent, parseToken } from './authorization.ts';
import { AUTHENTICATION_FAILURE } from './three-d-secure.ts';

const timeout = providerDeadlines.operationMs;

/**
 * Stripe through its official SDK: an authorization is a PaymentIntent confirmed at once with manual capture; every
 * call that moves money carries our idempotency key as Stripe's `Idempotency-Key`.
 */
export class StripeConnector implements Connector {
  readonly name = 'stripe' as const;

  constructor(private readonly stripe: Stripe) {}

  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const started = performance.now();
    const sent = await this.createIntent(request, request.signal);
    return authorizeAnswer(sent, Math.ceil(performance.now() - started));
  }

  /**
   * With `replay`, the same PaymentIntent create again under the same key: Stripe answers its saved response (or
   * carries the request out now if it never arrived). A key taken by other parameters (a reversal closed it) or a
   * Stripe that cannot take the replay falls back to the look-up by key: the PaymentIntent whose
   * `metadata.attempt_id` is the key (see `findIntent`).
   */
  async lookup(idempotencyKey: string, signal?: AbortSignal, replay?: AuthorizeRequest): Promise<LookupResult> {
    if (replay) {
      const sent = await this.createIntent(replay, signal);
      if (sent.ok) return foundIn(sent.value);
      if (sent.failure.class === 'hard') return { found: 'declined', declineCode: sent.failure.declineCode };
      if (sent.failure.class === 'unknown') return { found: 'unknown' };
      const keyTaken = (sent.error as { rawType?: string } | undefined)?.rawType === 'idempotency_error';
      if (sent.failure.class === 'soft' && !keyTaken) return { found: 'none' };
    }
    const found = await findIntent(this.stripe, idempotencyKey, signal);
    if (!found.ok) return { found: 'unknown' };
    return found.value ? foundIn(found.value) : { found: 'none' };
  }

  /**
   * The PaymentIntent as Stripe holds it now: after the challenge Stripe authorizes (or declines) on its own. The
   * redirect's fields (`payment_intent`, `payment_intent_client_secret`) came through the shopper's browser, so they
   * are not trusted: `reference` is ours. A read, so no key is sent; asking again answers the same.
   */
  async completeAuthentication(reference: string, _returned: Record<string, string>, _key: string, signal?: AbortSignal): Promise<AuthorizeResult> {
    const started = performance.now();
    const sent = await send(() => this.stripe.paymentIntents.retrieve(reference, { expand: ['latest_charge'] }, { timeout }), signal);
    const latencyMs = Math.ceil(performance.now() - started);
    // Canceled while the shopper was away (abandoned, voided): the authentication never completed.
    if (sent.ok && sent.value.status === 'canceled') return { outcome: 'declined', declineCode: 'authentication_required', latencyMs };
    const answer = authorizeAnswer(sent, latencyMs);
    // The shopper failed the challenge: Stripe keeps no charge to read the 3-D Secure details from, only the error.
    if (answer.outcome === 'declined' && !answer.threeDSecure && sent.ok && sent.value.last_payment_error?.code === AUTHENTICATION_FAILURE)
      return { ...answer, threeDSecure: FAILED_CHALLENGE };
    return answer;
  }

  reverse(idempotencyKey: string): Promise<OperationResult> {
    return reverseAttempt(this.stripe, idempotencyKey);
  }

  /** Synchronous at Stripe: the answer is final (a second capture under another key is refused). */
  async capture(reference: string, amount: number, currency: string, idempotencyKey: string): Promise<OperationResult> {
    const amountToCapture = toStripeAmount(amount, currency);
    if (amountToCapture === undefined) return { ok: false, reason: 'processing_error' };
    const sent = await send(() => this.stripe.paymentIntents.capture(reference, { amount_to_capture: amountToCapture }, { idempotencyKey, timeout }));
    if (!sent.ok) return operationFailure(sent);
    return sent.value.status === 'succeeded' ? { ok: true, reference: sent.value.id } : { ok: false, reason: 'processing_error' };
  }

  async void(reference: string, idempotencyKey: string): Promise<OperationResult> {
    const sent = await send(() => this.stripe.paymentIntents.cancel(reference, {}, { idempotencyKey, timeout }));
    if (sent.ok || alreadyCanceled(sent.error)) return { ok: true, reference };
    return operationFailure(sent);
  }

  /**
   * A refund tagged `metadata.refund_id` (our id, also the key). Stripe answers `pending` (or `requires_action`)
   * when the card network confirms later; a `failed` or `canceled` refund is refused with Stripe's reason.
   */
  async refund(reference: string, amount: number, currency: string, idempotencyKey: string): Promise<OperationResult> {
    const stripeAmount = toStripeAmount(amount, currency);
    if (stripeAmount === undefined) return { ok: false, reason: 'processing_error' };
    const sent = await send(() =>
      this.stripe.refunds.create(
        { payment_intent: reference, amount: stripeAmount, metadata: { refund_id: idempotencyKey } },
        { idempotencyKey, timeout },
      ),
    );
    if (!sent.ok) return operationFailure(sent);
    const refund = sent.value;
    if (refund.status === 'failed' || refund.status === 'canceled')
      return { ok: false, reason: 'refused', message: refund.failure_reason ?? refund.status };
    if (refund.status === 'pending' || refund.status === 'requires_action') return { ok: true, reference: refund.id, pending: true };
    return { ok: true, reference: refund.id };
  }

  changesOf(reference: string, signal?: AbortSignal): Promise<ProviderChange[] | undefined> {
    return changesOf(this.stripe, reference, signal);
  }

  /** Detaches the saved card's PaymentMethod from its Customer (it can no longer be charged); one gone already is as good. */
  async removeToken(token: string): Promise<OperationResult> {
    const stored = parseToken(token);
    if (!stored) return { ok: false, reason: 'refused', message: 'not a Stripe card-on-file token' };
    const sent = await send(() => this.stripe.paymentMethods.detach(stored.payment_method, {}, { timeout }));
    if (sent.ok || goneAlready(sent.error)) return { ok: true, reference: stored.payment_method };
    return operationFailure(sent);
  }

  /** The authorization's PaymentIntent create, sent under our idempotency key (again, for a look-up by replay). */
  private async createIntent(request: AuthorizeRequest, signal?: AbortSignal): Promise<Sent<Stripe.PaymentIntent>> {
    const amount = toStripeAmount(request.amount, request.currency);
    if (amount === undefined) return notSent(`${request.amount} ${request.currency} is not an amount Stripe takes exactly`);
    const params: IntentParams = {
      amount,
      currency: request.currency.toLowerCase(),
      confirm: true,
      capture_method: 'manual',
      allowed_payment_method_types: ['card'],
      metadata: { payment_id: request.paymentId, attempt_id: request.idempotencyKey },
      // The charge, for its network transaction id (payment_method_details.card.network_transaction_id).
      expand: ['latest_charge'],
    };
    if (request.providerToken) {
      const stored = parseToken(request.providerToken);
      if (!stored) return notSent('not a Stripe card-on-file token');
      Object.assign(params, stored);
      // The shopper's own charge of the saved card (customer-initiated), unless the merchant says it starts it.
      if (request.initiator?.type === 'merchant') params.off_session = true;
      else shopperPresent(params, request.authentication);
    } else if (request.card) {
      const { number, exp_month, exp_year, cvc } = request.card;
      const initiator = request.initiator;
      if (initiator?.type === 'merchant') {
        // Off-session: Stripe declines (authentication_required) rather than ask for 3-D Secure; never a CVC.
        params.payment_method_data = { type: 'card', card: { number, exp_month, exp_year } };
        params.off_session = true;
        const network_transaction_id = initiator.networkTransactionId;
        if (network_transaction_id) params.payment_method_options = { card: { mit_exemption: { network_transaction_id } } };
      } else {
        params.payment_method_data = { type: 'card', card: { number, exp_month, exp_year, ...(cvc ? { cvc } : {}) } };
        shopperPresent(params, request.authentication);
      }
      if (request.storeFor) {
        const customer = await this.customerFor(request.storeFor, request.idempotencyKey, signal);
        if (!customer.ok) return customer;
        Object.assign(params, { customer: customer.value, setup_future_usage: 'off_session' });
        const paymentMethodId = request.storeFor.paymentMethodId;
        if (paymentMethodId) params.payment_method_data!.metadata = { payment_method_id: paymentMethodId };
      }
    } else return notSent('neither a card nor a token');
    return send(() => this.stripe.paymentIntents.create(params, { idempotencyKey: request.idempotencyKey }), signal);
  }

  /**
   * The Stripe Customer a card is kept for: the oldest one carrying our customer reference under that e-mail (the
   * list is strongly consistent), else one created under a key derived from the attempt's (a retried attempt
   * creates no second Customer, and its replayed PaymentIntent create names the same one).
   */
  private async customerFor(storeFor: NonNullable<AuthorizeRequest['storeFor']>, key: string, signal?: AbortSignal): Promise<Sent<string>> {
    const reference = storeFor.customerReference;
    if (storeFor.email) {
      const email = storeFor.email;
      const listed = await send(() => this.stripe.customers.list({ email, limit: 100 }), signal);
      if (!listed.ok) return listed;
      const known = listed.value.data.filter((customer) => customer.metadata?.customer_reference === reference).at(-1);
      if (known) return { ok: true, value: known.id };
    }
    const created = await send(
      () =>
        this.stripe.customers.create(
          { email: storeFor.email ?? undefined, metadata: { customer_reference: reference } },
          { idempotencyKey: `${key}_customer` },
        ),
      signal,
    );
    return created.ok ? { ok: true, value: created.value.id } : created;
  }
}

/**
 * A charge with the shopper present. With `authentication`, Stripe may send them to 3-D Secure and bring them back to
 * `returnUrl` (`required`: ask even when the issuer does not); without it no one can complete a challenge, so Stripe
 * declines (`authentication_required`) instead of waiting.
 */
function shopperPresent(params: IntentParams, authentication: AuthorizeRequest['authentication']): void {
  if (!authentication) {
    params.error_on_requires_action = true;
    return;
  }
  params.return_url = authentication.returnUrl;
  params.payment_method_options = { card: { request_three_d_secure: authentication.required ? 'any' : 'automatic' } };
}

/** Stripe's answer for a PaymentMethod that no longer exists, or is attached to no Customer: nothing left to detach. */
const goneAlready = (error: unknown) => {
  const code = (error as { code?: string } | undefined)?.code;
  return code === 'resource_missing' || code === 'payment_method_unexpected_state';
};
