/**
 * Braintree's live connector on its GraphQL API (client.ts). Braintree deduplicates nothing, so each call is made safe
 * by what can be read back (docs/providers.md "Retry safety at each provider"): our key is the `orderId` of the
 * transaction or refund, searched before acting again; capture and void read the transaction's status; `reverse`
 * never answers "nothing held" for a key this process sent in the last 60 s. Captures and refunds are ok at once.
 */
import { logger } from '../../logger.ts';
import { providerDeadlines } from '../deadlines.ts';
import { failedAuthorization, failedOperation, softReason } from '../failures.ts';
import { within } from '../transport.ts';
import type {
  AuthorizeRequest,
  AuthorizeResult,
  Connector,
  ConnectorAccountRef,
  LookupResult,
  OperationResult,
  ProviderChange,
  SoftFailure,
} from '../types.ts';
import { braintreeAmount, sameAmount } from './amounts.ts';
import { inFlight, lookupAttempt, reverseAttempt } from './attempts.ts';
import { authorizationCall } from './authorization.ts';
import { transactionChanges } from './changes.ts';
import { type Endpoint, endpointFor, post } from './client.ts';
import type { BraintreeCredentials } from './credentials.ts';
import { Failure, MerchantAccounts } from './merchant-accounts.ts';
import { CAPTURE_TRANSACTION, DELETE_PAYMENT_METHOD, REFUND_TRANSACTION, TOKENIZE_CREDIT_CARD } from './queries.ts';
import {
  failedCall,
  networkIdOf,
  readTransaction,
  reverseTransaction,
  transactionState,
  vaultedToken,
  type WireTransaction,
} from './transactions.ts';

export class BraintreeConnector implements Connector {
  readonly name = 'braintree' as const;
  private readonly endpoint: Endpoint;
  private readonly merchantAccounts: MerchantAccounts;

  constructor(
    credentials: BraintreeCredentials,
    readonly account: ConnectorAccountRef,
  ) {
    this.endpoint = endpointFor(credentials, account.mode);
    this.merchantAccounts = new MerchantAccounts(credentials, this.endpoint);
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const started = performance.now();
    const latencyMs = () => Math.ceil(performance.now() - started);
    const soft = (reason: SoftFailure): AuthorizeResult => ({ outcome: 'soft_failure', reason, latencyMs: latencyMs() });
    const signal = within(providerDeadlines.authorizeMs, request.signal);
    const key = request.idempotencyKey;
    const currency = request.currency.toUpperCase();

    const amount = braintreeAmount(request.amount, currency);
    if (amount === undefined) return soft('processing_error');
    const merchantAccountId = await this.merchantAccounts.accountFor(currency);
    if (merchantAccountId === null) return soft('processing_error');
    if (merchantAccountId instanceof Failure) return soft(merchantAccountId.reason);

    let paymentMethodId = request.providerToken;
    if (!paymentMethodId) {
      if (!request.card) throw new Error('authorize needs a card or a providerToken');
      const { number, exp_month, exp_year, cvc } = request.card;
      // Never a CVV on a merchant-initiated charge: the cardholder is not there to give one.
      const cvv = cvc && request.initiator?.type !== 'merchant' ? { cvv: cvc } : {};
      const tokenized = await post<{ tokenizeCreditCard: { paymentMethod: { id: string } | null } }>(
        this.endpoint,
        TOKENIZE_CREDIT_CARD,
        {
          input: {
            clientMutationId: key,
            creditCard: { number, expirationMonth: String(exp_month).padStart(2, '0'), expirationYear: String(exp_year), ...cvv },
          },
        },
        signal,
      );
      // Tokenizing moves no money: whatever happened to it, nothing is held.
      if (!tokenized.ok) {
        if (signal.aborted) return { outcome: 'unknown', latencyMs: latencyMs() };
        if (tokenized.failure.class === 'hard') return { outcome: 'declined', declineCode: tokenized.failure.declineCode, latencyMs: latencyMs() };
        return soft(softReason(tokenized.failure.class));
      }
      paymentMethodId = tokenized.data.tokenizeCreditCard.paymentMethod?.id;
      if (!paymentMethodId) return soft('processing_error');
    }

    const transaction: Record<string, unknown> = { amount, orderId: key };
    if (merchantAccountId) transaction.merchantAccountId = merchantAccountId;
    const call = authorizationCall(request, paymentMethodId, transaction);
    // The deadline passed before the money call: nothing was sent under the key.
    if (signal.aborted) return { outcome: 'unknown', latencyMs: latencyMs() };
    inFlight.set(key, Date.now());
    const answer = await post<Record<string, { transaction: WireTransaction | null } | undefined>>(
      this.endpoint,
      call.document,
      { input: call.input },
      signal,
    );
    if (answer.ok || answer.failure.class !== 'unknown') inFlight.delete(key);
    if (!answer.ok) return failedAuthorization(answer.failure, latencyMs());
    const tx = answer.data[call.field]?.transaction;
    if (!tx) return { outcome: 'unknown', latencyMs: latencyMs() };
    const state = transactionState(tx);
    if (state.kind === 'failed') return failedAuthorization(state.failure, latencyMs());
    if (state.kind !== 'held') return { outcome: 'unknown', latencyMs: latencyMs() };
    if (tx.amount?.currencyCode && tx.amount.currencyCode !== currency) {
      // Authorized in another currency than asked (a merchant account that is not the one we meant): never kept.
      logger.error('Braintree authorized in the wrong currency; voiding it', { expected: currency, got: tx.amount.currencyCode, key });
      const voided = await reverseTransaction(this.endpoint, tx.id, key);
      return voided.ok ? soft('processing_error') : { outcome: 'declined', declineCode: 'currency_not_supported', latencyMs: latencyMs() };
    }
    return {
      outcome: 'approved',
      reference: tx.id,
      providerToken: request.providerToken ?? vaultedToken(tx),
      ...networkIdOf(tx),
      latencyMs: latencyMs(),
    };
  }

  /** Braintree authenticates in its own client SDK, never by redirect: it is not routed a payment that must authenticate. */
  async completeAuthentication(): Promise<AuthorizeResult> {
    return { outcome: 'soft_failure', reason: 'processing_error', latencyMs: 0 };
  }

  /** Braintree keeps no answer per key, so a replay would be a second authorization: the search by key answers. */
  lookup(idempotencyKey: string, signal?: AbortSignal): Promise<LookupResult> {
    return lookupAttempt(this.endpoint, idempotencyKey, signal);
  }

  reverse(idempotencyKey: string): Promise<OperationResult> {
    return reverseAttempt(this.endpoint, idempotencyKey);
  }

  async capture(reference: string, amount: number, currency: string, idempotencyKey: string): Promise<OperationResult> {
    const value = braintreeAmount(amount, currency);
    if (value === undefined) return { ok: false, reason: 'processing_error' };
    const answer = await post<{ captureTransaction: { transaction: WireTransaction | null } }>(
      this.endpoint,
      CAPTURE_TRANSACTION,
      { input: { clientMutationId: idempotencyKey, transactionId: reference, transaction: { amount: value } } },
      AbortSignal.timeout(providerDeadlines.operationMs),
    );
    // Captured is final at once (SUBMITTED_FOR_SETTLEMENT): a settlement declined later comes as a notification.
    if (answer.ok) return { ok: true, reference };
    if (answer.failure.class !== 'soft') return failedOperation(answer.failure);
    // Refused: already captured (by our own earlier call whose answer was lost) is the same capture.
    const now = await readTransaction(this.endpoint, reference);
    if (!now.ok) return failedOperation(now.failure);
    const state = now.data && transactionState(now.data);
    const same = state?.kind === 'held' && state.captured && sameAmount(now.data!.amount?.value, amount, currency);
    return same ? { ok: true, reference } : failedCall(answer);
  }

  async void(reference: string, idempotencyKey: string): Promise<OperationResult> {
    // Read first: reverseTransaction would also void a capture or refund a settled payment.
    const now = await readTransaction(this.endpoint, reference);
    if (!now.ok) return failedOperation(now.failure);
    if (!now.data) return { ok: false, reason: 'processing_error' };
    const state = transactionState(now.data);
    if (state.kind === 'released') return { ok: true, reference };
    if (state.kind !== 'held' || state.captured) {
      return { ok: false, reason: 'refused', message: `Transaction is ${now.data.status?.toLowerCase()}: only an authorization can be voided.` };
    }
    return reverseTransaction(this.endpoint, reference, idempotencyKey);
  }

  async refund(reference: string, amount: number, currency: string, idempotencyKey: string): Promise<OperationResult> {
    const value = braintreeAmount(amount, currency);
    if (value === undefined) return { ok: false, reason: 'processing_error' };
    const now = await readTransaction(this.endpoint, reference);
    if (!now.ok) return failedOperation(now.failure);
    const tx = now.data;
    if (!tx) return { ok: false, reason: 'processing_error' };
    // Refunded already under this key (an earlier call whose answer was lost): that refund is the answer.
    const earlier = tx.refunds?.find((r) => r.orderId === idempotencyKey && r.status !== 'FAILED' && r.status !== 'VOIDED');
    if (earlier) return { ok: true, reference: earlier.id };
    const status = tx.status ?? '';
    const untouched = !tx.refunds?.length && sameAmount(tx.amount?.value, amount, currency);
    // Braintree refunds settled transactions only; before settlement the whole capture can be voided instead.
    if (status === 'SUBMITTED_FOR_SETTLEMENT' && untouched) return reverseTransaction(this.endpoint, reference, idempotencyKey);
    // A full refund by voiding the capture, answered before but lost.
    if (status === 'VOIDED' && untouched && tx.statusHistory?.some((e) => e.status === 'SUBMITTED_FOR_SETTLEMENT')) return { ok: true, reference };
    // Anything else not refundable (not settled yet, too much) is Braintree's to refuse, in its words.
    const answer = await post<{ refundTransaction: { refund: { id: string } | null } }>(
      this.endpoint,
      REFUND_TRANSACTION,
      { input: { clientMutationId: idempotencyKey, transactionId: reference, refund: { amount: value, orderId: idempotencyKey } } },
      AbortSignal.timeout(providerDeadlines.operationMs),
    );
    if (!answer.ok) return failedCall(answer);
    // Accepted (SUBMITTED_FOR_SETTLEMENT, SETTLING, SETTLED): a settlement declined later comes as a notification.
    const refund = answer.data.refundTransaction.refund;
    return refund ? { ok: true, reference: refund.id } : { ok: false, reason: 'unknown' };
  }

  changesOf(reference: string, signal?: AbortSignal): Promise<ProviderChange[] | undefined> {
    return transactionChanges(this.endpoint, reference, signal);
  }

  /** Deletes the vaulted payment method; one Braintree no longer holds (NOT_FOUND) was deleted before. */
  async removeToken(token: string): Promise<OperationResult> {
    const answer = await post<{ deletePaymentMethodFromVault: { clientMutationId: string | null } | null }>(
      this.endpoint,
      DELETE_PAYMENT_METHOD,
      { input: { paymentMethodId: token } },
      AbortSignal.timeout(providerDeadlines.operationMs),
    );
    if (answer.ok || answer.errorClass === 'NOT_FOUND') return { ok: true, reference: token };
    return failedCall(answer);
  }
}
