import { randomBytes } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { currencyExponent } from '../../../../shared/domain/currency.ts';
import type { FakeDispute, FakeHold } from '../types.ts';
import {
  answerFor,
  answerForCard,
  AUTHENTICATION_REQUIRED_CODE,
  authenticationAskedFor,
  type BraintreeAnswer,
  LATER_CHARGES_DECLINE_CODE,
} from './cards.ts';
import { disputeXml, transactionXml } from './notification-xml.ts';

/**
 * The fake Braintree gateway's books and the resolvers the GraphQL schema is executed with. Only what our connector
 * uses is implemented; everything it answers is shaped by graphql execution against Braintree's schema (server.ts).
 */

/** A Braintree GraphQL error: `extensions.errorClass` (+ `legacyCode`, `inputPath` for VALIDATION), as Braintree sends them. */
export class BraintreeError extends GraphQLError {
  constructor(message: string, errorClass: string, legacyCode?: string, inputPath?: string[]) {
    super(message, { extensions: { errorClass, ...(legacyCode ? { legacyCode } : {}), ...(inputPath ? { inputPath } : {}) } });
  }
}
const invalid = (message: string, legacyCode: string, ...inputPath: string[]) =>
  new BraintreeError(message, 'VALIDATION', legacyCode, ['input', ...inputPath]);
const notFound = () => new BraintreeError('An object with this ID was not found.', 'NOT_FOUND');

export interface MerchantAccount {
  id: string;
  currency: string;
  isDefault?: boolean;
  status?: 'ACTIVE' | 'PENDING' | 'SUSPENDED';
}

export interface FakeMerchant {
  id: string;
  publicKey: string;
  privateKey: string;
  accounts: MerchantAccount[];
}

/** What the resolvers are told about the call: whose keys made it, and a decline the test injected. */
export interface CallContext {
  merchant: FakeMerchant;
  decline?: string;
  /** the idempotency key the call carried, as the resolver found it */
  idempotencyKey?: string;
}

interface PaymentMethodRecord {
  id: string;
  legacyId: string;
  merchantId: string;
  usage: 'SINGLE_USE' | 'MULTI_USE';
  last4: string;
  answer: BraintreeAnswer;
  laterChargesDecline: boolean;
  /** the issuer asks for 3-D Secure for this card (cards.ts) */
  authentication?: 'shopper' | 'every_charge';
  consumed: boolean;
  customerId?: string;
  createdAt: string;
}

interface StatusEvent {
  __typename: string;
  status: string;
  timestamp: string;
  amount: Money;
  terminal: boolean;
  [field: string]: unknown;
}

export interface TransactionRecord {
  id: string;
  legacyId: string;
  merchantId: string;
  orderId: string | null;
  status: string;
  merchantAccountId: string;
  currency: string;
  authorized: number;
  captured: number;
  paymentMethod: PaymentMethodRecord;
  vaulted?: PaymentMethodRecord;
  paymentInitiator: string | null;
  /** the card network's id of the authorization (CreditCardTransactionDetails.networkTransactionId) */
  networkTransactionId: string | null;
  /** oldest first (the schema answers newest first) */
  history: StatusEvent[];
  refunds: RefundRecord[];
  disputes: DisputeRecord[];
  createdAt: string;
}

export interface RefundRecord {
  id: string;
  legacyId: string;
  orderId: string | null;
  status: string;
  amount: number;
  /** oldest first */
  history: StatusEvent[];
  createdAt: string;
  transaction: TransactionRecord;
}

export interface DisputeRecord {
  id: string;
  legacyId: string;
  status: string;
  /** Braintree's DisputeReason (FRAUD, PRODUCT_NOT_RECEIVED…) */
  reason: string;
  amount: number;
  receivedDate: string;
  replyByDate: string;
  evidence: Array<{ id: string; legacyId: string; content: string; createdAt: string; sentToProcessorAt: string | null }>;
  history: Array<{ status: string; timestamp: string; effectiveDate: string }>;
  createdAt: string;
  transaction: TransactionRecord;
}

/** A notification the gateway asks the server to send: its kind and subject XML, for the merchant it concerns. */
export type NotificationSink = (merchant: FakeMerchant, kind: string, subjectXml: string) => void;

/** Our dispute reasons (DisputeReason) in Braintree's words. */
const DISPUTE_REASONS: Readonly<Record<string, string>> = {
  fraudulent: 'FRAUD',
  duplicate: 'DUPLICATE',
  product_not_received: 'PRODUCT_NOT_RECEIVED',
  product_unacceptable: 'PRODUCT_UNSATISFACTORY',
  subscription_canceled: 'CANCELLED_RECURRING_TRANSACTION',
  credit_not_processed: 'CREDIT_NOT_PROCESSED',
  unrecognized: 'NOT_RECOGNIZED',
  general: 'GENERAL',
};
/** How long the merchant has to answer a dispute (Braintree: usually 7 to 30 days). */
const REPLY_DAYS = 20;

export interface Money {
  value: string;
  currencyCode: string;
  currencyIsoCode: string;
}

const CAPTURED = new Set(['SUBMITTED_FOR_SETTLEMENT', 'SETTLING', 'SETTLED', 'SETTLEMENT_PENDING', 'SETTLEMENT_CONFIRMED']);
const REFUNDABLE = new Set(['SETTLING', 'SETTLED', 'SETTLEMENT_CONFIRMED']);

/** Braintree's GraphQL ids are opaque base64 strings of `<kind>_<legacy id>`. */
function newId(kind: string): { id: string; legacyId: string } {
  const legacyId = randomBytes(5).toString('hex');
  return { id: Buffer.from(`${kind}_${legacyId}`).toString('base64url'), legacyId };
}

/** The fake's own amount reading (independent of the connector's converter): decimal string → minor units. */
function minorUnits(value: string, currency: string): number {
  const exponent = currencyExponent(currency);
  const [whole = '', fraction = ''] = value.split('.');
  if (/[1-9]/.test(fraction.slice(exponent))) throw invalid(`Amount is an invalid format for ${currency}.`, '81503', 'transaction', 'amount');
  return Number(whole) * 10 ** exponent + Number(fraction.slice(0, exponent).padEnd(exponent, '0') || '0');
}

export function money(minor: number, currency: string): Money {
  const exponent = currencyExponent(currency);
  const digits = String(minor).padStart(exponent + 1, '0');
  const value = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return { value, currencyCode: currency, currencyIsoCode: currency };
}

const now = () => new Date().toISOString();
const day = (at: Date) => at.toISOString().slice(0, 10);

export class BraintreeBook {
  readonly paymentMethods = new Map<string, PaymentMethodRecord>();
  readonly transactions = new Map<string, TransactionRecord>();
  readonly refunds = new Map<string, RefundRecord>();
  readonly disputes = new Map<string, DisputeRecord>();
  /** Captures settle at once (the settlement batch runs immediately), so they can be refunded; false keeps them unsettled. */
  settleCaptures = true;
  /** Refunds settle at once too; false keeps them submitted for settlement until `settle(id)` or `failRefund(id)`. */
  settleRefunds = true;

  constructor(
    readonly merchants: readonly FakeMerchant[],
    private readonly notify: NotificationSink = () => {},
  ) {}

  /** Root resolvers (graphql's default resolver calls a root value's function fields with `(args, context)`). */
  readonly root = {
    ping: () => 'pong',
    viewer: (_args: unknown, ctx: CallContext) => ({ merchant: this.merchantView(ctx.merchant), user: null, rights: [] }),
    node: ({ id }: { id: string }, ctx: CallContext) => {
      const tx = this.transactions.get(id);
      if (tx?.merchantId === ctx.merchant.id) return this.transactionView(tx);
      const refund = this.refunds.get(id);
      if (refund?.transaction.merchantId === ctx.merchant.id) return this.refundView(refund);
      const method = this.paymentMethods.get(id);
      if (method?.merchantId === ctx.merchant.id) return this.paymentMethodView(method);
      const dispute = this.disputes.get(id);
      if (dispute?.transaction.merchantId === ctx.merchant.id) return this.disputeView(dispute);
      throw notFound();
    },
    search: () => ({
      transactions: ({ input, first }: { input: Record<string, Record<string, unknown> | undefined>; first?: number | null }, ctx: CallContext) => {
        const matches = [...this.transactions.values()].filter((tx) => tx.merchantId === ctx.merchant.id && matchesSearch(tx, input));
        ctx.idempotencyKey ??= (input.orderId?.is as string | undefined) ?? undefined;
        return connection(matches.slice(0, first ?? 50).map((tx) => this.transactionView(tx)));
      },
    }),
    tokenizeCreditCard: ({ input }: { input: TokenizeInput }, ctx: CallContext) => {
      const card = input.creditCard;
      const number = card.number ?? '';
      if (!/^\d{12,19}$/.test(number)) throw invalid('Credit card number is invalid.', '81715', 'creditCard', 'number');
      if (!/^(0?[1-9]|1[0-2])$/.test(card.expirationMonth ?? ''))
        throw invalid('Expiration month is invalid.', '81712', 'creditCard', 'expirationMonth');
      if (!/^(\d{2}|\d{4})$/.test(card.expirationYear ?? '')) throw invalid('Expiration year is invalid.', '81713', 'creditCard', 'expirationYear');
      if (card.cvv != null && !/^\d{3,4}$/.test(card.cvv)) throw invalid('CVV must be 3 or 4 digits.', '81707', 'creditCard', 'cvv');
      const { laterChargesDecline, ...answer } = answerForCard(number);
      const method: PaymentMethodRecord = {
        ...newId('tokencc'),
        merchantId: ctx.merchant.id,
        usage: 'SINGLE_USE',
        last4: number.slice(-4),
        answer,
        laterChargesDecline: laterChargesDecline ?? false,
        ...(authenticationAskedFor(number) ? { authentication: authenticationAskedFor(number) } : {}),
        consumed: false,
        createdAt: now(),
      };
      this.paymentMethods.set(method.id, method);
      return { clientMutationId: input.clientMutationId ?? null, paymentMethod: this.paymentMethodView(method) };
    },
    authorizePaymentMethod: ({ input }: { input: AuthorizeInput }, ctx: CallContext) => this.authorize(input, ctx),
    authorizeCreditCard: ({ input }: { input: AuthorizeInput }, ctx: CallContext) => this.authorize(input, ctx),
    captureTransaction: ({ input }: { input: CaptureInput }, ctx: CallContext) => {
      ctx.idempotencyKey ??= input.clientMutationId ?? undefined;
      const tx = this.transactionOf(input.transactionId, ctx);
      if (tx.status !== 'AUTHORIZED') throw invalid('Cannot submit for settlement unless status is authorized.', '91507', 'transactionId');
      const requested = input.transaction?.amount ?? input.amount;
      const amount = requested ? minorUnits(requested, tx.currency) : tx.authorized;
      if (amount > tx.authorized) throw invalid('Settlement amount is too large.', '91522', 'transaction', 'amount');
      tx.captured = amount;
      this.move(tx, 'SubmittedForSettlementEvent', 'SUBMITTED_FOR_SETTLEMENT', amount);
      const answer = { clientMutationId: input.clientMutationId ?? null, transaction: this.transactionView(tx) };
      if (this.settleCaptures) this.settle(tx.id);
      return answer;
    },
    reverseTransaction: ({ input }: { input: { clientMutationId?: string | null; transactionId: string } }, ctx: CallContext) => {
      ctx.idempotencyKey ??= input.clientMutationId ?? undefined;
      const tx = this.transactionOf(input.transactionId, ctx);
      const clientMutationId = input.clientMutationId ?? null;
      if (tx.status === 'AUTHORIZED' || tx.status === 'SUBMITTED_FOR_SETTLEMENT') {
        this.move(tx, 'VoidedEvent', 'VOIDED', tx.status === 'AUTHORIZED' ? tx.authorized : tx.captured);
        return { clientMutationId, reversal: this.transactionView(tx) };
      }
      if (REFUNDABLE.has(tx.status)) {
        const refund = this.newRefund(tx, this.remaining(tx), tx.orderId);
        const answer = { clientMutationId, reversal: this.refundView(refund) };
        if (this.settleRefunds) this.settle(refund.id);
        return answer;
      }
      throw invalid('Transaction can only be voided if status is authorized or submitted_for_settlement.', '91504', 'transactionId');
    },
    refundTransaction: ({ input }: { input: RefundInput }, ctx: CallContext) => {
      ctx.idempotencyKey ??= input.refund?.orderId ?? input.clientMutationId ?? undefined;
      const tx = this.transactionOf(input.transactionId, ctx);
      if (!REFUNDABLE.has(tx.status)) throw invalid('Cannot refund a transaction unless it is settled.', '91506', 'transactionId');
      const remaining = this.remaining(tx);
      if (remaining === 0) throw invalid('Transaction has already been fully refunded.', '91512', 'transactionId');
      const amount = input.refund?.amount ? minorUnits(input.refund.amount, tx.currency) : remaining;
      if (amount > remaining) throw invalid('Refund amount is too large.', '91521', 'refund', 'amount');
      const refund = this.newRefund(tx, amount, input.refund?.orderId ?? tx.orderId);
      const answer = { clientMutationId: input.clientMutationId ?? null, refund: this.refundView(refund) };
      if (this.settleRefunds) this.settle(refund.id);
      return answer;
    },
    createDisputeTextEvidence: ({ input }: { input: { clientMutationId?: string | null; disputeId: string; content: string } }, ctx: CallContext) => {
      ctx.idempotencyKey ??= input.clientMutationId ?? undefined;
      const dispute = this.disputeOf(input.disputeId, ctx);
      if (dispute.status !== 'OPEN') throw invalid('Evidence can only be attached to disputes that are in an Open state.', '95701', 'disputeId');
      if (input.content.length > 3000) throw invalid('Evidence content is too long.', '95708', 'content');
      const evidence = { ...newId('dispute_evidence'), content: input.content, createdAt: now(), sentToProcessorAt: null };
      dispute.evidence.push(evidence);
      return { clientMutationId: input.clientMutationId ?? null, evidence: this.evidenceView(evidence) };
    },
    finalizeDispute: ({ input }: { input: { clientMutationId?: string | null; disputeId: string } }, ctx: CallContext) => {
      ctx.idempotencyKey ??= input.clientMutationId ?? undefined;
      const dispute = this.disputeOf(input.disputeId, ctx);
      if (dispute.status !== 'OPEN') throw invalid('Disputes can only be finalized when they are in an Open state.', '95705', 'disputeId');
      for (const evidence of dispute.evidence) evidence.sentToProcessorAt ??= now();
      this.moveDispute(dispute, 'DISPUTED', 'dispute_disputed');
      return { clientMutationId: input.clientMutationId ?? null, dispute: this.disputeView(dispute) };
    },
    acceptDispute: ({ input }: { input: { clientMutationId?: string | null; disputeId: string } }, ctx: CallContext) => {
      ctx.idempotencyKey ??= input.clientMutationId ?? undefined;
      const dispute = this.disputeOf(input.disputeId, ctx);
      if (dispute.status !== 'OPEN') throw invalid('Disputes can only be accepted when they are in an Open state.', '95704', 'disputeId');
      this.moveDispute(dispute, 'ACCEPTED', 'dispute_accepted');
      return { clientMutationId: input.clientMutationId ?? null, dispute: this.disputeView(dispute) };
    },
    /** A multi-use payment method leaves the vault: it can no longer be charged (an unknown one: NOT_FOUND). */
    deletePaymentMethodFromVault: ({ input }: { input: { clientMutationId?: string | null; paymentMethodId: string } }, ctx: CallContext) => {
      const method = this.paymentMethods.get(input.paymentMethodId);
      if (!method || method.merchantId !== ctx.merchant.id || method.usage !== 'MULTI_USE') throw notFound();
      this.paymentMethods.delete(method.id);
      return { clientMutationId: input.clientMutationId ?? null };
    },
  };

  /** An authorization (authorizePaymentMethod, or authorizeCreditCard with its external-vault options). */
  private authorize(input: AuthorizeInput, ctx: CallContext) {
    ctx.idempotencyKey ??= input.transaction.orderId ?? undefined;
    const method = this.paymentMethods.get(input.paymentMethodId);
    if (!method || method.merchantId !== ctx.merchant.id) throw invalid('Unknown or expired payment method ID.', '91565', 'paymentMethodId');
    if (method.consumed) throw invalid('Cannot use a single-use payment method more than once.', '93107', 'paymentMethodId');
    const account = input.transaction.merchantAccountId
      ? ctx.merchant.accounts.find((a) => a.id === input.transaction.merchantAccountId)
      : ctx.merchant.accounts.find((a) => a.isDefault);
    if (!account || (account.status ?? 'ACTIVE') !== 'ACTIVE')
      throw invalid('Merchant account ID is invalid.', '91577', 'transaction', 'merchantAccountId');
    const amount = minorUnits(input.transaction.amount, account.currency);
    if (amount <= 0) throw invalid('Amount must be greater than zero.', '81531', 'transaction', 'amount');
    externalVaultProblem(input, method);

    const vaultedCharge = method.usage === 'MULTI_USE';
    const byMerchant = MERCHANT_INITIATED.has(input.transaction.paymentInitiator ?? '');
    const authenticationRequired = method.authentication === 'every_charge' || (method.authentication === 'shopper' && !vaultedCharge && !byMerchant);
    const answer: BraintreeAnswer = ctx.decline
      ? answerFor(ctx.decline)
      : authenticationRequired
        ? answerFor(AUTHENTICATION_REQUIRED_CODE)
        : vaultedCharge && method.laterChargesDecline
          ? answerFor(LATER_CHARGES_DECLINE_CODE)
          : method.answer;
    if (method.usage === 'SINGLE_USE') method.consumed = true;
    const tx: TransactionRecord = {
      ...newId('transaction'),
      merchantId: ctx.merchant.id,
      orderId: input.transaction.orderId ?? null,
      status: answer.status,
      merchantAccountId: account.id,
      currency: account.currency,
      authorized: answer.status === 'AUTHORIZED' ? amount : 0,
      captured: 0,
      paymentMethod: method,
      paymentInitiator: input.transaction.paymentInitiator ?? null,
      networkTransactionId: answer.status === 'AUTHORIZED' ? Array.from(randomBytes(15), (byte) => byte % 10).join('') : null,
      history: [],
      refunds: [],
      disputes: [],
      createdAt: now(),
    };
    tx.history.push(this.event(tx, answer, amount));
    const when = input.transaction.vaultPaymentMethodAfterTransacting?.when;
    if (method.usage === 'SINGLE_USE' && (when === 'ALWAYS' || (when === 'ON_SUCCESSFUL_TRANSACTION' && answer.status === 'AUTHORIZED'))) {
      tx.vaulted = {
        ...method,
        ...newId('paymentmethod_cc'),
        usage: 'MULTI_USE',
        consumed: false,
        customerId: input.transaction.customerId ?? newId('customer').id,
        createdAt: now(),
      };
      this.paymentMethods.set(tx.vaulted.id, tx.vaulted);
    }
    this.transactions.set(tx.id, tx);
    return { clientMutationId: input.clientMutationId ?? null, transaction: this.transactionView(tx) };
  }

  /** The settlement batch runs for one captured transaction or refund (its `transaction_settled` notification follows). */
  settle(id: string): void {
    const tx = this.transactions.get(id);
    if (tx?.status === 'SUBMITTED_FOR_SETTLEMENT') {
      this.move(tx, 'SettledEvent', 'SETTLED', tx.captured);
      this.notifySale(tx, 'transaction_settled');
    }
    const refund = this.refunds.get(id);
    if (refund?.status === 'SUBMITTED_FOR_SETTLEMENT') {
      this.moveRefund(refund, 'SettledEvent', 'SETTLED');
      this.notifyCredit(refund, 'transaction_settled');
    }
  }

  /** The processor declines to settle a capture (`transaction_settlement_declined` follows); the money is given back. */
  declineSettlement(transactionId: string): void {
    const tx = this.transactions.get(transactionId);
    if (tx?.status !== 'SUBMITTED_FOR_SETTLEMENT' && tx?.status !== 'SETTLING') throw new Error(`transaction ${transactionId} is not settling`);
    tx.status = 'SETTLEMENT_DECLINED';
    tx.history.push({ __typename: 'SettlementDeclinedEvent', ...this.settlementDeclined(tx.captured, tx.currency) });
    this.notifySale(tx, 'transaction_settlement_declined');
  }

  /** A refund the processor declines at settlement, even once reported settled (`transaction_settlement_declined`). */
  failRefund(refundId: string): void {
    const refund = this.refunds.get(refundId);
    if (!refund || !['SUBMITTED_FOR_SETTLEMENT', 'SETTLING', 'SETTLED'].includes(refund.status))
      throw new Error(`no settling or settled refund ${refundId}`);
    refund.status = 'SETTLEMENT_DECLINED';
    refund.history.push({ __typename: 'SettlementDeclinedEvent', ...this.settlementDeclined(refund.amount, refund.transaction.currency) });
    this.notifyCredit(refund, 'transaction_settlement_declined');
  }

  /** The card network opens a chargeback on a captured transaction, for what is left of it (`dispute_opened`). */
  openDispute(transactionId: string, reason = 'general'): string {
    const tx = this.transactions.get(transactionId);
    if (!tx || !CAPTURED.has(tx.status)) throw new Error(`transaction ${transactionId} is not captured`);
    const braintreeReason = DISPUTE_REASONS[reason];
    if (!braintreeReason) throw new Error(`unknown dispute reason ${reason}`);
    const today = new Date();
    const dispute: DisputeRecord = {
      ...newId('dispute'),
      status: 'OPEN',
      reason: braintreeReason,
      amount: this.remaining(tx),
      receivedDate: day(today),
      replyByDate: day(new Date(today.getTime() + REPLY_DAYS * 86_400_000)),
      evidence: [],
      history: [],
      createdAt: now(),
      transaction: tx,
    };
    tx.disputes.push(dispute);
    this.disputes.set(dispute.id, dispute);
    this.moveDispute(dispute, 'OPEN', 'dispute_opened');
    return dispute.id;
  }

  /** The processor decides an open or disputed case (`dispute_won` / `dispute_lost`). */
  closeDispute(disputeId: string, outcome: 'won' | 'lost'): void {
    const dispute = this.disputes.get(disputeId);
    if (!dispute || !['OPEN', 'DISPUTED', 'UNDER_REVIEW'].includes(dispute.status)) throw new Error(`no open dispute ${disputeId}`);
    this.moveDispute(dispute, outcome.toUpperCase(), `dispute_${outcome}`);
  }

  /** The disputes as the shared fake interface shows them: evidence by our field names ("field: text"). */
  fakeDisputes(): FakeDispute[] {
    return [...this.disputes.values()].map((d) => ({
      id: d.id,
      paymentReference: d.transaction.id,
      amount: d.amount,
      currency: d.transaction.currency,
      status: d.status,
      evidence: Object.fromEntries(
        d.evidence.map((e) => {
          const label = /^([a-z_]+): ([\s\S]*)$/.exec(e.content);
          return label ? [label[1]!, label[2]!] : ['GENERAL', e.content];
        }),
      ),
      accepted: d.status === 'ACCEPTED',
    }));
  }

  holds(): FakeHold[] {
    return [...this.transactions.values()]
      .filter((tx) => tx.history.some((e) => e.status === 'AUTHORIZED'))
      .map((tx) => ({
        reference: tx.id,
        ...(tx.orderId ? { idempotencyKey: tx.orderId } : {}),
        amount: tx.authorized,
        currency: tx.currency,
        state: tx.status === 'AUTHORIZED' ? 'authorized' : CAPTURED.has(tx.status) ? 'captured' : 'voided',
        captured: tx.captured,
        // a capture voided before settlement gave everything back
        refunded: tx.status === 'VOIDED' && tx.captured > 0 ? tx.captured : this.refundedOf(tx),
      }));
  }

  /** Which merchant a Basic `public_key:private_key` pair belongs to. */
  authenticate(publicKey: string, privateKey: string): FakeMerchant | undefined {
    return this.merchants.find((m) => m.publicKey === publicKey && m.privateKey === privateKey);
  }

  private transactionOf(id: string, ctx: CallContext): TransactionRecord {
    const tx = this.transactions.get(id);
    if (!tx || tx.merchantId !== ctx.merchant.id) throw notFound();
    return tx;
  }

  private refundedOf = (tx: TransactionRecord) =>
    tx.refunds.filter((r) => r.status !== 'VOIDED' && r.status !== 'FAILED').reduce((sum, r) => sum + r.amount, 0);
  private remaining = (tx: TransactionRecord) => tx.captured - this.refundedOf(tx);

  private disputeOf(id: string, ctx: CallContext): DisputeRecord {
    const dispute = this.disputes.get(id);
    if (!dispute || dispute.transaction.merchantId !== ctx.merchant.id) throw notFound();
    return dispute;
  }

  private newRefund(tx: TransactionRecord, amount: number, orderId: string | null): RefundRecord {
    const refund: RefundRecord = {
      ...newId('transaction'),
      orderId,
      status: 'SUBMITTED_FOR_SETTLEMENT',
      amount,
      history: [],
      createdAt: now(),
      transaction: tx,
    };
    this.moveRefund(refund, 'SubmittedForSettlementEvent', 'SUBMITTED_FOR_SETTLEMENT');
    tx.refunds.push(refund);
    this.refunds.set(refund.id, refund);
    return refund;
  }

  private move(tx: TransactionRecord, typename: string, status: string, amount: number): void {
    tx.status = status;
    tx.history.push({
      __typename: typename,
      status,
      timestamp: now(),
      amount: money(amount, tx.currency),
      source: 'API',
      terminal: status === 'VOIDED',
    });
  }

  private moveRefund(refund: RefundRecord, typename: string, status: string): void {
    refund.status = status;
    const amount = money(refund.amount, refund.transaction.currency);
    refund.history.push({ __typename: typename, status, timestamp: now(), amount, source: 'API', terminal: status === 'SETTLED' });
  }

  private moveDispute(dispute: DisputeRecord, status: string, kind: string): void {
    dispute.status = status;
    dispute.history.push({ status, timestamp: now(), effectiveDate: day(new Date()) });
    const tx = dispute.transaction;
    this.notifyFor(
      tx,
      kind,
      disputeXml({
        legacyId: dispute.legacyId,
        globalId: dispute.id,
        status: status.toLowerCase(),
        reason: dispute.reason.toLowerCase(),
        amountDisputed: money(dispute.amount, tx.currency).value,
        currency: tx.currency,
        receivedDate: dispute.receivedDate,
        replyByDate: dispute.replyByDate,
        transaction: { legacyId: tx.legacyId, amount: money(tx.captured, tx.currency).value },
      }),
    );
  }

  private settlementDeclined(amount: number, currency: string) {
    return {
      status: 'SETTLEMENT_DECLINED',
      timestamp: now(),
      amount: money(amount, currency),
      source: 'API',
      terminal: true,
      processorResponse: { legacyCode: '4001', message: 'Settlement Declined' },
    };
  }

  private notifySale(tx: TransactionRecord, kind: string): void {
    const declined = tx.status === 'SETTLEMENT_DECLINED';
    this.notifyFor(
      tx,
      kind,
      transactionXml({
        legacyId: tx.legacyId,
        globalId: tx.id,
        type: 'sale',
        status: tx.status.toLowerCase(),
        amount: money(tx.captured, tx.currency).value,
        currency: tx.currency,
        merchantAccountId: tx.merchantAccountId,
        orderId: tx.orderId,
        ...(declined ? { settlementResponse: { code: '4001', text: 'Settlement Declined' } } : {}),
      }),
    );
  }

  private notifyCredit(refund: RefundRecord, kind: string): void {
    const tx = refund.transaction;
    const declined = refund.status === 'SETTLEMENT_DECLINED';
    this.notifyFor(
      tx,
      kind,
      transactionXml({
        legacyId: refund.legacyId,
        globalId: refund.id,
        type: 'credit',
        status: refund.status.toLowerCase(),
        amount: money(refund.amount, tx.currency).value,
        currency: tx.currency,
        merchantAccountId: tx.merchantAccountId,
        orderId: refund.orderId,
        refundedTransactionId: tx.legacyId,
        ...(declined ? { settlementResponse: { code: '4001', text: 'Settlement Declined' } } : {}),
      }),
    );
  }

  private notifyFor(tx: TransactionRecord, kind: string, subjectXml: string): void {
    const merchant = this.merchants.find((m) => m.id === tx.merchantId);
    if (merchant) this.notify(merchant, kind, subjectXml);
  }

  private event(tx: TransactionRecord, answer: BraintreeAnswer, amount: number): StatusEvent {
    const base = { status: answer.status, timestamp: now(), amount: money(amount, tx.currency), source: 'API' };
    switch (answer.status) {
      case 'AUTHORIZED':
        return { __typename: 'AuthorizedEvent', ...base, terminal: false, processorResponse: { legacyCode: '1000', message: 'Approved' } };
      case 'PROCESSOR_DECLINED':
        return {
          __typename: 'ProcessorDeclinedEvent',
          ...base,
          terminal: true,
          declineType: answer.declineType,
          processorResponse: { legacyCode: answer.code, message: answer.message },
        };
      case 'GATEWAY_REJECTED':
        return { __typename: 'GatewayRejectedEvent', ...base, terminal: true, gatewayRejectionReason: answer.reason, processorResponse: null };
      case 'FAILED':
        return { __typename: 'FailedEvent', ...base, terminal: true, processorResponse: { legacyCode: answer.code, message: answer.message } };
    }
  }

  private merchantView(merchant: FakeMerchant) {
    return {
      id: merchant.id,
      status: 'ACTIVE',
      companyName: 'Fake Merchant',
      merchantAccounts: ({ input, first }: { input?: { id?: { is?: string; in?: string[] } } | null; first?: number | null }) => {
        const ids = input?.id?.in ?? (input?.id?.is ? [input.id.is] : undefined);
        const accounts = merchant.accounts.filter((a) => !ids || ids.includes(a.id)).slice(0, first ?? 50);
        return connection(
          accounts.map((a) => ({ id: a.id, currencyCode: a.currency, status: a.status ?? 'ACTIVE', isDefault: a.isDefault ?? false })),
        );
      },
    };
  }

  private paymentMethodView(method: PaymentMethodRecord) {
    return {
      __typename: 'PaymentMethod',
      id: method.id,
      legacyId: method.legacyId,
      usage: method.usage,
      createdAt: method.createdAt,
      details: { __typename: 'CreditCardDetails', last4: method.last4, brandCode: 'VISA' },
      customer: method.customerId ? { id: method.customerId, legacyId: method.customerId } : null,
    };
  }

  transactionView(tx: TransactionRecord) {
    const current = tx.captured > 0 ? tx.captured : tx.authorized;
    return {
      __typename: 'Transaction',
      id: tx.id,
      legacyId: tx.legacyId,
      createdAt: tx.createdAt,
      orderId: tx.orderId,
      status: tx.status,
      merchantId: tx.merchantId,
      merchantAccountId: tx.merchantAccountId,
      amount: money(current, tx.currency),
      paymentMethod: tx.vaulted
        ? this.paymentMethodView(tx.vaulted)
        : tx.paymentMethod.usage === 'MULTI_USE'
          ? this.paymentMethodView(tx.paymentMethod)
          : null,
      paymentMethodSnapshot: {
        __typename: 'CreditCardTransactionDetails',
        creditCard: { __typename: 'CreditCardDetails', last4: tx.paymentMethod.last4, brandCode: 'VISA' },
        networkTransactionId: tx.networkTransactionId,
      },
      statusHistory: [...tx.history].reverse().map((e) => ({ ...e })),
      refunds: tx.refunds.map((r) => this.refundView(r)),
      disputes: tx.disputes.map((d) => this.disputeView(d)),
    };
  }

  refundView(refund: RefundRecord) {
    return {
      __typename: 'Refund',
      id: refund.id,
      legacyId: refund.legacyId,
      createdAt: refund.createdAt,
      orderId: refund.orderId,
      status: refund.status,
      merchantAccountId: refund.transaction.merchantAccountId,
      amount: money(refund.amount, refund.transaction.currency),
      statusHistory: [...refund.history].reverse().map((e) => ({ ...e })),
      refundedTransaction: () => this.transactionView(refund.transaction),
    };
  }

  disputeView(dispute: DisputeRecord) {
    const tx = dispute.transaction;
    return {
      __typename: 'Dispute',
      id: dispute.id,
      legacyId: dispute.legacyId,
      createdAt: dispute.createdAt,
      status: dispute.status,
      type: 'CHARGEBACK',
      amountDisputed: money(dispute.amount, tx.currency),
      receivedDate: dispute.receivedDate,
      replyByDate: dispute.replyByDate,
      responseDeadline: `${dispute.replyByDate}T23:59:59.000Z`,
      processorResponse: { reason: dispute.reason, reasonCode: null, receivedDate: dispute.receivedDate },
      evidence: dispute.evidence.map((e) => this.evidenceView(e)),
      statusHistory: [...dispute.history].reverse().map((e) => ({ ...e })),
      transaction: () => this.transactionView(tx),
    };
  }

  private evidenceView(evidence: DisputeRecord['evidence'][number]) {
    return { __typename: 'DisputeTextEvidence', ...evidence, category: null };
  }
}

interface TokenizeInput {
  clientMutationId?: string | null;
  creditCard: { number?: string | null; expirationMonth?: string | null; expirationYear?: string | null; cvv?: string | null };
}
interface AuthorizeInput {
  clientMutationId?: string | null;
  paymentMethodId: string;
  /** authorizeCreditCard only (CreditCardTransactionOptionsInput) */
  options?: { externalVault?: { status: string; verifyingNetworkTransactionId?: string | null } | null } | null;
  transaction: {
    amount: string;
    orderId?: string | null;
    merchantAccountId?: string | null;
    paymentInitiator?: string | null;
    customerId?: string | null;
    vaultPaymentMethodAfterTransacting?: { when: string } | null;
  };
}
interface CaptureInput {
  clientMutationId?: string | null;
  transactionId: string;
  amount?: string | null;
  transaction?: { amount?: string | null } | null;
}
interface RefundInput {
  clientMutationId?: string | null;
  transactionId: string;
  refund?: { amount?: string | null; orderId?: string | null } | null;
}

/** The initiators of a charge the cardholder is not part of (PaymentInitiator). */
const MERCHANT_INITIATED = new Set(['RECURRING', 'UNSCHEDULED', 'INSTALLMENT']);

/**
 * What TransactionExternalVaultOptionsInput's description asks, checked: not on a Braintree multi-use payment
 * method; no `verifyingNetworkTransactionId` with WILL_VAULT, nor on a VAULTED card the customer charges directly.
 */
function externalVaultProblem(input: AuthorizeInput, method: PaymentMethodRecord): void {
  const vault = input.options?.externalVault;
  if (!vault) return;
  const path = ['input', 'options', 'externalVault'];
  if (method.usage === 'MULTI_USE')
    throw new BraintreeError('External vault options are not for payment methods vaulted at Braintree.', 'VALIDATION', undefined, path);
  if (!vault.verifyingNetworkTransactionId) return;
  if (vault.status !== 'VAULTED' || !MERCHANT_INITIATED.has(input.transaction.paymentInitiator ?? ''))
    throw new BraintreeError('verifyingNetworkTransactionId is only for a VAULTED card charged by the merchant.', 'VALIDATION', undefined, [
      ...path,
      'verifyingNetworkTransactionId',
    ]);
}

function connection<T>(nodes: T[]) {
  return {
    edges: nodes.map((node, i) => ({ cursor: String(i), node })),
    pageInfo: {
      hasNextPage: false,
      hasPreviousPage: false,
      startCursor: nodes.length ? '0' : null,
      endCursor: nodes.length ? String(nodes.length - 1) : null,
    },
  };
}

/** The transaction search filters the fake understands; any other is refused rather than ignored. */
function matchesSearch(tx: TransactionRecord, input: Record<string, Record<string, unknown> | undefined>): boolean {
  for (const [field, filter] of Object.entries(input)) {
    if (filter == null) continue;
    if (field === 'orderId' && !matchesText(tx.orderId, filter)) return false;
    else if (field === 'id' && !matchesValue(tx.id, filter)) return false;
    else if (field === 'status' && !matchesValue(tx.status, filter)) return false;
    else if (!['orderId', 'id', 'status'].includes(field))
      throw new BraintreeError(`the fake searches transactions by orderId, id and status only, not ${field}`, 'VALIDATION');
  }
  return true;
}

function matchesText(value: string | null, filter: Record<string, unknown>): boolean {
  const v = value ?? '';
  const { is, isNot, startsWith, endsWith, contains } = filter as Record<string, string | undefined>;
  return (
    (is === undefined || v === is) &&
    (isNot === undefined || v !== isNot) &&
    (startsWith === undefined || v.startsWith(startsWith)) &&
    (endsWith === undefined || v.endsWith(endsWith)) &&
    (contains === undefined || v.includes(contains))
  );
}

function matchesValue(value: string, filter: Record<string, unknown>): boolean {
  const { is, in: among } = filter as { is?: string; in?: string[] };
  return (is === undefined || value === is) && (among === undefined || among.includes(value));
}
