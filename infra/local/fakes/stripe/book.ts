import { createHash, randomBytes } from 'node:crypto';
import { cardBrand, luhnValid } from '../../../../shared/model/cards.ts';
import { TEST_CARDS } from '../../../../shared/providers/test-cards.ts';
import type { FakeHold } from '../types.ts';
import { type Answer, badParam, missing, ok, refused } from './answers.ts';
import { CHALLENGE_PATH, type Challenge, type Challenges } from './three-d-secure.ts';
import { authenticationFailure, authenticationStep, declineAfterAuthentication, merchantInitiation, threeDSecureRecord } from './confirmation.ts';
import { StripeDisputes } from './disputes.ts';
import { type Form, nested, text } from './form.ts';
import { cardError, errorBody, fixture, list, newId, type Notify, type Payments, type StripeObject } from './objects.ts';
import { StripePayouts } from './payouts.ts';
import { listIntents, page, searchIntents } from './reads.ts';
import { StripeRefunds } from './refunds.ts';

const THREE_DECIMAL = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);
const CANCELABLE = new Set(['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing']);
const CANCELLATION_REASONS = new Set(['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned']);
const now = () => Math.floor(Date.now() / 1000);
/** A card network's id for an authorization: 15 digits, like a Visa Transaction ID. */
const networkTransactionId = () => Array.from(randomBytes(15), (byte) => byte % 10).join('');

/**
 * One Stripe account's books: PaymentIntents, their PaymentMethods, Customers, refunds, disputes, the holds, and the
 * 3-D Secure challenges its shoppers answer on the fake's hosted page (at `hostedOrigin()`).
 */
export class StripeBook implements Payments, Challenges {
  readonly holds = new Map<string, FakeHold>();
  readonly refunds: StripeRefunds;
  readonly disputes: StripeDisputes;
  readonly payouts: StripePayouts;
  private readonly intents = new Map<string, StripeObject>();
  private readonly methods = new Map<string, StripeObject>();
  private readonly cardNumbers = new Map<string, string>();
  private readonly customers = new Map<string, StripeObject>();
  /** the card network's id of each approved PaymentIntent's charge */
  private readonly networkIds = new Map<string, string>();
  /** each charge's `three_d_secure` (absent: none ran) */
  private readonly authentications = new Map<string, StripeObject>();
  private readonly challenges = new Map<string, Challenge>();
  /** when each PaymentIntent was captured (epoch seconds): its charge's balance transaction is made then */
  private readonly captureTimes = new Map<string, number>();

  constructor(
    private readonly searchLagMs: number,
    private readonly notify: Notify,
    private readonly hostedOrigin: () => string,
    livemode = false,
  ) {
    this.refunds = new StripeRefunds(this, notify);
    this.disputes = new StripeDisputes(this, notify);
    this.payouts = new StripePayouts(
      {
        charges: () =>
          [...this.holds.values()]
            .filter((hold) => hold.captured > 0)
            .map((hold) => ({ charge: this.charge(hold.reference), capturedAt: this.captureTimes.get(hold.reference) ?? now() })),
        refunds: () => this.refunds.of().reverse(),
        disputes: () => this.disputes.all().reverse(),
      },
      livemode,
    );
  }

  /** The Charge, Refund or Dispute a balance transaction names as its `source`. */
  sourceObject(id: string): StripeObject | undefined {
    if (id.startsWith('ch_')) {
      const intent = [...this.intents.values()].find((pi) => pi.latest_charge === id);
      return intent && this.charge(String(intent.id));
    }
    if (id.startsWith('re_')) return this.refunds.of().find((refund) => refund.id === id);
    if (id.startsWith('dp_')) return this.disputes.all().find((dispute) => dispute.id === id);
    return undefined;
  }

  intent(id: string): StripeObject | undefined {
    return this.intents.get(id);
  }

  hold(id: string): FakeHold | undefined {
    return this.holds.get(id);
  }

  hasMethod(id: string): boolean {
    return this.methods.has(id);
  }

  attachedCustomer(id: string): string | null {
    return (this.methods.get(id)?.customer as string | null | undefined) ?? null;
  }

  /** `POST /v1/payment_methods/:id/detach`: the PaymentMethod leaves its Customer and may not be used again. */
  detachMethod(id: string): Answer {
    const method = this.methods.get(id);
    if (!method) return missing('payment_method', id, 404);
    if (!method.customer)
      return refused({
        code: 'payment_method_unexpected_state',
        message: 'The payment method you provided is not attached to a customer so detachment is impossible.',
      });
    method.customer = null;
    return ok(method);
  }

  /**
   * Stripe's card updater: the network reports a new expiry (or a replaced card, its new number) for a card kept for a
   * Customer; the PaymentMethod changes in place and `payment_method.automatically_updated` is sent.
   */
  updateCard(id: string, update: { exp_month: number; exp_year: number; number?: string }): StripeObject {
    const method = this.methods.get(id)!;
    const card = method.card as StripeObject;
    Object.assign(card, { exp_month: update.exp_month, exp_year: update.exp_year });
    if (update.number) {
      Object.assign(card, { last4: update.number.slice(-4), brand: cardBrand(update.number), display_brand: cardBrand(update.number) });
      this.cardNumbers.set(id, update.number);
    }
    this.notify('payment_method.automatically_updated', method);
    return method;
  }

  disputedNow(intentId: string): boolean {
    return this.disputes.hasOpen(intentId);
  }

  charge(intentId: string): StripeObject {
    const intent = this.intents.get(intentId) ?? {};
    const hold = this.holds.get(intentId);
    const id = String(intent.latest_charge);
    const captured = hold?.captured ?? 0;
    const refunded = hold?.refunded ?? 0;
    return fixture('charge', {
      id,
      amount: intent.amount,
      amount_captured: captured,
      amount_refunded: refunded,
      captured: captured > 0,
      created: intent.created,
      currency: intent.currency,
      customer: intent.customer,
      description: intent.description,
      disputed: this.disputes.all().some((dispute) => dispute.payment_intent === intentId),
      livemode: intent.livemode,
      metadata: intent.metadata,
      payment_intent: intentId,
      payment_method: intent.payment_method,
      payment_method_details: this.cardDetails(intentId, String(intent.payment_method)),
      refunded: captured > 0 && refunded >= captured,
      refunds: list(`/v1/charges/${id}/refunds`, this.refunds.of(intentId), false),
      // no hold: the issuer declined the charge (after 3-D Secure, the only declines that keep one here)
      ...(hold
        ? { status: 'succeeded' }
        : { status: 'failed', paid: false, failure_code: 'card_declined', failure_message: 'Your card was declined.' }),
    });
  }

  /** The Charge's `payment_method_details`: Stripe's card example with this card and its network transaction id. */
  private cardDetails(intentId: string, methodId: string): StripeObject {
    const example = fixture('charge', {}).payment_method_details as { card: StripeObject };
    const card = (this.methods.get(methodId)?.card ?? {}) as StripeObject;
    const { brand, exp_month, exp_year, last4, fingerprint } = card;
    return {
      type: 'card',
      card: {
        ...example.card,
        ...{ brand, exp_month, exp_year, last4, fingerprint, network: brand, wallet: null },
        network_transaction_id: this.networkIds.get(intentId) ?? null,
        three_d_secure: this.authentications.get(intentId) ?? null,
      },
    };
  }

  /** `POST /v1/payment_intents`; confirmed at once with `confirm=true`, following the sandbox's test cards. */
  createIntent(form: Form, context: { livemode: boolean; idempotencyKey?: string; decline?: string }): Answer {
    const initiation = merchantInitiation(form);
    if (typeof initiation !== 'boolean') return initiation;
    const amount = Number(text(form, 'amount'));
    const currency = text(form, 'currency') ?? '';
    if (!Number.isInteger(amount) || amount < 1) return badParam('amount', 'Invalid positive integer');
    if (!/^[a-z]{3}$/.test(currency)) return badParam('currency', `Invalid currency: ${currency}`);
    if (THREE_DECIMAL.has(currency) && amount % 10 !== 0)
      return badParam('amount', `Invalid amount: ${currency.toUpperCase()} amounts must have 0 as their last digit.`);
    if (currency === 'isk' && amount % 100 !== 0)
      return badParam('amount', 'Invalid amount. Currency ISK has become effectively zero-decimal.', 'invalid_charge_amount_no_decimal_compatible');
    const customer = text(form, 'customer');
    if (customer && !this.customers.has(customer)) return missing('customer', customer);
    const stored = text(form, 'payment_method');
    const method = stored ? this.methods.get(stored) : this.newMethod(nested(form, 'payment_method_data'), context.livemode);
    if (stored && !method) return missing('payment_method', stored);
    // A stored card is charged only for the Customer it is attached to (one used without a Customer is not reusable).
    if (stored && (!method?.customer || method.customer !== customer))
      return badParam(
        'payment_method',
        `The provided PaymentMethod ${stored} is not attached to ${customer ?? 'a Customer'} and may not be used again.`,
      );
    const id = newId('pi');
    const intent = fixture('payment_intent', {
      id,
      amount,
      amount_capturable: 0,
      amount_received: 0,
      allowed_payment_method_types: ['card'],
      automatic_payment_methods: null,
      canceled_at: null,
      capture_method: text(form, 'capture_method') ?? 'automatic',
      client_secret: `${id}_secret_${newId('s').slice(2)}`,
      created: now(),
      currency,
      customer: customer ?? null,
      description: text(form, 'description') ?? null,
      last_payment_error: null,
      livemode: context.livemode,
      metadata: nested(form, 'metadata'),
      next_action: null,
      payment_method: method && text(form, 'confirm') !== 'true' ? method.id : null,
      payment_method_configuration_details: null,
      payment_method_types: ['card'],
      processing: null,
      setup_future_usage: text(form, 'setup_future_usage') ?? null,
      shipping: null,
      status: method ? 'requires_confirmation' : 'requires_payment_method',
      transfer_data: null,
    });
    this.intents.set(id, intent);
    if (text(form, 'confirm') !== 'true') return ok(intent);
    if (!method)
      return refused({
        code: 'payment_intent_unexpected_state',
        message: 'You cannot confirm this PaymentIntent because it’s missing a payment method.',
      });
    const number = this.cardNumbers.get(String(method.id)) ?? '';
    const early = context.decline ?? (luhnValid(number) ? undefined : 'incorrect_number');
    if (early) return this.decline(intent, method, early);
    const step = authenticationStep(number, form, initiation);
    if (step.kind === 'decline') return this.decline(intent, method, 'authentication_required');
    if (step.kind === 'challenge')
      return this.challengeFor(intent, method, {
        returnUrl: text(form, 'return_url'),
        stored: Boolean(stored),
        idempotencyKey: context.idempotencyKey,
      });
    return this.charged(intent, method, Boolean(stored), context.idempotencyKey, step.threeDSecure);
  }

  /** The PaymentIntent waits for the shopper: at the fake's challenge page with a `return_url`, else in Stripe.js. */
  private challengeFor(intent: StripeObject, method: StripeObject, how: { returnUrl?: string; stored: boolean; idempotencyKey?: string }): Answer {
    const { returnUrl, stored, idempotencyKey } = how;
    const intentId = String(intent.id);
    const source = newId('payatt');
    const url = `${this.hostedOrigin()}${CHALLENGE_PATH}?payment_intent=${intentId}&source=${source}`;
    const next_action = returnUrl
      ? { type: 'redirect_to_url', redirect_to_url: { url, return_url: returnUrl } }
      : { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect', stripe_js: url, source } };
    Object.assign(intent, { status: 'requires_action', next_action, payment_method: method.id });
    if (returnUrl) this.challenges.set(intentId, { intentId, source, returnUrl, clientSecret: String(intent.client_secret), idempotencyKey, stored });
    return ok(intent);
  }

  challenge(intentId: string): Challenge | undefined {
    return this.challenges.get(intentId);
  }

  waiting(intentId: string): boolean {
    return !this.challenges.get(intentId)?.decided && this.intents.get(intentId)?.status === 'requires_action';
  }

  /** The shopper passed (Stripe then authorizes, as confirmed) or failed (the PaymentIntent wants another card). */
  decide(intentId: string, outcome: 'pass' | 'fail'): void {
    const challenge = this.challenges.get(intentId);
    const intent = this.intents.get(intentId);
    const method = this.methods.get(String(intent?.payment_method));
    if (!challenge || !intent || !method || !this.waiting(intentId)) return;
    challenge.decided = outcome;
    Object.assign(intent, { next_action: null });
    if (outcome === 'pass') {
      const record = threeDSecureRecord(this.cardNumbers.get(String(method.id)) ?? '', 'challenge');
      this.charged(intent, method, challenge.stored, challenge.idempotencyKey, record);
      return;
    }
    Object.assign(intent, { status: 'requires_payment_method', payment_method: null, last_payment_error: authenticationFailure(method) });
  }

  /**
   * The card declines: the PaymentIntent wants another card, and the 402 is saved under the key. A decline after 3-D
   * Secure (`threeDSecure`) leaves a failed charge that says how the cardholder authenticated, as Stripe's does.
   */
  private decline(intent: StripeObject, method: StripeObject, code: string, threeDSecure?: StripeObject | null): Answer {
    const error = cardError(code);
    Object.assign(intent, { status: 'requires_payment_method', last_payment_error: { ...error, payment_method: method } });
    if (threeDSecure) {
      Object.assign(intent, { latest_charge: newId('ch') });
      this.authentications.set(String(intent.id), threeDSecure);
    }
    return { status: 402, body: errorBody({ ...error, payment_intent: intent, payment_method: method }), saved: true };
  }

  /** The issuer's answer to the charge, after any 3-D Secure (`threeDSecure`, on the charge). */
  private charged(intent: StripeObject, method: StripeObject, stored: boolean, idempotencyKey?: string, threeDSecure?: StripeObject | null): Answer {
    const id = String(intent.id);
    const number = this.cardNumbers.get(String(method.id)) ?? '';
    const declined = this.declineFor(String(method.id), stored) ?? declineAfterAuthentication(number);
    if (declined) return this.decline(intent, method, declined, threeDSecure);
    const amount = Number(intent.amount);
    const captured = intent.capture_method !== 'manual';
    Object.assign(intent, {
      status: captured ? 'succeeded' : 'requires_capture',
      amount_capturable: captured ? 0 : amount,
      amount_received: captured ? amount : 0,
      payment_method: method.id,
      latest_charge: newId('ch'),
    });
    const customer = intent.customer ? String(intent.customer) : undefined;
    if (customer && intent.setup_future_usage) method.customer = customer;
    this.networkIds.set(id, networkTransactionId());
    if (threeDSecure) this.authentications.set(id, threeDSecure);
    const currency = String(intent.currency);
    const hold: FakeHold = { reference: id, idempotencyKey, amount, currency, state: 'authorized', captured: 0, refunded: 0 };
    if (captured) Object.assign(hold, { state: 'captured', captured: amount });
    if (captured) this.captureTimes.set(id, now());
    this.holds.set(id, hold);
    return ok(intent);
  }

  /** The card's answer (Stripe's decline code), or undefined when it approves. */
  private declineFor(methodId: string, stored: boolean): string | undefined {
    const number = this.cardNumbers.get(methodId) ?? '';
    if (!luhnValid(number)) return 'incorrect_number';
    const behaviour = TEST_CARDS[number];
    if (!behaviour) return undefined;
    if ('decline' in behaviour) return behaviour.decline;
    if ('soft' in behaviour) return 'processing_error';
    return stored ? 'generic_decline' : undefined;
  }

  private newMethod(data: Form, livemode: boolean): StripeObject | undefined {
    const card = nested(data, 'card');
    const number = text(card, 'number');
    if (text(data, 'type') !== 'card' || !number) return undefined;
    const id = newId('pm');
    const brand = cardBrand(number);
    const method = fixture('payment_method', {
      id,
      created: now(),
      customer: null,
      livemode,
      metadata: nested(data, 'metadata'),
      type: 'card',
      card: {
        ...(fixture('payment_method', {}).card as StripeObject),
        brand,
        display_brand: brand,
        exp_month: Number(text(card, 'exp_month')),
        exp_year: Number(text(card, 'exp_year')),
        last4: number.slice(-4),
        fingerprint: createHash('sha256').update(number).digest('base64url').slice(0, 16),
        generated_from: null,
        wallet: null,
      },
    });
    this.methods.set(id, method);
    this.cardNumbers.set(id, number);
    return method;
  }

  retrieveIntent(id: string): Answer {
    const intent = this.intents.get(id);
    return intent ? ok(intent) : missing('payment_intent', id, 404);
  }

  /** `POST /v1/payment_intents/:id/capture`: once, up to the amount capturable (the rest is released). */
  captureIntent(id: string, form: Form): Answer {
    const intent = this.intents.get(id);
    if (!intent) return missing('payment_intent', id, 404);
    if (intent.status !== 'requires_capture')
      return refused({
        code: 'payment_intent_unexpected_state',
        message: `This PaymentIntent could not be captured because it has a status of ${intent.status}.`,
        payment_intent: intent,
      });
    const amount = text(form, 'amount_to_capture') === undefined ? Number(intent.amount_capturable) : Number(text(form, 'amount_to_capture'));
    if (!Number.isInteger(amount) || amount < 1) return badParam('amount_to_capture', 'Invalid positive integer');
    if (amount > Number(intent.amount_capturable))
      return refused({
        code: 'amount_too_large',
        param: 'amount_to_capture',
        message: 'The amount to capture must be at most the amount capturable.',
      });
    Object.assign(intent, { status: 'succeeded', amount_received: amount, amount_capturable: 0 });
    Object.assign(this.holds.get(id) ?? {}, { state: 'captured', captured: amount });
    this.captureTimes.set(id, now());
    this.notify('charge.captured', this.charge(id));
    this.notify('payment_intent.succeeded', intent);
    return ok(intent);
  }

  /** `POST /v1/payment_intents/:id/cancel`: only while nothing is captured. */
  cancelIntent(id: string, form: Form): Answer {
    const intent = this.intents.get(id);
    if (!intent) return missing('payment_intent', id, 404);
    const reason = text(form, 'cancellation_reason');
    if (reason && !CANCELLATION_REASONS.has(reason)) return badParam('cancellation_reason', `Invalid cancellation_reason: ${reason}`);
    if (!CANCELABLE.has(String(intent.status)))
      return refused({
        code: 'payment_intent_unexpected_state',
        message: `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${[...CANCELABLE].join(', ')}.`,
        payment_intent: intent,
      });
    Object.assign(intent, { status: 'canceled', cancellation_reason: reason ?? null, canceled_at: now(), amount_capturable: 0 });
    Object.assign(this.holds.get(id) ?? {}, { state: 'voided' });
    this.notify('payment_intent.canceled', intent);
    return ok(intent);
  }

  /** `GET /v1/payment_intents`: newest first, filtered by `created[gte|gt|lte|lt]` and `customer`. */
  listIntents(query: Form): Answer {
    return listIntents(this.newestFirst(), query);
  }

  /** `GET /v1/payment_intents/search`: eventually consistent, like Stripe's (see `searchIntents`). */
  searchIntents(query: Form): Answer {
    return searchIntents(this.newestFirst(), query, this.searchLagMs);
  }

  createCustomer(form: Form, livemode: boolean): Answer {
    const id = newId('cus');
    const customer = fixture('customer', {
      id,
      created: now(),
      discount: null,
      email: text(form, 'email') ?? null,
      livemode,
      metadata: nested(form, 'metadata'),
    });
    this.customers.set(id, customer);
    return ok(customer);
  }

  /** `GET /v1/customers?email=…`: newest first. */
  listCustomers(query: Form): Answer {
    const email = text(query, 'email');
    const matching = [...this.customers.values()].reverse().filter((c) => !email || c.email === email);
    return page('/v1/customers', matching, query);
  }

  balance(livemode: boolean): Answer {
    return ok(fixture('balance', { livemode }));
  }

  /** Moves every object's creation time (and every capture's time) back by `ms`. */
  backdate(ms: number): void {
    for (const object of [...this.intents.values(), ...this.customers.values()]) object.created = Number(object.created) - Math.round(ms / 1000);
    for (const [id, at] of this.captureTimes) this.captureTimes.set(id, at - Math.round(ms / 1000));
  }

  private newestFirst(): StripeObject[] {
    return [...this.intents.values()].reverse().sort((a, b) => Number(b.created) - Number(a.created));
  }
}
