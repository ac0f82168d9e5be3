/**
 * Adyen's live connector on Checkout v72 (client.ts; why each call is safe to retry: docs/providers.md "Retry safety at
 * each provider"). Our attempt id is the `reference` and `Idempotency-Key` of POST /payments (manual capture; `storeFor`
 * stores the card for `ContAuth` charges). lookup replays that request under the same key; reverse is the "technical
 * cancel" by reference. Captures, voids and refunds answer `received` (pending until the notification); a 422 is
 * `refused`. changesOf: none, as Checkout has no read API. Disputes and notifications: follow-up.ts. 3-D Secure:
 * a `RedirectShopper` answer sends the shopper on (three-d-secure.ts), and /payments/details with the `redirectResult` they
 * come back with finishes the payment.
 */
import { providerDeadlines } from '../deadlines.ts';
import { failedAuthorization, failedOperation } from '../failures.ts';
import { within } from '../transport.ts';
import type {
  AuthorizeRequest,
  AuthorizeResult,
  Connector,
  LookupResult,
  MappedFailure,
  OperationResult,
  ProviderChange,
  ShopperAction,
  ThreeDSecureResult,
} from '../types.ts';
import { adyenValue } from './amounts.ts';
import { adyenKey, type Answer, type CheckoutClient, derivedKey, idempotent, operationFailure, send } from './client.ts';
import type { AdyenCredentials } from './credentials.ts';
import { mapPaymentResult } from './errors.ts';
import { paymentRequest, parseProviderToken, storedTokenOf, tokenOf } from './authorization.ts';

/** Adyen's error codes for a token it does not hold: Contract not found, PaymentDetail not found. */
const STORED_GONE = new Set(['800', '803']);
import { shopperActionOf, threeDSecureOf } from './three-d-secure.ts';

interface Approval {
  reference: string;
  providerToken: string;
  networkTransactionId?: string;
  threeDSecure?: ThreeDSecureResult;
  cardUpdate?: { exp_month: number; exp_year: number; last4?: string };
}
type PaymentOutcome =
  | { approved: Approval }
  | { redirect: { reference: string; action: ShopperAction } }
  | { failure: MappedFailure; answered: boolean; threeDSecure?: ThreeDSecureResult };

export class AdyenConnector implements Connector {
  readonly name = 'adyen' as const;

  constructor(
    private readonly credentials: AdyenCredentials,
    private readonly client: CheckoutClient,
  ) {}

  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const started = performance.now();
    // Rounded up: timers may fire a fraction of a millisecond early.
    const latencyMs = () => Math.ceil(performance.now() - started);
    const outcome = await this.pay(request, within(providerDeadlines.authorizeMs, request.signal));
    if ('approved' in outcome) return { outcome: 'approved', ...outcome.approved, latencyMs: latencyMs() };
    if ('redirect' in outcome) return { outcome: 'requires_action', ...outcome.redirect, latencyMs: latencyMs() };
    return withAuthentication(failedAuthorization(outcome.failure, latencyMs()), outcome.threeDSecure);
  }

  /**
   * POST /payments/details with the `redirectResult` the shopper came back with, under a key derived from ours (Adyen's
   * keys are unique across endpoints, so the attempt's own key would replay its /payments answer). A result of
   * another payment finishes nothing here; `Cancelled` (the payment was cancelled while the shopper was away) and a
   * refusal after the challenge are the card's answer.
   */
  async completeAuthentication(
    reference: string,
    returned: Record<string, string>,
    idempotencyKey: string,
    signal?: AbortSignal,
  ): Promise<AuthorizeResult> {
    const started = performance.now();
    const latencyMs = () => Math.ceil(performance.now() - started);
    const { redirectResult } = returned;
    // Nothing to ask Adyen with (a return without Adyen's result): this payment is as it was.
    if (!redirectResult) return { outcome: 'soft_failure', reason: 'processing_error', latencyMs: latencyMs() };
    const answer = await send(
      (s) =>
        this.client.POST('/payments/details', {
          params: { header: { 'Idempotency-Key': derivedKey(idempotencyKey, 'details') } },
          body: { details: { redirectResult } },
          signal: s,
        }),
      within(providerDeadlines.authorizeMs, signal),
    );
    if (!answer.ok) return failedAuthorization(answer.failure, latencyMs());
    const { resultCode, pspReference, additionalData } = answer.data;
    if (pspReference !== reference) return { outcome: 'soft_failure', reason: 'processing_error', latencyMs: latencyMs() };
    if (resultCode === 'Cancelled') return { outcome: 'declined', declineCode: 'authentication_required', latencyMs: latencyMs() };
    const result = mapPaymentResult({ ...answer.data, refusalReasonRaw: additionalData?.refusalReasonRaw });
    if (result !== 'approved') return withAuthentication(failedAuthorization(result, latencyMs()), threeDSecureOf(additionalData, true));
    return { outcome: 'approved', ...approval(reference, storedTokenOf(additionalData), additionalData, true), latencyMs: latencyMs() };
  }

  /**
   * With `replay`: the identical /payments request under the same Idempotency-Key, so Adyen answers what it stored for
   * the key. An authorization found is used; a refusal is a decline; an Adyen answer that holds nothing (result
   * `Error`, the request refused as invalid) is `none`; anything else (no answer, still in progress) stays unknown.
   * Without `replay` Checkout offers no strongly consistent read by our reference: `unknown`.
   */
  async lookup(idempotencyKey: string, signal?: AbortSignal, replay?: AuthorizeRequest): Promise<LookupResult> {
    if (!replay) return { found: 'unknown' };
    const outcome = await this.pay({ ...replay, idempotencyKey }, within(providerDeadlines.lookupMs, signal));
    if ('approved' in outcome) return { found: 'authorized', ...outcome.approved };
    // Waiting for the shopper: nothing is authorized yet (`authorize` under the same key answers the action again).
    if ('redirect' in outcome) return { found: 'unknown' };
    const { failure, answered } = outcome;
    if (failure.class === 'hard') return { found: 'declined', declineCode: failure.declineCode };
    if (answered && failure.class === 'soft') return { found: 'none' };
    return { found: 'unknown' };
  }

  /** The technical cancel: POST /cancels by our reference, which Adyen applies to the payment now or when it lands. */
  async reverse(idempotencyKey: string): Promise<OperationResult> {
    const answer = await send(
      (signal) =>
        this.client.POST('/cancels', {
          params: { header: { 'Idempotency-Key': derivedKey(idempotencyKey, 'reverse') } },
          body: {
            merchantAccount: this.credentials.merchant_account,
            paymentReference: adyenKey(idempotencyKey),
            reference: derivedKey(idempotencyKey, 'reverse'),
          },
          signal,
        }),
      within(providerDeadlines.operationMs),
    );
    return answer.ok && answer.data.status === 'received' ? { ok: true, reference: answer.data.pspReference } : failedOperation(unreceived(answer));
  }

  capture(reference: string, amount: number, currency: string, idempotencyKey: string): Promise<OperationResult> {
    return this.modify('captures', reference, idempotencyKey, { amount, currency });
  }

  void(reference: string, idempotencyKey: string): Promise<OperationResult> {
    return this.modify('cancels', reference, idempotencyKey);
  }

  refund(reference: string, amount: number, currency: string, idempotencyKey: string): Promise<OperationResult> {
    return this.modify('refunds', reference, idempotencyKey, { amount, currency });
  }

  /** A modification of the payment `reference` (its pspReference), under our key: `money` for a capture or refund. */
  private async modify(
    kind: 'captures' | 'cancels' | 'refunds',
    reference: string,
    idempotencyKey: string,
    money?: { amount: number; currency: string },
  ): Promise<OperationResult> {
    let amount = {};
    if (money) {
      const value = adyenValue(money.amount, money.currency);
      if (value === undefined) return { ok: false, reason: 'processing_error' };
      amount = { amount: { currency: money.currency.toUpperCase(), value } };
    }
    const answer = await send(
      (signal) =>
        this.client.POST(`/payments/{paymentPspReference}/${kind}`, {
          params: { path: { paymentPspReference: reference }, ...idempotent(idempotencyKey) },
          body: { merchantAccount: this.credentials.merchant_account, ...amount, reference: adyenKey(idempotencyKey) },
          signal,
        }),
      within(providerDeadlines.operationMs),
    );
    if (answer.ok && answer.data.status === 'received') return { ok: true, reference: answer.data.pspReference, pending: true };
    return answer.ok ? failedOperation(unreceived(answer)) : operationFailure(answer);
  }

  /** Checkout cannot be asked about modifications or disputes: Adyen's retried notifications stand in for it. */
  async changesOf(): Promise<ProviderChange[] | undefined> {
    return undefined;
  }

  /**
   * DELETE /storedPaymentMethods/{id} for the shopper: the token can no longer be used. Adyen's "not found" answers
   * (800 contract, 803 payment detail) mean it was deleted before.
   */
  async removeToken(token: string): Promise<OperationResult> {
    const stored = parseProviderToken(token);
    if (!stored) return { ok: false, reason: 'refused', message: 'not an Adyen stored payment method token' };
    const answer = await send(
      (signal) =>
        this.client.DELETE('/storedPaymentMethods/{storedPaymentMethodId}', {
          params: {
            path: { storedPaymentMethodId: stored.storedPaymentMethodId },
            query: { shopperReference: stored.shopperReference, merchantAccount: this.credentials.merchant_account },
          },
          signal,
        }),
      within(providerDeadlines.operationMs),
    );
    if (answer.ok || (answer.status === 422 && STORED_GONE.has(answer.error?.errorCode ?? ''))) {
      return { ok: true, reference: stored.storedPaymentMethodId };
    }
    return operationFailure(answer);
  }

  /** POST /payments for `request`, and what the answer means. */
  private async pay(request: AuthorizeRequest, signal: AbortSignal): Promise<PaymentOutcome> {
    const body = paymentRequest(request, this.credentials.merchant_account);
    if ('failure' in body) return { failure: body.failure, answered: false };
    const answer = await send(
      (s) => this.client.POST('/payments', { params: idempotent(request.idempotencyKey), body: body.request, signal: s }),
      signal,
    );
    if (!answer.ok) return { failure: answer.failure, answered: answer.status === 422 };
    const { pspReference, additionalData, resultCode } = answer.data;
    const action = request.authentication && resultCode === 'RedirectShopper' ? shopperActionOf(answer.data.action) : undefined;
    if (action && pspReference) return { redirect: { reference: pspReference, action } };
    const result = mapPaymentResult({ ...answer.data, refusalReasonRaw: additionalData?.refusalReasonRaw });
    if (result !== 'approved') return { failure: result, answered: true, threeDSecure: threeDSecureOf(additionalData) };
    if (!pspReference) return { failure: { declineCode: 'processing_error', class: 'unknown' }, answered: false };
    return { approved: approval(pspReference, tokenOf(request, body.request, answer.data), additionalData, false) };
  }
}

/** An authorization's details: its network's id and 3DS outcome when Adyen returns them (Customer Area: Additional data). */
function approval(reference: string, providerToken: string, data: Record<string, string> | undefined, challenged: boolean): Approval {
  const networkTransactionId = data?.networkTxReference;
  const threeDSecure = threeDSecureOf(data, challenged);
  const cardUpdate = accountUpdateOf(data);
  return {
    reference,
    providerToken,
    ...(networkTransactionId ? { networkTransactionId } : {}),
    ...(threeDSecure ? { threeDSecure } : {}),
    ...(cardUpdate ? { cardUpdate } : {}),
  };
}

/** A refusal after 3-D Secure says how the shopper authenticated (failed the challenge; passed, then refused). */
function withAuthentication(result: AuthorizeResult, threeDSecure: ThreeDSecureResult | undefined): AuthorizeResult {
  return result.outcome === 'declined' && threeDSecure ? { ...result, threeDSecure } : result;
}

/** Real Time Account Updater: the stored card was charged with details the networks changed (`expiryDate` M/YYYY). */
function accountUpdateOf(data: Record<string, string> | undefined) {
  const status = data?.realtimeAccountUpdaterStatus;
  const expiry = /^(\d{1,2})\/(\d{4})$/.exec(data?.expiryDate ?? '');
  if ((status !== 'CardChanged' && status !== 'CardExpiryChanged') || !expiry) return undefined;
  const last4 = status === 'CardChanged' && /^\d{4}$/.test(data?.cardSummary ?? '') ? data!.cardSummary : undefined;
  return { exp_month: Number(expiry[1]), exp_year: Number(expiry[2]), ...(last4 ? { last4 } : {}) };
}

/**
 * Why a modification's answer is not `received`: a 2xx with another status is not an answer the contract allows
 * (nothing can be said of its outcome), else the error's class.
 */
function unreceived(answer: Answer<{ status: string; pspReference: string }>): MappedFailure {
  return answer.ok ? { declineCode: 'processing_error', class: 'unknown' } : answer.failure;
}
