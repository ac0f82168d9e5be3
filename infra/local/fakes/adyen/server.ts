/**
 * A local Adyen Checkout v72 (node:http) for connector tests and the local runtime: the calls our connector makes
 * (POST /v72/paymentMethods, /payments, /payments/details, /cancels, /payments/{psp}/captures|cancels|refunds), each request body checked
 * against the request schema of Adyen's published OpenAPI (refused with Adyen's 422 validation error when it does not
 * match) and each answer against the response schema before it is sent.
 *
 * Like Adyen it keeps the books: authorizations (captured once, at most their amount; refunds up to what was
 * captured; a cancel only while nothing is captured), stored cards per shopper, and the answer given under every
 * `Idempotency-Key` (kept per company account: the same key again, on any endpoint, gets the stored answer and
 * changes nothing). A cancel by our reference (`/cancels`, the technical cancel) also cancels an authorization that
 * arrives later under that reference.
 *
 * Adyen carries out captures, cancels and refunds asynchronously (`received`, the outcome by webhook); the fake
 * refuses one its books do not allow at once, with a 422, so a refused modification reaches the connector. Each one
 * carried out is notified (CAPTURE, CANCELLATION, REFUND, success true; notifications.ts) to the endpoint registered
 * with `POST /_fake/webhooks`; a refund failing at settlement (`failRefund`) sends REFUND_FAILED. The technical cancel
 * (/cancels by our reference) is not notified: nothing of ours follows it.
 *
 * It also serves the Disputes API v30 calls the connector makes (under /ca/services/DisputeService/v30, checked
 * against that contract; disputes.ts), 3-D Secure (three-d-secure.ts: `RedirectShopper`, the shopper's challenge pages under
 * /checkoutshopper/, and POST /v72/payments/details), and the test's controls under /_fake/ (JSON in and out).
 * Settlement batches close on demand (`POST /_fake/payouts`, payouts.ts): the batch's settlement details report is
 * served at Adyen's download path (X-API-Key) and announced by a signed REPORT_AVAILABLE.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Faults } from '../faults.ts';
import { listen } from '../listen.ts';
import type { FakeHold, FakeOperation, FakeRequest, FakeServer } from '../types.ts';
import { type AdyenRefusal, behaviourOf, brandOf, LATER_CHARGE_REFUSAL, refusalOfCode } from './cards.ts';
import { CONTRACT_PATHS, type ContractPath, deleteProblem, requestProblem, responseProblem } from './contract.ts';
import { AdyenDisputes } from './disputes.ts';
import { type PayoutFaults, payoutFaultsOf } from '../payout-faults.ts';
import { ADYEN_FAKE_HMAC_KEY, AdyenNotifications } from './notifications.ts';
import { AdyenPayouts, type Movement } from './payouts.ts';
import {
  AdyenChallenges,
  type AuthenticatingRequest,
  authenticated,
  authenticationOf,
  CHALLENGE_PATHS,
  challengePage,
  failedChallenge,
  returnTo,
} from './three-d-secure.ts';
import { DISPUTE_OPERATIONS, type DisputeOperation, disputeRequestProblem, disputeResponseProblem } from './other-contracts.ts';

/** An API key the fake knows, and the merchant account it may act for (Adyen: a web service user's key). */
export const ADYEN_FAKE_API_KEY = 'AQEyhmfxK4fake-adyen-api-key-for-tests-0001';
export const ADYEN_FAKE_MERCHANT_ACCOUNT = 'OrchestratorTestECOM';
/** Credentials as a merchant enters them for an Adyen connector, valid at the fake. */
export const ADYEN_FAKE_CREDENTIALS = {
  api_key: ADYEN_FAKE_API_KEY,
  merchant_account: ADYEN_FAKE_MERCHANT_ACCOUNT,
  hmac_key: ADYEN_FAKE_HMAC_KEY,
} as const;
export { ADYEN_FAKE_HMAC_KEY } from './notifications.ts';

const VERSION_PREFIX = '/v72';
/** Where Adyen serves a merchant account's reports: `/reports/download/MerchantAccount/{account}/{file}`. */
const REPORTS_PREFIX = '/reports/download/MerchantAccount/';
const DISPUTE_SERVICE_PREFIX = '/ca/services/DisputeService/v30/';

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  body: Json;
}
interface ServiceError extends Json {
  status: number;
  errorCode: string;
  message: string;
  errorType: string;
  pspReference?: string;
}

const serviceError = (status: number, errorCode: string, message: string, errorType: string): Answer => ({
  status,
  body: { status, errorCode, message, errorType } satisfies ServiceError,
});

/**
 * Modifications the books refuse (Adyen reports them later, in the CAPTURE / CANCELLATION / REFUND webhook with
 * `success: false`), answered at once with Adyen's validation error shape and its closest error code.
 */
const REFUSED = {
  unknownPayment: () => serviceError(422, '167', 'Original pspReference required for this operation', 'validation'),
  currency: () => serviceError(422, '138', 'Unsupported currency specified', 'validation'),
  amount: () => serviceError(422, '137', 'Invalid amount specified', 'validation'),
  state: (state: string) => serviceError(422, '000', `Modification not possible: the payment is ${state}`, 'validation'),
};

const STATUS_TEXT: Readonly<Record<number, string>> = {
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** Adyen-like 16-character references (pspReference, storedPaymentMethodId). */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const newReference = () => Array.from(randomBytes(16), (b) => ALPHABET[b % ALPHABET.length]).join('');

interface Hold extends FakeHold {
  merchantAccount: string;
  merchantReference: string;
  /** when it was captured (epoch ms) */
  capturedAt?: number;
}
interface StoredCard {
  id: string;
  merchantAccount: string;
  shopperReference: string;
  number: string;
  laterChargesDecline: boolean;
  /** what the card networks' updater reported since: applied, and told, at the card's next charge (Real Time Account Updater) */
  update?: { exp_month: number; exp_year: number; number?: string };
}

/** The Adyen fake: the shared FakeServer, plus every answer it gave that broke the contract (should stay empty). */
export interface AdyenFakeServer extends FakeServer {
  readonly contractViolations: string[];
  /** The networks' updater changed a stored card (`POST /_fake/stored_cards/:id/update`): its next charge reports it. */
  updateStoredCard(storedPaymentMethodId: string, update: { exp_month: number; exp_year: number; number?: string }): void;
  /** lets the fake's API key act for another merchant account too (a test's own: its batches are its own) */
  addMerchantAccount(merchantAccount: string): void;
  /** whether a stored card (its storedPaymentMethodId) is still held, and so chargeable */
  holdsStoredCard(storedPaymentMethodId: string): boolean;
  /**
   * Closes the merchant account's next settlement batch (`POST /_fake/payouts {merchant_account?, …faults}`): its
   * settlement details report is published for download and announced by a signed REPORT_AVAILABLE.
   */
  payOut(faults?: PayoutFaults, merchantAccount?: string): { batch: number; name: string; payouts: Array<{ currency: string; amount: number }> };
  /** Moves every capture, refund and chargeback back by `ms`, as if made that long ago. */
  backdate(ms: number): void;
}

interface Route {
  path: ContractPath;
  operation: FakeOperation;
  psp?: string;
}

function routeOf(method: string | undefined, pathname: string): Route | undefined {
  if (method !== 'POST' || !pathname.startsWith(`${VERSION_PREFIX}/`)) return undefined;
  const path = pathname.slice(VERSION_PREFIX.length);
  if (path === '/paymentMethods') return { path, operation: 'verify' };
  if (path === '/payments') return { path, operation: 'authorize' };
  if (path === '/payments/details') return { path, operation: 'complete_authentication' };
  if (path === '/cancels') return { path, operation: 'reverse' };
  const modification = /^\/payments\/([^/]+)\/(captures|cancels|refunds)$/.exec(path);
  if (!modification) return undefined;
  const [, psp, kind] = modification as unknown as [string, string, 'captures' | 'cancels' | 'refunds'];
  const operation = ({ captures: 'capture', cancels: 'void', refunds: 'refund' } as const)[kind];
  return { path: `/payments/{paymentPspReference}/${kind}`, operation, psp: decodeURIComponent(psp) };
}

/**
 * What the contract says of `additionalData.networkTxReference` (AdditionalDataCommon), checked: it links a
 * merchant-initiated charge of a card Adyen did not tokenize to its series, so it comes with a raw card, `ContAuth`
 * and `Subscription` or `UnscheduledCardOnFile`.
 */
function merchantInitiationProblem(request: {
  paymentMethod: { number?: string };
  additionalData?: Record<string, string>;
  shopperInteraction?: string;
  recurringProcessingModel?: string;
}): string | undefined {
  if (request.additionalData?.networkTxReference === undefined) return undefined;
  if (!request.paymentMethod.number) return 'networkTxReference is for card details not tokenized with Adyen';
  const model = request.recurringProcessingModel ?? '';
  if (request.shopperInteraction !== 'ContAuth' || !['Subscription', 'UnscheduledCardOnFile'].includes(model))
    return 'networkTxReference needs shopperInteraction ContAuth and recurringProcessingModel Subscription or UnscheduledCardOnFile';
  return undefined;
}

/**
 * How a charge on stored details is flagged, checked: `recurringProcessingModel` is required with them (the
 * contract says so) and with `ContAuth`; the shopper present (`Ecommerce`, the default) pays `CardOnFile`, since
 * `Subscription` and `UnscheduledCardOnFile` are the merchant's charges (`ContAuth`, Adyen's token guide).
 */
function storedChargeProblem(request: {
  paymentMethod: { storedPaymentMethodId?: string };
  shopperInteraction?: string;
  recurringProcessingModel?: string;
}): string | undefined {
  const model = request.recurringProcessingModel;
  if (request.shopperInteraction === 'ContAuth' && !model) return 'shopperInteraction ContAuth needs a recurringProcessingModel';
  if (!request.paymentMethod.storedPaymentMethodId) return undefined;
  if (!model) return 'recurringProcessingModel is required when using stored payment details';
  const interaction = request.shopperInteraction ?? 'Ecommerce';
  if (interaction === 'Ecommerce' && model !== 'CardOnFile') return `stored details paid by the shopper (Ecommerce) are CardOnFile, not ${model}`;
  return undefined;
}

/** The /payments request fields the fake reads. */
type PaymentBody = AuthenticatingRequest & {
  merchantAccount: string;
  reference: string;
  amount: { currency: string; value: number };
  paymentMethod: { number?: string; storedPaymentMethodId?: string };
  additionalData?: Record<string, string>;
  metadata?: Record<string, string>;
  shopperReference?: string;
  shopperInteraction?: string;
  recurringProcessingModel?: string;
  storePaymentMethod?: boolean;
};

/** A refund the fake carried out, until it fails at settlement. */
interface Refund {
  reference: string;
  hold: Hold;
  amount: number;
  merchantReference: string;
  failed: boolean;
  /** when it was made and, if it failed at settlement, failed (epoch ms) */
  at: number;
  failedAt?: number;
}

type Check = (status: number, body: unknown) => string | undefined;

/** A call of the test's controls (`/_fake/…`) that cannot be done: answered 400 with its message. */
class ControlError extends Error {}

export async function startAdyenFake(options: { port?: number; notificationDelayMs?: number } = {}): Promise<AdyenFakeServer> {
  // Compile the contract's validators now (PaymentRequest takes about a second), not during a test's first call.
  for (const path of CONTRACT_PATHS) requestProblem(path, {});
  const requests: FakeRequest[] = [];
  const contractViolations: string[] = [];
  /** the answer given under each Idempotency-Key, and the path it was given on */
  const answers = new Map<string, Answer & { path: string }>();
  const holds = new Map<string, Hold>();
  /** `merchantAccount \n reference` of every technical cancel: an authorization landing later is cancelled too */
  const cancelledReferences = new Set<string>();
  const storedCards = new Map<string, StoredCard>();
  const faults = new Faults();
  const notifications = new AdyenNotifications(options.notificationDelayMs ?? 0, contractViolations);
  const disputes = new AdyenDisputes(notifications, newReference);
  const refunds = new Map<string, Refund>();
  const apiKeys = new Map([[ADYEN_FAKE_API_KEY, new Set([ADYEN_FAKE_MERCHANT_ACCOUNT])]]);
  const payouts = new AdyenPayouts((merchantAccount) => movementsOf(merchantAccount));
  const challenges = new AdyenChallenges<Answer, PaymentBody>();
  /** the fake's own origin, where its shopper pages are (known once it listens) */
  let origin = '';

  /** The notification of a modification carried out on `hold` (success true: the fake settles every one). */
  const notifyModification = (eventCode: string, hold: Hold, pspReference: string, merchantReference: string | undefined, value: number) =>
    notifications.send({
      eventCode,
      pspReference,
      originalReference: hold.reference,
      merchantAccountCode: hold.merchantAccount,
      merchantReference: merchantReference ?? hold.merchantReference,
      amount: { value, currency: hold.currency },
      success: 'true',
      paymentMethod: 'visa',
    });

  function openDispute(paymentReference: string, reason?: string): string {
    const hold = holds.get(paymentReference);
    if (!hold || hold.state !== 'captured') throw new ControlError(`no captured payment ${paymentReference}`);
    return disputes.open(hold, reason);
  }

  function failRefund(refundReference: string): void {
    const refund = refunds.get(refundReference);
    if (!refund || refund.failed) throw new ControlError(`no refund ${refundReference} that can still fail`);
    refund.failed = true;
    refund.failedAt = Date.now();
    refund.hold.refunded -= refund.amount;
    notifications.send({
      eventCode: 'REFUND_FAILED',
      pspReference: refund.reference,
      originalReference: refund.hold.reference,
      merchantAccountCode: refund.hold.merchantAccount,
      merchantReference: refund.merchantReference,
      amount: { value: refund.amount, currency: refund.hold.currency },
      success: 'true',
      reason: 'Refund Failed',
      paymentMethod: 'visa',
    });
  }

  function closeDispute(id: string, outcome: 'won' | 'lost'): void {
    try {
      disputes.close(id, outcome);
    } catch (error) {
      throw new ControlError((error as Error).message);
    }
  }

  /** What the account's settlement batches book: captures, refunds (and their failures), chargebacks. */
  function movementsOf(merchantAccount: string): Movement[] {
    const own = (hold: Hold) => hold.merchantAccount === merchantAccount;
    const ofHold = (hold: Hold) => ({
      merchantAccount,
      pspReference: hold.reference,
      merchantReference: hold.merchantReference,
      currency: hold.currency,
    });
    const captures = [...holds.values()]
      .filter((hold) => own(hold) && hold.capturedAt !== undefined && hold.captured > 0)
      .map((hold): Movement => {
        const at = hold.capturedAt!;
        return {
          ...ofHold(hold),
          type: 'Settled',
          modificationReference: hold.reference,
          modificationMerchantReference: '',
          amount: hold.captured,
          at,
        };
      });
    const refunded = [...refunds.values()]
      .filter((refund) => own(refund.hold))
      .flatMap((refund): Movement[] => {
        const common = { ...ofHold(refund.hold), modificationReference: refund.reference, modificationMerchantReference: refund.merchantReference };
        const made: Movement = { ...common, type: 'Refunded', amount: refund.amount, at: refund.at };
        return refund.failedAt ? [made, { ...common, type: 'RefundedReversed', amount: refund.amount, at: refund.failedAt }] : [made];
      });
    return [...captures, ...refunded, ...disputes.movements().filter((m) => m.merchantAccount === merchantAccount)];
  }

  /** Closes the account's next batch and announces its report (REPORT_AVAILABLE: the file name, the URL in `reason`). */
  function payOut(faults: PayoutFaults = {}, merchantAccount = ADYEN_FAKE_MERCHANT_ACCOUNT) {
    const closed = payouts.payOut(merchantAccount, faults);
    if (!closed) throw new ControlError(`nothing to pay out at ${merchantAccount} since its last batch`);
    notifications.send({
      eventCode: 'REPORT_AVAILABLE',
      pspReference: closed.name,
      merchantAccountCode: merchantAccount,
      merchantReference: '',
      amount: { value: 0, currency: closed.payouts[0]!.currency },
      success: 'true',
      reason: `${origin}${REPORTS_PREFIX}${encodeURIComponent(merchantAccount)}/${closed.name}`,
    });
    return closed;
  }

  /** A report download (GET, `X-API-Key` of a web service user allowed on the merchant account), as Adyen serves it. */
  function download(req: IncomingMessage, res: ServerResponse, path: string) {
    const text = (status: number, body: string, type = 'text/plain') => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    const [merchantAccount, name] = path.split('/').map(decodeURIComponent) as [string, string | undefined];
    requests.push({ operation: 'payouts', method: req.method ?? '', path: `${REPORTS_PREFIX}${path}`, body: undefined });
    const apiKey = req.headers['x-api-key'];
    const allowed = typeof apiKey === 'string' ? apiKeys.get(apiKey) : undefined;
    if (!allowed) return text(401, 'HTTP Status 401 - Unauthorized');
    if (!allowed.has(merchantAccount)) return text(403, 'HTTP Status 403 - Forbidden');
    const fault = faults.take('payouts');
    if (fault?.kind === 'status') return text(fault.status, STATUS_TEXT[fault.status] ?? `HTTP ${fault.status}`);
    const report = req.method === 'GET' && name ? payouts.report(merchantAccount, name) : undefined;
    if (report === undefined) return text(404, 'HTTP Status 404 - Not Found');
    faults.deliver(fault, req, () => text(200, report, 'text/csv; charset=utf-8'));
  }

  const holdFor = (merchantAccount: string, psp: string) => {
    const hold = holds.get(psp);
    return hold?.merchantAccount === merchantAccount ? hold : undefined;
  };

  /** Adyen's `Refused` answer of a payment. */
  const refusedAnswer = (pspReference: string, reference: string, refusal: AdyenRefusal, additionalData: Record<string, string> = {}): Answer => {
    const raw = refusal.refusalReasonRaw ? { refusalReasonRaw: refusal.refusalReasonRaw } : {};
    const data = { ...additionalData, ...raw };
    return {
      status: 200,
      body: {
        pspReference,
        resultCode: 'Refused',
        merchantReference: reference,
        refusalReason: refusal.refusalReason,
        refusalReasonCode: refusal.refusalReasonCode,
        ...(Object.keys(data).length > 0 ? { additionalData: data } : {}),
      },
    };
  };

  function authorize(body: Json, key: string | undefined, decline?: string): Answer {
    const request = body as PaymentBody;
    const { merchantAccount, reference, paymentMethod } = request;
    const pspReference = newReference();
    const refused = (refusal: AdyenRefusal) => refusedAnswer(pspReference, reference, refusal);
    if (decline) return refused(refusalOfCode(decline));
    if ((paymentMethod.storedPaymentMethodId || request.storePaymentMethod) && !request.shopperReference)
      return serviceError(422, '000', 'Recurring payments require a shopperReference', 'validation');
    const flagging = merchantInitiationProblem(request) ?? storedChargeProblem(request);
    if (flagging) return serviceError(422, '000', flagging, 'validation');

    let number: string;
    if (paymentMethod.storedPaymentMethodId) {
      const card = storedCards.get(paymentMethod.storedPaymentMethodId);
      if (!card || card.merchantAccount !== merchantAccount || card.shopperReference !== request.shopperReference)
        return serviceError(422, '803', 'PaymentDetail not found', 'validation');
      if (card.laterChargesDecline) return refused(LATER_CHARGE_REFUSAL);
      if (card.update?.number) card.number = card.update.number;
      number = card.number;
    } else if (paymentMethod.number) {
      number = paymentMethod.number;
      const behaviour = behaviourOf(number);
      if (behaviour.kind === 'refuse') return refused(behaviour.refusal);
      if (behaviour.kind === 'error_at_first_attempt' && (request.metadata?.attempt ?? '1') === '1')
        return {
          status: 200,
          body: { pspReference, resultCode: 'Error', merchantReference: reference, refusalReason: 'Acquirer Error', refusalReasonCode: '4' },
        };
    } else {
      return serviceError(422, '000', 'paymentDetails not supplied', 'validation');
    }

    const authentication = authenticationOf(request, number, brandOf(number));
    if (authentication.kind === 'invalid') return serviceError(422, '000', authentication.message, 'validation');
    if (authentication.kind === 'refuse') return refused(refusalOfCode('38'));
    if (authentication.kind === 'challenge') {
      const action = challenges.start(origin, authentication.method, {
        pspReference,
        merchantAccount,
        merchantReference: reference,
        request,
        idempotencyKey: key,
        returnUrl: request.returnUrl,
      });
      return { status: 200, body: { pspReference, resultCode: 'RedirectShopper', merchantReference: reference, action } };
    }
    const threeDS = authentication.kind === 'frictionless' ? authentication.additionalData : {};
    return authorised(request, number, pspReference, key, threeDS);
  }

  /** An authorization the fake grants: the card stored when asked, the hold kept, Adyen's `Authorised` answer. */
  function authorised(request: PaymentBody, number: string, pspReference: string, key: string | undefined, threeDS: Record<string, string>): Answer {
    const { merchantAccount, reference, amount, paymentMethod } = request;
    let tokenization: Record<string, string> = {};
    if (paymentMethod.number && request.storePaymentMethod) {
      const behaviour = behaviourOf(number);
      const shopperReference = request.shopperReference!;
      const existing = [...storedCards.values()].find(
        (c) => c.merchantAccount === merchantAccount && c.shopperReference === shopperReference && c.number === number,
      );
      const card = existing ?? {
        id: newReference(),
        merchantAccount,
        shopperReference,
        number,
        laterChargesDecline: behaviour.kind === 'approve' && behaviour.laterChargesDecline,
      };
      storedCards.set(card.id, card);
      tokenization = {
        'tokenization.storedPaymentMethodId': card.id,
        'tokenization.shopperReference': shopperReference,
        'tokenization.store.operationType': existing ? 'alreadyExisting' : 'created',
      };
    }

    // Without manualCapture the fake captures at once, as an account with immediate capture does.
    const manual = request.additionalData?.manualCapture === 'true';
    const hold: Hold = {
      reference: pspReference,
      idempotencyKey: key,
      amount: amount.value,
      currency: amount.currency,
      state: manual ? 'authorized' : 'captured',
      captured: manual ? 0 : amount.value,
      ...(manual ? {} : { capturedAt: Date.now() }),
      refunded: 0,
      merchantAccount,
      merchantReference: reference,
    };
    if (hold.state === 'authorized' && cancelledReferences.has(`${merchantAccount}\n${reference}`)) hold.state = 'voided';
    holds.set(pspReference, hold);
    return {
      status: 200,
      body: {
        pspReference,
        resultCode: 'Authorised',
        merchantReference: reference,
        amount,
        paymentMethod: { type: 'scheme', brand: brandOf(number) },
        additionalData: {
          authCode: String(100000 + (randomBytes(3).readUIntBE(0, 3) % 900000)),
          refusalReasonRaw: 'AUTHORISED',
          // As an account that asked for it in its Customer Area (Developers → Additional data).
          networkTxReference: Array.from(randomBytes(15), (byte) => byte % 10).join(''),
          ...tokenization,
          ...threeDS,
          ...accountUpdate(paymentMethod.storedPaymentMethodId),
        },
      },
    };
  }

  /**
   * Real Time Account Updater: a stored card whose details the networks changed is charged with the new ones, and
   * the answer says so (`realtimeAccountUpdaterStatus`, the new `expiryDate` and `cardSummary`), once.
   */
  function accountUpdate(storedPaymentMethodId: string | undefined): Record<string, string> {
    const card = storedPaymentMethodId ? storedCards.get(storedPaymentMethodId) : undefined;
    const update = card?.update;
    if (!card || !update) return {};
    delete card.update;
    return {
      realtimeAccountUpdaterStatus: update.number ? 'CardChanged' : 'CardExpiryChanged',
      expiryDate: `${update.exp_month}/${update.exp_year}`,
      cardSummary: card.number.slice(-4),
    };
  }

  function modify(route: Route, body: Json, decline?: string): Answer {
    const request = body as { merchantAccount: string; reference?: string; amount?: { currency: string; value: number }; paymentReference?: string };
    const { merchantAccount } = request;
    const echo = { merchantAccount, pspReference: newReference(), ...(request.reference ? { reference: request.reference } : {}) };
    if (decline) return serviceError(422, decline, 'Refused (injected)', 'validation');
    if (route.operation === 'verify')
      return { status: 200, body: { paymentMethods: [{ name: 'Cards', type: 'scheme', brands: ['visa', 'mc', 'amex'] }] } };
    if (route.operation === 'reverse') {
      const paymentReference = request.paymentReference!;
      cancelledReferences.add(`${merchantAccount}\n${paymentReference}`);
      challenges.cancel(merchantAccount, { merchantReference: paymentReference });
      for (const hold of holds.values())
        if (hold.merchantAccount === merchantAccount && hold.merchantReference === paymentReference && hold.state === 'authorized')
          hold.state = 'voided';
      return { status: 201, body: { ...echo, paymentReference, status: 'received' } };
    }
    const hold = holdFor(merchantAccount, route.psp!);
    if (!hold && route.operation === 'void') return cancelWaiting(merchantAccount, route.psp!, echo, request.reference);
    if (!hold) return REFUSED.unknownPayment();
    const modified = { ...echo, paymentPspReference: hold.reference, status: 'received' };
    if (route.operation === 'void') {
      if (hold.state !== 'authorized') return REFUSED.state(hold.state);
      hold.state = 'voided';
      notifyModification('CANCELLATION', hold, echo.pspReference, request.reference, hold.amount);
      return { status: 201, body: modified };
    }
    const amount = request.amount!;
    if (amount.currency !== hold.currency) return REFUSED.currency();
    if (route.operation === 'capture') {
      if (hold.state !== 'authorized') return REFUSED.state(hold.state);
      if (amount.value <= 0 || amount.value > hold.amount) return REFUSED.amount();
      Object.assign(hold, { state: 'captured', captured: amount.value, capturedAt: Date.now() });
      notifyModification('CAPTURE', hold, echo.pspReference, request.reference, amount.value);
      return { status: 201, body: { ...modified, amount } };
    }
    if (hold.state !== 'captured') return REFUSED.state(hold.state);
    if (amount.value <= 0 || hold.refunded + amount.value > hold.captured) return REFUSED.amount();
    hold.refunded += amount.value;
    const merchantReference = request.reference ?? hold.merchantReference;
    refunds.set(echo.pspReference, { reference: echo.pspReference, hold, amount: amount.value, merchantReference, failed: false, at: Date.now() });
    notifyModification('REFUND', hold, echo.pspReference, merchantReference, amount.value);
    return { status: 201, body: { ...modified, amount } };
  }

  /** A cancel of a payment still waiting for its shopper: /payments/details will answer `Cancelled`. */
  function cancelWaiting(merchantAccount: string, psp: string, echo: Json & { pspReference: string }, reference?: string): Answer {
    const [challenge] = challenges.cancel(merchantAccount, { pspReference: psp });
    if (!challenge) return REFUSED.unknownPayment();
    const { amount } = challenge.request;
    notifications.send({
      eventCode: 'CANCELLATION',
      pspReference: echo.pspReference,
      originalReference: psp,
      merchantAccountCode: merchantAccount,
      merchantReference: reference ?? challenge.merchantReference,
      amount,
      success: 'true',
      paymentMethod: 'visa',
    });
    return { status: 201, body: { ...echo, paymentPspReference: psp, status: 'received' } };
  }

  /**
   * /payments/details with a `redirectResult` the fake's challenge page gave: the challenge's outcome, decided once
   * (the same answer for the same result again, under any key). A payment cancelled meanwhile is `Cancelled`.
   */
  function completeAuthentication(body: Json, merchantAccounts: ReadonlySet<string>): Answer {
    const redirectResult = (body as { details: { redirectResult?: string } }).details.redirectResult;
    const challenge = redirectResult ? challenges.redeemable(redirectResult) : undefined;
    if (!challenge || !merchantAccounts.has(challenge.merchantAccount)) return serviceError(422, '000', 'Invalid redirectResult', 'validation');
    if (challenge.answer) return challenge.answer;
    const { request } = challenge;
    const { pspReference, merchantReference } = challenge;
    const number = request.paymentMethod.number ?? storedCards.get(request.paymentMethod.storedPaymentMethodId ?? '')?.number ?? '';
    const brand = brandOf(number);
    if (challenge.cancelled) challenge.answer = { status: 200, body: { pspReference, resultCode: 'Cancelled', merchantReference } };
    else if (challenge.passed) challenge.answer = authorised(request, number, pspReference, challenge.idempotencyKey, authenticated(brand, 'C'));
    else challenge.answer = refusedAnswer(pspReference, merchantReference, refusalOfCode('11'), failedChallenge(brand));
    return challenge.answer;
  }

  /** The shopper's side of a challenge: Adyen's redirect (GET or POST form), the challenge page, the answer. */
  function shopperPage(res: ServerResponse, method: string | undefined, pathname: string, query: URLSearchParams, text: string) {
    const html = (status: number, page: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'" });
      res.end(page);
    };
    const fields = method === 'POST' ? new URLSearchParams(text) : query;
    const challenge = challenges.session(fields.get('MD') ?? '');
    if (!challenge) return html(404, '<!doctype html><title>Not found</title><p>No such 3D Secure session.</p>');
    if (pathname === CHALLENGE_PATHS.redirect && (method === 'GET' || method === 'POST')) return html(200, challengePage(challenge.session));
    if (pathname !== CHALLENGE_PATHS.submit || method !== 'POST') return html(405, '<!doctype html><title>Not allowed</title>');
    const redirectResult = challenges.answer(challenge, fields.get('password') ?? '', fields.get('outcome') ?? '');
    res.writeHead(302, { location: returnTo(challenge.returnUrl, redirectResult) });
    res.end();
  }

  const checkoutCheck =
    (path: ContractPath): Check =>
    (status, body) =>
      responseProblem(path, status, body);

  function respond(res: ServerResponse, check: Check | undefined, answer: Answer, key?: string) {
    if (res.destroyed) return;
    const problem = check?.(answer.status, answer.body);
    if (problem) {
      contractViolations.push(`${answer.status}: ${problem}`);
      answer = serviceError(500, '000', `The Adyen fake's answer breaks the contract: ${problem}`, 'internal');
    }
    res.writeHead(answer.status, { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) });
    res.end(JSON.stringify(answer.body));
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const { pathname, searchParams } = new URL(req.url ?? '/', 'http://adyen.fake');
    if (pathname.startsWith('/checkoutshopper/')) return shopperPage(res, req.method, pathname, searchParams, text);
    if (pathname.startsWith(REPORTS_PREFIX)) return download(req, res, pathname.slice(REPORTS_PREFIX.length));
    const storedDelete = /^\/v72\/storedPaymentMethods\/([^/]+)$/.exec(pathname);
    if (req.method === 'DELETE' && storedDelete) return deleteStored(req, res, decodeURIComponent(storedDelete[1]!), searchParams);
    const route = routeOf(req.method, pathname);
    const keyHeader = req.headers['idempotency-key'];
    const key = typeof keyHeader === 'string' ? keyHeader : undefined;
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const stored = key ? answers.get(key) : undefined;
    if (pathname.startsWith('/_fake/')) return control(res, req.method, pathname, body);
    if (pathname.startsWith(DISPUTE_SERVICE_PREFIX)) return disputeCall(req, res, pathname.slice(DISPUTE_SERVICE_PREFIX.length), body, key);
    // A /payments call under a key already answered there is how the connector looks an authorization up.
    if (!route) {
      // Not a call our connector makes: worth failing the test that caused it.
      contractViolations.push(`${req.method} ${pathname} is not a call the fake serves`);
      return respond(res, undefined, serviceError(404, '000', 'Not Found', 'validation'));
    }
    const operation = route.operation === 'authorize' && stored?.path === '/payments' ? 'lookup' : route.operation;
    requests.push({ operation, method: req.method ?? '', path: pathname, idempotencyKey: key, body });
    const apiKey = req.headers['x-api-key'];
    const merchantAccounts = typeof apiKey === 'string' ? apiKeys.get(apiKey) : undefined;
    if (!merchantAccounts)
      return respond(res, route && checkoutCheck(route.path), serviceError(401, '000', 'HTTP Status Response - Unauthorized', 'security'));
    const fault = faults.take(operation);
    if (fault?.kind === 'status') {
      const text = STATUS_TEXT[fault.status] ?? `HTTP ${fault.status}`;
      return respond(
        res,
        route && checkoutCheck(route.path),
        serviceError(fault.status, '000', text, fault.status === 429 ? 'validation' : 'internal'),
      );
    }

    let answer: Answer;
    if (stored) {
      answer = stored;
    } else if (typeof body !== 'object' || body === null) {
      answer = serviceError(400, '702', `Unexpected input: ${text.slice(0, 40)}`, 'validation');
    } else if (key && key.length > 64) {
      answer = serviceError(422, '000', 'Idempotency-Key is longer than 64 characters', 'validation');
    } else {
      const problem = requestProblem(route.path, body);
      const merchantAccount = (body as { merchantAccount?: unknown }).merchantAccount;
      if (problem) answer = serviceError(422, '702', `Structure ${problem}`, 'validation');
      else if (route.operation === 'complete_authentication') answer = completeAuthentication(body as Json, merchantAccounts);
      else if (typeof merchantAccount !== 'string' || !merchantAccounts.has(merchantAccount))
        answer = serviceError(403, '901', 'Invalid Merchant Account', 'security');
      else {
        const decline = fault?.kind === 'decline' ? fault.code : undefined;
        answer = route.operation === 'authorize' ? authorize(body as Json, key, decline) : modify(route, body as Json, decline);
        // Carried out: the answer is the key's from now on (Adyen keeps it at least 31 days).
        if (key) answers.set(key, { ...answer, path: route.path });
      }
    }

    faults.deliver(fault, req, () => respond(res, route && checkoutCheck(route.path), answer, key));
  }

  /**
   * DELETE /storedPaymentMethods/{id}?shopperReference=&merchantAccount= (Checkout's Recurring API): the stored card
   * is deleted and can no longer be charged, answered 204; a token the shopper does not hold: 422 Contract not found.
   */
  function deleteStored(req: IncomingMessage, res: ServerResponse, id: string, query: URLSearchParams) {
    const path = `${VERSION_PREFIX}/storedPaymentMethods/${id}`;
    requests.push({ operation: 'remove_token', method: 'DELETE', path, body: Object.fromEntries(query) });
    const apiKey = req.headers['x-api-key'];
    const merchantAccounts = typeof apiKey === 'string' ? apiKeys.get(apiKey) : undefined;
    if (!merchantAccounts) return respond(res, undefined, serviceError(401, '000', 'HTTP Status Response - Unauthorized', 'security'));
    const fault = faults.take('remove_token');
    if (fault?.kind === 'status') {
      return respond(res, undefined, serviceError(fault.status, '000', STATUS_TEXT[fault.status] ?? `HTTP ${fault.status}`, 'internal'));
    }
    const problem = deleteProblem('/storedPaymentMethods/{storedPaymentMethodId}', query);
    if (problem) return respond(res, undefined, serviceError(422, '702', problem, 'validation'));
    const merchantAccount = query.get('merchantAccount')!;
    if (!merchantAccounts.has(merchantAccount)) return respond(res, undefined, serviceError(403, '901', 'Invalid Merchant Account', 'security'));
    const card = storedCards.get(id);
    if (!card || card.merchantAccount !== merchantAccount || card.shopperReference !== query.get('shopperReference')) {
      return respond(res, undefined, serviceError(422, '800', 'Contract not found', 'validation'));
    }
    storedCards.delete(id);
    faults.deliver(fault, req, () => {
      if (res.destroyed) return;
      res.writeHead(204);
      res.end();
    });
  }

  /** One Disputes API call: authorized, faults, the key's stored answer, the contract, then the dispute books. */
  async function disputeCall(req: IncomingMessage, res: ServerResponse, name: string, body: unknown, key: string | undefined) {
    const operation = DISPUTE_OPERATIONS.find((o) => o === name) as DisputeOperation | undefined;
    if (req.method !== 'POST' || !operation) {
      contractViolations.push(`${req.method} ${DISPUTE_SERVICE_PREFIX}${name} is not a call the fake serves`);
      return respond(res, undefined, serviceError(404, '000', 'Not Found', 'validation'));
    }
    const check: Check = (status, answer) => disputeResponseProblem(operation, status, answer);
    const fakeOperation = operation === 'acceptDispute' ? 'dispute_accept' : 'dispute_evidence';
    requests.push({ operation: fakeOperation, method: 'POST', path: `${DISPUTE_SERVICE_PREFIX}${name}`, idempotencyKey: key, body });
    const apiKey = req.headers['x-api-key'];
    const merchantAccounts = typeof apiKey === 'string' ? apiKeys.get(apiKey) : undefined;
    if (!merchantAccounts) return respond(res, check, serviceError(401, '000', 'HTTP Status Response - Unauthorized', 'security'));
    const fault = faults.take(fakeOperation);
    if (fault?.kind === 'status')
      return respond(res, check, serviceError(fault.status, '000', STATUS_TEXT[fault.status] ?? `HTTP ${fault.status}`, 'internal'));
    let answer: Answer;
    const stored = key ? answers.get(key) : undefined;
    const problem = disputeRequestProblem(operation, body);
    const merchantAccount = (body as { merchantAccountCode?: unknown } | undefined)?.merchantAccountCode;
    if (stored) answer = stored;
    else if (problem) answer = serviceError(422, '702', `Structure ${problem}`, 'validation');
    else if (typeof merchantAccount !== 'string' || !merchantAccounts.has(merchantAccount))
      answer = serviceError(403, '901', 'Invalid Merchant Account', 'security');
    else if (fault?.kind === 'decline') answer = serviceError(422, fault.code, 'Refused (injected)', 'validation');
    else {
      answer = await disputes.handle(operation, body as Json);
      if (key) answers.set(key, { ...answer, path: name });
    }
    faults.deliver(fault, req, () => respond(res, check, answer, key));
  }

  /** The card networks' updater found new details for a stored card: its next charge uses and reports them. */
  function updateStoredCard(storedPaymentMethodId: string, update: NonNullable<StoredCard['update']>): void {
    const card = storedCards.get(storedPaymentMethodId);
    if (!card) throw new ControlError(`no stored card ${storedPaymentMethodId}`);
    card.update = update;
  }

  /** The test's controls (`/_fake/…`), JSON in and out: what FakeServer's methods do, over HTTP. */
  function control(res: ServerResponse, method: string | undefined, pathname: string, body: unknown) {
    const input = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const json = (status: number, payload: Json) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const close = /^\/_fake\/disputes\/([^/]+)\/close$/.exec(pathname);
    const fail = /^\/_fake\/refunds\/([^/]+)\/fail$/.exec(pathname);
    const updating = /^\/_fake\/stored_cards\/([^/]+)\/update$/.exec(pathname);
    try {
      if (method !== 'POST') return json(405, { error: 'POST only' });
      if (pathname === '/_fake/webhooks') {
        if (typeof input.url !== 'string' || !URL.canParse(input.url)) return json(400, { error: 'url is required' });
        notifications.register(input.url, typeof input.secret === 'string' ? input.secret : undefined);
        return json(200, { url: input.url });
      }
      if (pathname === '/_fake/disputes') {
        if (typeof input.reference !== 'string') return json(400, { error: 'reference is required' });
        return json(200, { id: openDispute(input.reference, typeof input.reason === 'string' ? input.reason : undefined) });
      }
      if (close) {
        if (input.outcome !== 'won' && input.outcome !== 'lost') return json(400, { error: 'outcome is won or lost' });
        closeDispute(decodeURIComponent(close[1]!), input.outcome);
        return json(200, { id: decodeURIComponent(close[1]!), outcome: input.outcome });
      }
      if (fail) {
        failRefund(decodeURIComponent(fail[1]!));
        return json(200, { id: decodeURIComponent(fail[1]!) });
      }
      if (updating) {
        const [exp_month, exp_year] = [Number(input.exp_month), Number(input.exp_year)];
        if (!Number.isInteger(exp_month) || !Number.isInteger(exp_year)) return json(400, { error: 'exp_month and exp_year are required numbers' });
        const number = typeof input.number === 'string' ? input.number : undefined;
        updateStoredCard(decodeURIComponent(updating[1]!), { exp_month, exp_year, ...(number ? { number } : {}) });
        return json(200, { id: decodeURIComponent(updating[1]!) });
      }
      if (pathname === '/_fake/payouts') {
        const read = payoutFaultsOf(input);
        if ('problem' in read) return json(400, { error: read.problem });
        const merchantAccount = typeof input.merchant_account === 'string' ? input.merchant_account : undefined;
        return json(200, payOut(read.faults, merchantAccount));
      }
      return json(404, { error: `no control ${pathname}` });
    } catch (error) {
      if (error instanceof ControlError) return json(400, { error: error.message });
      throw error;
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      contractViolations.push(`fake error: ${(error as Error).message}`);
      if (!res.headersSent) respond(res, undefined, serviceError(500, '000', (error as Error).message, 'internal'));
    });
  });
  const port = await listen(server, options.port);
  origin = `http://127.0.0.1:${port}`;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    contractViolations,
    notifications,
    openDispute,
    closeDispute,
    failRefund,
    updateStoredCard,
    payOut,
    backdate: (ms) => {
      for (const hold of holds.values()) if (hold.capturedAt !== undefined) hold.capturedAt -= ms;
      for (const refund of refunds.values()) Object.assign(refund, { at: refund.at - ms, failedAt: refund.failedAt && refund.failedAt - ms });
      disputes.backdate(ms);
    },
    addMerchantAccount: (merchantAccount) => void apiKeys.get(ADYEN_FAKE_API_KEY)!.add(merchantAccount),
    holdsStoredCard: (storedPaymentMethodId) => storedCards.has(storedPaymentMethodId),
    disputes: () => disputes.list(),
    inject: (operation, fault, times) => faults.inject(operation, fault, times),
    clearFaults: () => faults.clear(),
    holds: () =>
      [...holds.values()].map(({ reference, idempotencyKey, amount, currency, state, captured, refunded }) => ({
        reference,
        idempotencyKey,
        amount,
        currency,
        state,
        captured,
        refunded,
      })),
    close: async () => {
      faults.dropHeldAnswers();
      notifications.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
