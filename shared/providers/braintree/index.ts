import * as v from 'valibot';
import { isCurrency } from '../../domain/currency.ts';
import { logger } from '../../logger.ts';
import { providerDeadlines } from '../deadlines.ts';
import type {
  AuthorizeRequest,
  AuthorizeResult,
  Connector,
  ConnectorAccountRef,
  LookupResult,
  MappedFailure,
  Mode,
  OperationResult,
  ProviderModule,
  SoftFailure,
  Verification,
} from '../types.ts';
import { fromBraintreeAmount, toBraintreeAmount, UnsupportedAmount } from './amounts.ts';
import { mapGatewayRejection, mapGraphQLErrorClass, mapHttpStatus, mapProcessorResponse, mapTransportError, softReason } from './errors.ts';
import {
  AUTHORIZE_PAYMENT_METHOD,
  CAPTURE_TRANSACTION,
  DEFAULT_MERCHANT_ACCOUNT,
  REFUND_TRANSACTION,
  REVERSE_TRANSACTION,
  SEARCH_BY_ORDER_ID,
  TOKENIZE_CREDIT_CARD,
  TRANSACTION_BY_ID,
  VERIFY,
} from './queries.ts';

/**
 * Braintree's live connector on its GraphQL API (DECISIONS "Providers"): plain `fetch` POSTs to `/graphql`, Basic auth
 * `public_key:private_key`, `Braintree-Version` pinned, the documents in queries.ts.
 *
 * Braintree has no idempotency-key header and does not deduplicate anything. What stands in for it:
 * - authorize: our key is the transaction's `orderId` (searchable); `lookup` and `reverse` search by it. A request
 *   whose answer was lost may still land for as long as Braintree's gateway works on it (60 s), so `reverse` never
 *   answers "nothing is held" for a key this process sent within that window and found nothing under (the attempt
 *   stays unknown; the reconciler reverses it later).
 * - capture and void: the transaction's own status (a transaction is captured once, voided once); a retry reads it.
 * - refund: our key is the refund's `orderId`; before refunding, the transaction's `refunds` are read and a refund
 *   already made under the key is answered instead of refunding again.
 * Every mutation also carries the key as `clientMutationId` (echoed, not deduplicated: for Braintree's logs and ours).
 */

/** The API version we wrote the documents against: the date of the schema snapshot in provider-contracts. */
export const BRAINTREE_VERSION = '2025-04-29';
export const SANDBOX_ORIGIN = 'https://payments.sandbox.braintree-api.com';
export const LIVE_ORIGIN = 'https://payments.braintree-api.com';
/** Braintree keeps working on a request for up to 60 s after the client gave up ("gateway timeout"). */
export const GATEWAY_TIMEOUT_MS = 60_000;
const VERIFY_TIMEOUT_MS = 5_000;

const text = (max: number) => v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(max));

export const braintreeCredentialsSchema = v.object({
  merchant_id: text(100),
  public_key: text(100),
  private_key: text(200),
  /** the merchant account to use per currency (Braintree's currency is the merchant account's) */
  merchant_account_ids: v.optional(
    v.record(
      v.pipe(
        v.string(),
        v.regex(/^[A-Z]{3}$/, 'a currency code in upper case'),
        v.check((code) => isCurrency(code), 'an ISO 4217 currency'),
      ),
      text(100),
    ),
  ),
});
export type BraintreeCredentials = v.InferOutput<typeof braintreeCredentialsSchema>;

/** The GraphQL endpoint: `BRAINTREE_GATEWAY_URL` (an origin) for fakes and staging, else Braintree's for the mode. */
export function graphqlUrl(mode: Mode): string {
  const origin = process.env.BRAINTREE_GATEWAY_URL || (mode === 'live' ? LIVE_ORIGIN : SANDBOX_ORIGIN);
  return `${origin.replace(/\/+$/, '')}/graphql`;
}

// ---------------------------------------------------------------------------------------------------------------------
// Transport: one POST per document. The answer is data, or a failure already mapped (errors.ts).

interface Endpoint {
  url: string;
  authorization: string;
}

type Answer<T> = { ok: true; data: T } | { ok: false; failure: MappedFailure; errorClass?: string; message: string };

interface WireError {
  message?: string;
  extensions?: { errorClass?: string; legacyCode?: string };
}

const endpointFor = (credentials: BraintreeCredentials, mode: Mode): Endpoint => ({
  url: graphqlUrl(mode),
  authorization: `Basic ${Buffer.from(`${credentials.public_key}:${credentials.private_key}`).toString('base64')}`,
});

/** A processor response code sent as a GraphQL error rather than on a transaction: read like one. */
const isProcessorCode = (code: string | undefined) => !!code && /^[23]\d{3}$/.test(code);

const within = (ms: number, signal?: AbortSignal) => (signal ? AbortSignal.any([signal, AbortSignal.timeout(ms)]) : AbortSignal.timeout(ms));

async function post<T>(endpoint: Endpoint, query: string, variables: Record<string, unknown>, signal: AbortSignal): Promise<Answer<T>> {
  let response: Response;
  try {
    response = await fetch(endpoint.url, {
      method: 'POST',
      headers: {
        authorization: endpoint.authorization,
        'braintree-version': BRAINTREE_VERSION,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ query, variables }),
      signal,
    });
  } catch (error) {
    return { ok: false, failure: mapTransportError(error), message: explain(error) };
  }
  const status = response.status;
  const statusClass = status === 401 ? 'AUTHENTICATION' : status === 403 ? 'AUTHORIZATION' : undefined;
  let body: { data?: Record<string, unknown> | null; errors?: WireError[] } | undefined;
  try {
    body = (await response.json()) as typeof body;
  } catch (error) {
    // No readable body: a status that says "not carried out" is believed; a 200 lost on the way may hide anything.
    if (status === 200) return { ok: false, failure: mapTransportError(error), message: `HTTP 200, body lost: ${explain(error)}` };
    return {
      ok: false,
      failure: statusClass ? mapGraphQLErrorClass(statusClass) : mapHttpStatus(status),
      errorClass: statusClass,
      message: `HTTP ${status}`,
    };
  }
  const errors = body?.errors ?? [];
  const results = body?.data ? Object.values(body.data) : [];
  // A result, or a partial one whose every root field answered (the data is the truth then).
  if (status === 200 && body?.data && (errors.length === 0 || results.every((value) => value !== null))) return { ok: true, data: body.data as T };
  const first = errors[0];
  const errorClass = first?.extensions?.errorClass ?? statusClass;
  const legacyCode = first?.extensions?.legacyCode;
  const message = `HTTP ${status}${errorClass ? ` ${errorClass}` : ''}${legacyCode ? ` ${legacyCode}` : ''}: ${first?.message ?? 'no result'}`;
  if (status === 429 || status >= 500) return { ok: false, failure: mapHttpStatus(status), errorClass, message };
  if (isProcessorCode(legacyCode)) return { ok: false, failure: mapProcessorResponse(legacyCode), errorClass, message };
  if (errorClass) return { ok: false, failure: mapGraphQLErrorClass(errorClass), errorClass, message };
  return { ok: false, failure: status === 200 ? mapGraphQLErrorClass(undefined) : mapHttpStatus(status), message };
}

const explain = (error: unknown): string => {
  const e = error as { name?: string; message?: string; cause?: { code?: string } };
  return [e.name, e.cause?.code, e.message].filter(Boolean).join(': ');
};

/** A failed call as an operation's answer: unknown stays unknown, the rest did nothing. */
const failed = (answer: { failure: MappedFailure }): OperationResult => ({
  ok: false,
  reason: answer.failure.class === 'unknown' ? 'unknown' : softReason(answer.failure.class),
});

// ---------------------------------------------------------------------------------------------------------------------
// Transactions as the documents read them.

interface WireTransaction {
  id: string;
  orderId?: string | null;
  status?: string | null;
  merchantAccountId?: string | null;
  amount?: { value?: string | null; currencyCode?: string | null } | null;
  paymentMethod?: { id: string; usage?: string | null } | null;
  statusHistory?: Array<{
    status?: string | null;
    gatewayRejectionReason?: string | null;
    processorResponse?: { legacyCode?: string | null; message?: string | null } | null;
  }> | null;
  refunds?: Array<{ id: string; orderId?: string | null; status?: string | null; amount?: { value?: string | null } | null }> | null;
}

/** Statuses in which the transaction holds or has taken the customer's money. */
const AUTHORIZED = 'AUTHORIZED';
const CAPTURED = new Set(['SUBMITTED_FOR_SETTLEMENT', 'SETTLING', 'SETTLED', 'SETTLEMENT_PENDING', 'SETTLEMENT_CONFIRMED']);
/** Refundable with refundTransaction (Braintree refunds settled transactions only). */
const SETTLED = new Set(['SETTLING', 'SETTLED', 'SETTLEMENT_CONFIRMED']);

type TransactionState =
  | { kind: 'held'; captured: boolean }
  | { kind: 'pending' }
  | { kind: 'failed'; failure: MappedFailure }
  /** voided, expired: nothing held */
  | { kind: 'released' };

function transactionState(tx: WireTransaction): TransactionState {
  const status = tx.status ?? '';
  if (status === AUTHORIZED) return { kind: 'held', captured: false };
  if (CAPTURED.has(status)) return { kind: 'held', captured: true };
  if (status === 'AUTHORIZING') return { kind: 'pending' };
  const event = tx.statusHistory?.find((e) => e.status === status) ?? tx.statusHistory?.[0];
  if (status === 'GATEWAY_REJECTED') return { kind: 'failed', failure: mapGatewayRejection(event?.gatewayRejectionReason) };
  if (status === 'PROCESSOR_DECLINED' || status === 'FAILED') {
    const code = event?.processorResponse?.legacyCode;
    return { kind: 'failed', failure: code ? mapProcessorResponse(code) : mapProcessorResponse(status === 'FAILED' ? '3000' : '2000') };
  }
  return { kind: 'released' };
}

/** The card on file a transaction leaves: its multi-use (vaulted) payment method, or nothing. */
const vaultedToken = (tx: WireTransaction): string => (tx.paymentMethod?.usage === 'MULTI_USE' ? tx.paymentMethod.id : '');

/** Which transaction under one key counts: one that holds money, else a decline, else any. */
function mostTelling(transactions: WireTransaction[]): WireTransaction | undefined {
  const rank = (tx: WireTransaction) => ({ held: 0, pending: 1, failed: 2, released: 3 })[transactionState(tx).kind];
  return [...transactions].sort((a, b) => rank(a) - rank(b))[0];
}

/**
 * Authorization requests this process sent whose answer it never got, by key: Braintree may still be working on them.
 * (Per process: a reconciler in another process acts only after the operation's lease, see the report on the window.)
 */
const inFlight = new Map<string, number>();
const stillInFlight = (key: string, now = Date.now()): boolean => {
  for (const [k, sentAt] of inFlight) if (now - sentAt >= GATEWAY_TIMEOUT_MS) inFlight.delete(k);
  return inFlight.has(key);
};

// ---------------------------------------------------------------------------------------------------------------------

class BraintreeConnector implements Connector {
  readonly name = 'braintree' as const;
  private readonly endpoint: Endpoint;
  /** the currency of the merchant's default merchant account, read once (used when no account is mapped) */
  private defaultCurrency: Promise<string | undefined | Failure> | undefined;

  constructor(
    private readonly credentials: BraintreeCredentials,
    readonly account: ConnectorAccountRef,
  ) {
    this.endpoint = endpointFor(credentials, account.mode);
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const started = performance.now();
    const latencyMs = () => Math.ceil(performance.now() - started);
    const soft = (reason: SoftFailure): AuthorizeResult => ({ outcome: 'soft_failure', reason, latencyMs: latencyMs() });
    const signal = within(providerDeadlines.authorizeMs, request.signal);
    const key = request.idempotencyKey;
    const currency = request.currency.toUpperCase();

    let amount: string;
    try {
      amount = toBraintreeAmount(request.amount, currency);
    } catch (error) {
      if (error instanceof UnsupportedAmount) return soft('processing_error');
      throw error;
    }
    const merchantAccountId = await this.merchantAccountFor(currency);
    if (merchantAccountId === null) return soft('processing_error');
    if (merchantAccountId instanceof Failure) return soft(merchantAccountId.reason);

    let paymentMethodId = request.providerToken;
    if (!paymentMethodId) {
      if (!request.card) throw new Error('authorize needs a card or a providerToken');
      const { number, exp_month, exp_year, cvc } = request.card;
      const tokenized = await post<{ tokenizeCreditCard: { paymentMethod: { id: string } | null } }>(
        this.endpoint,
        TOKENIZE_CREDIT_CARD,
        {
          input: {
            clientMutationId: key,
            creditCard: { number, expirationMonth: String(exp_month).padStart(2, '0'), expirationYear: String(exp_year), cvv: cvc },
          },
        },
        signal,
      );
      // Tokenizing moves no money: whatever happened to it, nothing is held.
      if (!tokenized.ok) {
        if (signal.aborted) return { outcome: 'unknown', latencyMs: latencyMs() };
        if (tokenized.failure.class === 'hard') return { outcome: 'declined', declineCode: tokenized.failure.declineCode, latencyMs: latencyMs() };
        return soft(tokenized.failure.class === 'outage' ? 'provider_down' : 'processing_error');
      }
      paymentMethodId = tokenized.data.tokenizeCreditCard.paymentMethod?.id;
      if (!paymentMethodId) return soft('processing_error');
    }

    const transaction: Record<string, unknown> = { amount, orderId: key };
    if (merchantAccountId) transaction.merchantAccountId = merchantAccountId;
    if (request.providerToken) {
      // A charge on the card on file, initiated by the merchant (a renewal).
      transaction.paymentInitiator = 'RECURRING';
    } else if (request.storeFor) {
      // The first of a series, by the customer; the card is vaulted only if the authorization succeeds.
      transaction.paymentInitiator = 'RECURRING_FIRST';
      transaction.vaultPaymentMethodAfterTransacting = { when: 'ON_SUCCESSFUL_TRANSACTION' };
      if (request.storeFor.email) transaction.customerDetails = { email: request.storeFor.email };
    }
    // The deadline passed before the money call: nothing was sent under the key.
    if (signal.aborted) return { outcome: 'unknown', latencyMs: latencyMs() };
    inFlight.set(key, Date.now());
    const answer = await post<{ authorizePaymentMethod: { transaction: WireTransaction | null } }>(
      this.endpoint,
      AUTHORIZE_PAYMENT_METHOD,
      { input: { clientMutationId: key, paymentMethodId, transaction } },
      signal,
    );
    if (answer.ok || answer.failure.class !== 'unknown') inFlight.delete(key);
    if (!answer.ok) return this.authorizeFailure(answer.failure, latencyMs());
    const tx = answer.data.authorizePaymentMethod.transaction;
    if (!tx) return { outcome: 'unknown', latencyMs: latencyMs() };
    const state = transactionState(tx);
    if (state.kind === 'failed') return this.authorizeFailure(state.failure, latencyMs());
    if (state.kind !== 'held') return { outcome: 'unknown', latencyMs: latencyMs() };
    if (tx.amount?.currencyCode && tx.amount.currencyCode !== currency) {
      // Authorized in another currency than asked (a merchant account that is not the one we meant): never kept.
      logger.error('Braintree authorized in the wrong currency; voiding it', { expected: currency, got: tx.amount.currencyCode, key });
      const voided = await this.reverseTransaction(tx.id, key);
      return voided.ok ? soft('processing_error') : { outcome: 'declined', declineCode: 'currency_not_supported', latencyMs: latencyMs() };
    }
    return { outcome: 'approved', reference: tx.id, providerToken: request.providerToken ?? vaultedToken(tx), latencyMs: latencyMs() };
  }

  async lookup(idempotencyKey: string, signal?: AbortSignal, _replay?: AuthorizeRequest): Promise<LookupResult> {
    // Braintree keeps no answer per key, so a replay would be a second authorization: the search answers instead.
    const found = await this.search(idempotencyKey, signal ?? AbortSignal.timeout(providerDeadlines.lookupMs));
    if (!found.ok) return { found: 'unknown' };
    const tx = mostTelling(found.data);
    if (!tx) return { found: 'none' };
    const state = transactionState(tx);
    if (state.kind === 'held') return { found: 'authorized', reference: tx.id, providerToken: vaultedToken(tx) };
    if (state.kind === 'pending') return { found: 'unknown' };
    if (state.kind === 'failed' && state.failure.class === 'hard') return { found: 'declined', declineCode: state.failure.declineCode };
    // A soft failure or a voided authorization: nothing is held under the key.
    return { found: 'none' };
  }

  async reverse(idempotencyKey: string): Promise<OperationResult> {
    const found = await this.search(idempotencyKey, AbortSignal.timeout(providerDeadlines.operationMs));
    if (!found.ok) return failed(found);
    for (const tx of found.data) {
      const state = transactionState(tx);
      if (state.kind === 'pending') return { ok: false, reason: 'unknown' };
      // A captured payment is not ours to take back here (reverseTransaction would void or refund it).
      if (state.kind === 'held' && state.captured) return { ok: false, reason: 'processing_error' };
      if (state.kind === 'held') {
        const reversed = await this.reverseTransaction(tx.id, idempotencyKey);
        if (!reversed.ok) return reversed;
      }
    }
    const held = found.data.find((tx) => transactionState(tx).kind === 'held');
    if (!held && stillInFlight(idempotencyKey)) {
      // Nothing found, but a request under this key may still land: it cannot be closed at Braintree.
      return { ok: false, reason: 'unknown' };
    }
    return { ok: true, reference: held?.id ?? idempotencyKey };
  }

  async capture(reference: string, amount: number, currency: string, idempotencyKey: string): Promise<OperationResult> {
    let value: string;
    try {
      value = toBraintreeAmount(amount, currency);
    } catch {
      return { ok: false, reason: 'processing_error' };
    }
    const answer = await post<{ captureTransaction: { transaction: WireTransaction | null } }>(
      this.endpoint,
      CAPTURE_TRANSACTION,
      { input: { clientMutationId: idempotencyKey, transactionId: reference, transaction: { amount: value } } },
      AbortSignal.timeout(providerDeadlines.operationMs),
    );
    if (answer.ok) return { ok: true, reference };
    if (answer.failure.class !== 'soft') return failed(answer);
    // Refused: already captured (by our own earlier call whose answer was lost) is the same capture.
    const now = await this.read(reference);
    if (!now.ok) return failed(now);
    const state = now.data && transactionState(now.data);
    const same = state?.kind === 'held' && state.captured && sameAmount(now.data!.amount?.value, amount, currency);
    return same ? { ok: true, reference } : { ok: false, reason: 'processing_error' };
  }

  async void(reference: string, idempotencyKey: string): Promise<OperationResult> {
    // Read first: reverseTransaction would also void a capture or refund a settled payment.
    const now = await this.read(reference);
    if (!now.ok) return failed(now);
    if (!now.data) return { ok: false, reason: 'processing_error' };
    const state = transactionState(now.data);
    if (state.kind === 'released') return { ok: true, reference };
    if (state.kind !== 'held' || state.captured) return { ok: false, reason: 'processing_error' };
    return this.reverseTransaction(reference, idempotencyKey);
  }

  async refund(reference: string, amount: number, currency: string, idempotencyKey: string): Promise<OperationResult> {
    let value: string;
    try {
      value = toBraintreeAmount(amount, currency);
    } catch {
      return { ok: false, reason: 'processing_error' };
    }
    const now = await this.read(reference);
    if (!now.ok) return failed(now);
    const tx = now.data;
    if (!tx) return { ok: false, reason: 'processing_error' };
    // Refunded already under this key (an earlier call whose answer was lost): that refund is the answer.
    const earlier = tx.refunds?.find((r) => r.orderId === idempotencyKey && r.status !== 'FAILED' && r.status !== 'VOIDED');
    if (earlier) return { ok: true, reference: earlier.id };
    const status = tx.status ?? '';
    const untouched = !tx.refunds?.length && sameAmount(tx.amount?.value, amount, currency);
    if (status === 'SUBMITTED_FOR_SETTLEMENT') {
      // Braintree refunds settled transactions only; before settlement the whole capture can be voided instead.
      return untouched ? this.reverseTransaction(reference, idempotencyKey) : { ok: false, reason: 'processing_error' };
    }
    // A full refund by voiding the capture, answered before but lost.
    if (status === 'VOIDED' && untouched) return { ok: true, reference };
    if (!SETTLED.has(status)) return { ok: false, reason: 'processing_error' };
    const answer = await post<{ refundTransaction: { refund: { id: string } | null } }>(
      this.endpoint,
      REFUND_TRANSACTION,
      { input: { clientMutationId: idempotencyKey, transactionId: reference, refund: { amount: value, orderId: idempotencyKey } } },
      AbortSignal.timeout(providerDeadlines.operationMs),
    );
    if (!answer.ok) return failed(answer);
    const refund = answer.data.refundTransaction.refund;
    return refund ? { ok: true, reference: refund.id } : { ok: false, reason: 'unknown' };
  }

  /** reverseTransaction on one transaction: ok when it is voided (or refunded in full, for a settled one). */
  private async reverseTransaction(transactionId: string, key: string): Promise<OperationResult> {
    const answer = await post<{ reverseTransaction: { reversal: { __typename: string; id: string; status?: string } | null } }>(
      this.endpoint,
      REVERSE_TRANSACTION,
      { input: { clientMutationId: key, transactionId } },
      AbortSignal.timeout(providerDeadlines.operationMs),
    );
    if (!answer.ok) {
      if (answer.failure.class !== 'soft') return failed(answer);
      // Refused: already voided (an earlier reversal whose answer was lost) is the same reversal.
      const now = await this.read(transactionId);
      if (now.ok && now.data && transactionState(now.data).kind === 'released') return { ok: true, reference: transactionId };
      return now.ok ? { ok: false, reason: 'processing_error' } : failed(now);
    }
    return answer.data.reverseTransaction.reversal ? { ok: true, reference: transactionId } : { ok: false, reason: 'unknown' };
  }

  private async search(orderId: string, signal: AbortSignal): Promise<Answer<WireTransaction[]>> {
    const answer = await post<{ search: { transactions: { edges: Array<{ node: WireTransaction | null } | null> | null } | null } }>(
      this.endpoint,
      SEARCH_BY_ORDER_ID,
      { orderId },
      signal,
    );
    if (!answer.ok) return answer;
    const edges = answer.data.search.transactions?.edges ?? [];
    // `is` is exact at Braintree; the filter guards against a looser match anyway.
    const found = edges.flatMap((edge) => (edge?.node && edge.node.orderId === orderId ? [edge.node] : []));
    return { ok: true, data: found };
  }

  private async read(transactionId: string): Promise<Answer<WireTransaction | null>> {
    const answer = await post<{ node: WireTransaction | null }>(
      this.endpoint,
      TRANSACTION_BY_ID,
      { id: transactionId },
      AbortSignal.timeout(providerDeadlines.operationMs),
    );
    if (!answer.ok && answer.errorClass === 'NOT_FOUND') return { ok: true, data: null };
    return answer.ok ? { ok: true, data: answer.data.node } : answer;
  }

  /**
   * The merchant account for `currency`: the mapped one; with no mapping at all, the default account (undefined: not
   * sent) if its currency is this one; null when no account of this merchant takes the currency (nothing is sent).
   */
  private async merchantAccountFor(currency: string): Promise<string | undefined | null | Failure> {
    const mapped = this.credentials.merchant_account_ids;
    if (mapped) return mapped[currency] ?? null;
    this.defaultCurrency ??= this.readDefaultCurrency(AbortSignal.timeout(providerDeadlines.lookupMs));
    const result = await this.defaultCurrency;
    if (result instanceof Failure) {
      this.defaultCurrency = undefined;
      return result;
    }
    return result === undefined || result === currency ? undefined : null;
  }

  private async readDefaultCurrency(signal: AbortSignal): Promise<string | undefined | Failure> {
    type Accounts = {
      viewer: { merchant: { merchantAccounts: { edges: Array<{ node: { currencyCode: string; isDefault: boolean } | null } | null> } | null } };
    };
    const answer = await post<Accounts>(this.endpoint, DEFAULT_MERCHANT_ACCOUNT, {}, signal);
    if (!answer.ok) return new Failure(softReason(answer.failure.class === 'unknown' ? 'outage' : answer.failure.class));
    const accounts = answer.data.viewer.merchant.merchantAccounts?.edges ?? [];
    return accounts.find((edge) => edge?.node?.isDefault)?.node?.currencyCode ?? undefined;
  }

  private authorizeFailure(failure: MappedFailure, latencyMs: number): AuthorizeResult {
    if (failure.class === 'hard') return { outcome: 'declined', declineCode: failure.declineCode, latencyMs };
    if (failure.class === 'unknown') return { outcome: 'unknown', latencyMs };
    return { outcome: 'soft_failure', reason: softReason(failure.class), latencyMs };
  }
}

/** A read that failed before anything was sent for money: the soft reason to give. */
class Failure {
  constructor(readonly reason: 'provider_down' | 'processing_error') {}
}

function sameAmount(value: string | null | undefined, minor: number, currency: string): boolean {
  try {
    return value != null && fromBraintreeAmount(value, currency) === minor;
  } catch {
    return false;
  }
}

async function verify(credentials: BraintreeCredentials, mode: Mode, signal?: AbortSignal): Promise<Verification> {
  const mapped = Object.entries(credentials.merchant_account_ids ?? {});
  type Viewer = {
    viewer: {
      merchant: { id: string; merchantAccounts?: { edges: Array<{ node: { id: string; currencyCode: string; status: string } | null } | null> } };
    };
  };
  const answer = await post<Viewer>(
    endpointFor(credentials, mode),
    VERIFY,
    { accountIds: mapped.map(([, id]) => id), checkAccounts: mapped.length > 0 },
    within(VERIFY_TIMEOUT_MS, signal),
  );
  if (!answer.ok) {
    if (answer.errorClass === 'AUTHENTICATION') return { ok: false, reason: `Braintree did not accept these API keys (${mode} environment)` };
    if (answer.errorClass === 'AUTHORIZATION')
      return { ok: false, reason: 'these API keys may not read the merchant (Braintree: authorization error)' };
    return { ok: false, reason: `Braintree could not be asked: ${answer.message}` };
  }
  const merchant = answer.data.viewer.merchant;
  if (merchant.id !== credentials.merchant_id)
    return { ok: false, reason: `these API keys belong to another merchant than ${credentials.merchant_id}` };
  const accounts = new Map((merchant.merchantAccounts?.edges ?? []).flatMap((edge) => (edge?.node ? [[edge.node.id, edge.node] as const] : [])));
  for (const [currency, id] of mapped) {
    const account = accounts.get(id);
    if (!account) return { ok: false, reason: `merchant account ${id} (for ${currency}) does not exist at Braintree` };
    if (account.currencyCode !== currency) return { ok: false, reason: `merchant account ${id} takes ${account.currencyCode}, not ${currency}` };
    if (account.status !== 'ACTIVE') return { ok: false, reason: `merchant account ${id} is ${account.status?.toLowerCase()}` };
  }
  return { ok: true };
}

export const braintreeProvider: ProviderModule<BraintreeCredentials> = {
  provider: 'braintree',
  credentialsSchema: braintreeCredentialsSchema,
  hint: (credentials) => `…${credentials.public_key.slice(-4)}`,
  // Braintree's keys carry no mode: sandbox keys simply fail authentication at the live endpoint (verify says so).
  modeMismatch: () => undefined,
  verify,
  connect: (credentials, account) => new BraintreeConnector(credentials, account),
};
