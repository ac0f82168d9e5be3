import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { config, type SANDBOX_FAULTS } from '../config.ts';
import { providerDeadlines } from './deadlines.ts';
import { AUTHENTICATION_CARDS, TEST_CARDS } from './test-cards.ts';
import type {
  AuthorizeRequest,
  AuthorizeResult,
  Connector,
  DisputeDesk,
  LookupResult,
  OperationResult,
  ProviderChange,
  ProviderName,
  ThreeDSecureResult,
} from './types.ts';

const DECLINING_TOKEN = '_declines_';

/** The sandbox issuer's 3-D Secure outcomes (2.2.0, Visa's ECIs: 05 authenticated, 07 not). */
const FRICTIONLESS: ThreeDSecureResult = { version: '2.2.0', flow: 'frictionless', result: 'authenticated', eci: '05', liability_shift: true };
const NOT_SUPPORTED: ThreeDSecureResult = { version: null, flow: 'frictionless', result: 'not_supported', eci: null, liability_shift: false };
const CHALLENGE_PASSED: ThreeDSecureResult = { version: '2.2.0', flow: 'challenge', result: 'authenticated', eci: '05', liability_shift: true };
const CHALLENGE_FAILED: ThreeDSecureResult = { version: '2.2.0', flow: 'challenge', result: 'failed', eci: '07', liability_shift: false };

/**
 * How the sandbox providers behave, read from the configuration at cold start and changeable at run time (tests):
 * `SANDBOX_LATENCY_MS=stripe=120,adyen=80` adds latency, `SANDBOX_DOWN=adyen` makes a provider unreachable,
 * `SANDBOX_FAULTS=stripe=accept_then_timeout` makes it carry out every call and then never answer (the caller's
 * deadline passes: the outcome is unknown to it) or, with `accept_then_drop`, drop the connection after accepting;
 * `accept_then_down` drops it and then goes down (look-ups and reversals fail until `down` is cleared).
 */
export type SandboxFault = (typeof SANDBOX_FAULTS)[number];
export const sandboxSettings = {
  latencyMs: { ...config.SANDBOX_LATENCY_MS },
  down: new Set<string>(config.SANDBOX_DOWN),
  faults: { ...config.SANDBOX_FAULTS } as Partial<Record<string, SandboxFault>>,
};

/** What one sandbox provider holds for an authorization: its state and the money moved on it. */
export interface SandboxAuthorization {
  provider: ProviderName;
  paymentId: string;
  reference: string;
  amount: number;
  state: 'authorized' | 'captured' | 'voided';
  captured: number;
  refunded: number;
  /** what paid: a card (with its CVC or without), or a token the sandbox issued */
  paidWith: 'card and cvc' | 'card' | 'token';
  /** a merchant-initiated charge names the network transaction id of the card's first authorization, if known */
  initiator: { type: 'customer' } | { type: 'merchant'; networkTransactionId: string | null };
}

/**
 * The sandbox providers' books (per process, like a provider's own database): authorizations by reference, and the
 * answer given to every idempotency key, so a call repeated under the same key has no second effect.
 */
export const sandboxBooks = {
  authorizations: new Map<string, SandboxAuthorization>(),
  answers: new Map<string, unknown>(),
  /** every money call that reached a provider: `<provider> <operation> <idempotency key>` */
  calls: [] as string[],
  /** authorizations waiting for the shopper's authentication, by reference */
  challenges: new Map<string, { paymentId: string; amount: number }>(),
};

class ConnectionDropped extends Error {}

/** Waits `ms`; rejects at once when `signal` aborts (the caller's deadline passed). */
const pause = (ms: number, signal?: AbortSignal) => (ms > 0 ? sleep(ms, undefined, { signal }) : Promise.resolve());

const referenceFor = (provider: ProviderName, key: string) => `${provider}_ch_${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
/** A card network's id for an approval, 15 digits like a Visa Transaction ID (derived from the key: stable on replay). */
const networkIdFor = (provider: ProviderName, key: string) =>
  String(BigInt(`0x${createHash('sha256').update(`${provider} network ${key}`).digest('hex').slice(0, 15)}`) % 10n ** 15n).padStart(15, '0');

export class SandboxConnector implements Connector {
  constructor(readonly name: ProviderName) {}

  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const started = performance.now();
    // Rounded up: timers may fire a fraction of a millisecond early.
    const latencyMs = () => Math.ceil(performance.now() - started);
    try {
      if (await this.roundTrip(request.signal)) return { outcome: 'soft_failure', reason: 'provider_down', latencyMs: latencyMs() };
      const result = this.once(`authorize ${request.idempotencyKey}`, () => this.decide(request));
      await this.answer(request.signal);
      return { ...result, latencyMs: latencyMs() };
    } catch (error) {
      if (request.signal?.aborted || error instanceof ConnectionDropped) return { outcome: 'unknown', latencyMs: latencyMs() };
      throw error;
    }
  }

  /** A look-up is a quick read: it takes no configured latency (a slow authorization can still be looked up). */
  async lookup(idempotencyKey: string): Promise<LookupResult> {
    if (sandboxSettings.down.has(this.name)) return { found: 'unknown' };
    const answer = sandboxBooks.answers.get(`${this.name} authorize ${idempotencyKey}`) as AuthorizeResult | undefined;
    if (answer?.outcome === 'approved') {
      const held = sandboxBooks.authorizations.get(answer.reference);
      if (held?.state === 'voided') return { found: 'none' };
      const { reference, providerToken, networkTransactionId } = answer;
      return { found: 'authorized', reference, providerToken, networkTransactionId };
    }
    if (answer?.outcome === 'declined') return { found: 'declined', declineCode: answer.declineCode };
    return { found: 'none' };
  }

  /**
   * Voids what the key authorized, or closes the key so that a request under it still in flight is refused. Like a
   * look-up it takes no configured latency (that models authorizations), but it fails while the provider is down.
   */
  reverse(idempotencyKey: string): Promise<OperationResult> {
    return this.operation(
      `reverse ${idempotencyKey}`,
      () => {
        const key = `${this.name} authorize ${idempotencyKey}`;
        const answer = sandboxBooks.answers.get(key) as AuthorizeResult | undefined;
        if (!answer) sandboxBooks.answers.set(key, { outcome: 'soft_failure', reason: 'processing_error', latencyMs: 0 } satisfies AuthorizeResult);
        const held = answer?.outcome === 'approved' ? sandboxBooks.authorizations.get(answer.reference) : undefined;
        if (held?.state === 'captured') return { ok: false, reason: 'refused', message: 'the payment is captured' };
        if (held) held.state = 'voided';
        return { ok: true, reference: held?.reference ?? idempotencyKey };
      },
      { latency: false },
    );
  }

  capture(reference: string, amount: number, _currency: string, idempotencyKey: string): Promise<OperationResult> {
    return this.operation(`capture ${idempotencyKey}`, () => {
      const held = sandboxBooks.authorizations.get(reference);
      if (held && held.state !== 'authorized') return { ok: false, reason: 'refused', message: `the payment is ${held.state}` };
      if (held) Object.assign(held, { state: 'captured', captured: amount });
      return { ok: true, reference };
    });
  }

  void(reference: string, idempotencyKey: string): Promise<OperationResult> {
    return this.operation(`void ${idempotencyKey}`, () => {
      const held = sandboxBooks.authorizations.get(reference);
      if (held && held.state === 'captured') return { ok: false, reason: 'refused', message: 'the payment is captured' };
      if (held) held.state = 'voided';
      return { ok: true, reference };
    });
  }

  refund(reference: string, amount: number, _currency: string, idempotencyKey: string): Promise<OperationResult> {
    return this.operation(`refund ${idempotencyKey}`, () => {
      const held = sandboxBooks.authorizations.get(reference);
      if (held && (held.state !== 'captured' || held.refunded + amount > held.captured)) {
        return { ok: false, reason: 'refused', message: 'the amount is more than the payment has left to refund' };
      }
      if (held) held.refunded += amount;
      return { ok: true, reference: `${reference}_re_${randomBytes(6).toString('hex')}` };
    });
  }

  /** The sandbox finishes everything at once: it never has later news about a payment. */
  async changesOf(): Promise<ProviderChange[]> {
    return [];
  }

  /** The sandbox keeps no cards for later charges: nothing to remove. */
  async removeToken(token: string): Promise<OperationResult> {
    return { ok: true, reference: token };
  }

  /**
   * The card's answer, and the authorization it leaves held when approved. A merchant-initiated charge of a raw card
   * comes without a CVC and is answered like any other: the test cards decide. The sandbox's Braintree, like
   * Braintree, cannot send a shopper to authenticate (its 3-D Secure runs in its client SDK): a card that challenges
   * is declined `authentication_required` there, `return_url` or not.
   */
  private decide(request: AuthorizeRequest): AuthorizeResult {
    if (request.providerToken?.includes(DECLINING_TOKEN)) return { outcome: 'declined', declineCode: 'generic_decline', latencyMs: 0 };
    const asks = request.card ? AUTHENTICATION_CARDS[request.card.number] : undefined;
    if (request.initiator && asks && 'everyCharge' in asks) return { outcome: 'declined', declineCode: 'authentication_required', latencyMs: 0 };
    const authentication = request.initiator ? undefined : asks;
    const shopper = this.name === 'braintree' ? undefined : request.authentication;
    const challenge = authentication && !('none' in authentication) && (authentication.challenge || shopper?.required);
    if (challenge && !shopper) return { outcome: 'declined', declineCode: 'authentication_required', latencyMs: 0 };
    if (challenge && shopper) return this.challenge(request, authentication.afterPass);
    // What authenticated frictionless (when the shopper could have been asked) says so, approved or declined.
    const frictionless = shopper ? { threeDSecure: authentication && 'none' in authentication ? NOT_SUPPORTED : FRICTIONLESS } : {};
    const behaviour = request.card ? TEST_CARDS[request.card.number] : undefined;
    if (behaviour && 'decline' in behaviour) return { outcome: 'declined', declineCode: behaviour.decline, ...frictionless, latencyMs: 0 };
    if (behaviour && 'soft' in behaviour && request.attempt === 1) return { outcome: 'soft_failure', reason: 'processing_error', latencyMs: 0 };
    const marker = behaviour && 'laterChargesDecline' in behaviour ? DECLINING_TOKEN : '_';
    const reference = referenceFor(this.name, request.idempotencyKey);
    sandboxBooks.authorizations.set(reference, {
      provider: this.name,
      paymentId: request.paymentId,
      reference,
      amount: request.amount,
      state: 'authorized',
      captured: 0,
      refunded: 0,
      paidWith: request.providerToken ? 'token' : request.card?.cvc ? 'card and cvc' : 'card',
      initiator: request.initiator
        ? { type: 'merchant', networkTransactionId: request.initiator.networkTransactionId ?? null }
        : { type: 'customer' },
    });
    return {
      outcome: 'approved',
      reference,
      // A reusable card-on-file token, as a provider's vault issues it (no card data in it).
      providerToken: request.providerToken ?? `tok_${this.name}${marker}${randomBytes(12).toString('hex')}`,
      networkTransactionId: networkIdFor(this.name, request.idempotencyKey),
      ...frictionless,
      latencyMs: 0,
    };
  }

  /**
   * The issuer asks the shopper: the sandbox's own challenge page (served by this service under /hosted/3ds/sandbox,
   * beside the return URL) and, once passed, what the card then answers; both are in the reference, so any process
   * can finish it.
   */
  private challenge(request: AuthorizeRequest, afterPass: 'approve' | 'decline'): AuthorizeResult {
    const reference = `${referenceFor(this.name, request.idempotencyKey)}_3ds_${afterPass}`;
    const { returnUrl } = request.authentication!;
    const base = returnUrl.slice(0, returnUrl.indexOf('/hosted/'));
    const url = `${base}/hosted/3ds/sandbox?${new URLSearchParams({ return_url: returnUrl })}`;
    sandboxBooks.challenges.set(reference, { paymentId: request.paymentId, amount: request.amount });
    return { outcome: 'requires_action', reference, action: { url, method: 'GET' }, latencyMs: 0 };
  }

  /**
   * The shopper came back from the sandbox's challenge page: `sandbox_authentication` is `passed` or `failed`. A
   * challenge finished already (an earlier return whose answer was lost) answers as it ended, whatever this return
   * carries: the provider's state, as Stripe's PaymentIntent read gives it.
   */
  async completeAuthentication(reference: string, returned: Record<string, string>, idempotencyKey: string): Promise<AuthorizeResult> {
    if (await this.roundTrip()) return { outcome: 'soft_failure', reason: 'provider_down', latencyMs: 0 };
    const result = this.once(`complete ${idempotencyKey}`, (): AuthorizeResult => {
      const held = sandboxBooks.authorizations.get(reference);
      if (held)
        return held.state === 'voided'
          ? { outcome: 'declined', declineCode: 'authentication_required', latencyMs: 0 }
          : this.authenticated(reference);
      // Asked without the challenge page's answer (the reconciler): the challenge is as it was, still undecided.
      if (!returned.sandbox_authentication) return { outcome: 'soft_failure', reason: 'processing_error', latencyMs: 0 };
      if (returned.sandbox_authentication !== 'passed')
        return { outcome: 'declined', declineCode: 'authentication_required', threeDSecure: CHALLENGE_FAILED, latencyMs: 0 };
      if (reference.endsWith('_3ds_decline'))
        return { outcome: 'declined', declineCode: 'generic_decline', threeDSecure: CHALLENGE_PASSED, latencyMs: 0 };
      return this.authenticated(reference);
    });
    try {
      await this.answer(AbortSignal.timeout(providerDeadlines.authorizeMs));
    } catch {
      return { outcome: 'unknown', latencyMs: 0 };
    }
    return result;
  }

  /** The challenge passed: the authorization held under its reference, and the approval answered for it (once). */
  private authenticated(reference: string): AuthorizeResult {
    return this.once(`authenticated ${reference}`, (): AuthorizeResult => {
      const asked = sandboxBooks.challenges.get(reference);
      sandboxBooks.authorizations.set(reference, {
        provider: this.name,
        paymentId: asked?.paymentId ?? reference,
        reference,
        amount: asked?.amount ?? 0,
        state: 'authorized',
        captured: 0,
        refunded: 0,
        paidWith: 'card and cvc',
        initiator: { type: 'customer' },
      });
      return {
        outcome: 'approved',
        reference,
        threeDSecure: CHALLENGE_PASSED,
        networkTransactionId: networkIdFor(this.name, reference),
        latencyMs: 0,
      };
    });
  }

  private async operation(call: string, effect: () => OperationResult, { latency = true } = {}): Promise<OperationResult> {
    try {
      if (await this.roundTrip(undefined, latency)) return { ok: false, reason: 'provider_down' };
      const result = this.once(call, effect);
      await this.answer(AbortSignal.timeout(providerDeadlines.operationMs));
      return result;
    } catch {
      return { ok: false, reason: 'unknown' };
    }
  }

  /** The answer already given under this key, or the effect carried out now and remembered. */
  private once<T>(call: string, effect: () => T): T {
    const key = `${this.name} ${call}`;
    if (!sandboxBooks.answers.has(key)) {
      sandboxBooks.calls.push(key);
      sandboxBooks.answers.set(key, effect());
    }
    return sandboxBooks.answers.get(key) as T;
  }

  /** After the provider carried a call out: the injected fault decides whether its answer reaches the caller. */
  private async answer(signal?: AbortSignal): Promise<void> {
    const fault = sandboxSettings.faults[this.name];
    if (fault === 'accept_then_down') sandboxSettings.down.add(this.name);
    if (fault === 'accept_then_drop' || fault === 'accept_then_down') throw new ConnectionDropped('socket hang up');
    if (fault === 'accept_then_timeout')
      await new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new ConnectionDropped('timeout')), { once: true }));
  }

  /** Waits the configured latency; true when the provider is down. */
  private async roundTrip(signal?: AbortSignal, latency = true): Promise<boolean> {
    if (latency) await pause(sandboxSettings.latencyMs[this.name] ?? 0, signal);
    return sandboxSettings.down.has(this.name);
  }
}

/** The sandbox's disputes desk: it takes every answer at once (its disputes are opened by the test helper). */
export const sandboxDisputeDesk: DisputeDesk = {
  submitEvidence: async (disputeReference) => ({ ok: true, reference: disputeReference }),
  accept: async (disputeReference) => ({ ok: true, reference: disputeReference }),
};
