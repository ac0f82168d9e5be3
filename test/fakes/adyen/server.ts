/**
 * A local Adyen Checkout v72 (node:http) for connector tests and the local runtime: the calls our connector makes
 * (POST /v72/paymentMethods, /payments, /cancels, /payments/{psp}/captures|cancels|refunds), each request body checked
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
 * refuses one its books do not allow at once, with a 422, so a refused modification reaches the connector.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Faults } from '../faults.ts';
import { listen } from '../listen.ts';
import type { FakeHold, FakeOperation, FakeRequest, FakeServer } from '../types.ts';
import { type AdyenRefusal, behaviourOf, brandOf, LATER_CHARGE_REFUSAL, refusalOfCode } from './cards.ts';
import { CONTRACT_PATHS, type ContractPath, requestProblem, responseProblem } from './contract.ts';

/** An API key the fake knows, and the merchant account it may act for (Adyen: a web service user's key). */
export const ADYEN_FAKE_API_KEY = 'AQEyhmfxK4fake-adyen-api-key-for-tests-0001';
export const ADYEN_FAKE_MERCHANT_ACCOUNT = 'OrchestratorTestECOM';
/** Credentials as a merchant enters them for an Adyen connector, valid at the fake. */
export const ADYEN_FAKE_CREDENTIALS = { api_key: ADYEN_FAKE_API_KEY, merchant_account: ADYEN_FAKE_MERCHANT_ACCOUNT } as const;

const API_KEYS: ReadonlyMap<string, ReadonlySet<string>> = new Map([[ADYEN_FAKE_API_KEY, new Set([ADYEN_FAKE_MERCHANT_ACCOUNT])]]);
const VERSION_PREFIX = '/v72';

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
}
interface StoredCard {
  id: string;
  merchantAccount: string;
  shopperReference: string;
  number: string;
  laterChargesDecline: boolean;
}

/** The Adyen fake: the shared FakeServer, plus every answer it gave that broke the contract (should stay empty). */
export interface AdyenFakeServer extends FakeServer {
  readonly contractViolations: string[];
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
  if (path === '/cancels') return { path, operation: 'reverse' };
  const modification = /^\/payments\/([^/]+)\/(captures|cancels|refunds)$/.exec(path);
  if (!modification) return undefined;
  const [, psp, kind] = modification as unknown as [string, string, 'captures' | 'cancels' | 'refunds'];
  const operation = ({ captures: 'capture', cancels: 'void', refunds: 'refund' } as const)[kind];
  return { path: `/payments/{paymentPspReference}/${kind}`, operation, psp: decodeURIComponent(psp) };
}

export async function startAdyenFake(options: { port?: number } = {}): Promise<AdyenFakeServer> {
  // Compile the contract's validators now (PaymentRequest takes about a second), not during a test's first call.
  for (const path of CONTRACT_PATHS) requestProblem(path, {});
  const requests: FakeRequest[] = [];
  const contractViolations: string[] = [];
  /** the answer given under each Idempotency-Key, and the path it was given on */
  const answers = new Map<string, Answer & { path: ContractPath }>();
  const holds = new Map<string, Hold>();
  /** `merchantAccount \n reference` of every technical cancel: an authorization landing later is cancelled too */
  const cancelledReferences = new Set<string>();
  const storedCards = new Map<string, StoredCard>();
  const faults = new Faults();

  const holdFor = (merchantAccount: string, psp: string) => {
    const hold = holds.get(psp);
    return hold?.merchantAccount === merchantAccount ? hold : undefined;
  };

  function authorize(body: Json, key: string | undefined, decline?: string): Answer {
    const request = body as {
      merchantAccount: string;
      reference: string;
      amount: { currency: string; value: number };
      paymentMethod: { number?: string; storedPaymentMethodId?: string };
      additionalData?: Record<string, string>;
      metadata?: Record<string, string>;
      shopperReference?: string;
      shopperInteraction?: string;
      storePaymentMethod?: boolean;
    };
    const { merchantAccount, reference, amount, paymentMethod } = request;
    const pspReference = newReference();
    const refused = (refusal: AdyenRefusal): Answer => ({
      status: 200,
      body: {
        pspReference,
        resultCode: 'Refused',
        merchantReference: reference,
        refusalReason: refusal.refusalReason,
        refusalReasonCode: refusal.refusalReasonCode,
        ...(refusal.refusalReasonRaw ? { additionalData: { refusalReasonRaw: refusal.refusalReasonRaw } } : {}),
      },
    });
    if (decline) return refused(refusalOfCode(decline));
    if ((paymentMethod.storedPaymentMethodId || request.storePaymentMethod) && !request.shopperReference)
      return serviceError(422, '000', 'Recurring payments require a shopperReference', 'validation');

    let number: string;
    let tokenization: Record<string, string> = {};
    if (paymentMethod.storedPaymentMethodId) {
      const card = storedCards.get(paymentMethod.storedPaymentMethodId);
      if (!card || card.merchantAccount !== merchantAccount || card.shopperReference !== request.shopperReference)
        return serviceError(422, '803', 'PaymentDetail not found', 'validation');
      if (card.laterChargesDecline && request.shopperInteraction === 'ContAuth') return refused(LATER_CHARGE_REFUSAL);
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
      if (request.storePaymentMethod) {
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
    } else {
      return serviceError(422, '000', 'paymentDetails not supplied', 'validation');
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
        additionalData: { authCode: String(100000 + (randomBytes(3).readUIntBE(0, 3) % 900000)), refusalReasonRaw: 'AUTHORISED', ...tokenization },
      },
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
      for (const hold of holds.values())
        if (hold.merchantAccount === merchantAccount && hold.merchantReference === paymentReference && hold.state === 'authorized')
          hold.state = 'voided';
      return { status: 201, body: { ...echo, paymentReference, status: 'received' } };
    }
    const hold = holdFor(merchantAccount, route.psp!);
    if (!hold) return REFUSED.unknownPayment();
    const modified = { ...echo, paymentPspReference: hold.reference, status: 'received' };
    if (route.operation === 'void') {
      if (hold.state !== 'authorized') return REFUSED.state(hold.state);
      hold.state = 'voided';
      return { status: 201, body: modified };
    }
    const amount = request.amount!;
    if (amount.currency !== hold.currency) return REFUSED.currency();
    if (route.operation === 'capture') {
      if (hold.state !== 'authorized') return REFUSED.state(hold.state);
      if (amount.value <= 0 || amount.value > hold.amount) return REFUSED.amount();
      Object.assign(hold, { state: 'captured', captured: amount.value });
      return { status: 201, body: { ...modified, amount } };
    }
    if (hold.state !== 'captured') return REFUSED.state(hold.state);
    if (amount.value <= 0 || hold.refunded + amount.value > hold.captured) return REFUSED.amount();
    hold.refunded += amount.value;
    return { status: 201, body: { ...modified, amount } };
  }

  function respond(res: ServerResponse, route: Route | undefined, answer: Answer, key?: string) {
    if (res.destroyed) return;
    if (route) {
      const problem = responseProblem(route.path, answer.status, answer.body);
      if (problem) {
        contractViolations.push(`${route.path} ${answer.status}: ${problem}`);
        answer = serviceError(500, '000', `The Adyen fake's answer breaks the contract: ${problem}`, 'internal');
      }
    }
    res.writeHead(answer.status, { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) });
    res.end(JSON.stringify(answer.body));
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const { pathname } = new URL(req.url ?? '/', 'http://adyen.fake');
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
    // A /payments call under a key already answered there is how the connector looks an authorization up.
    if (!route) {
      // Not a call our connector makes: worth failing the test that caused it.
      contractViolations.push(`${req.method} ${pathname} is not a call the fake serves`);
      return respond(res, undefined, serviceError(404, '000', 'Not Found', 'validation'));
    }
    const operation = route.operation === 'authorize' && stored?.path === '/payments' ? 'lookup' : route.operation;
    requests.push({ operation, method: req.method ?? '', path: pathname, idempotencyKey: key, body });
    const apiKey = req.headers['x-api-key'];
    const merchantAccounts = typeof apiKey === 'string' ? API_KEYS.get(apiKey) : undefined;
    if (!merchantAccounts) return respond(res, route, serviceError(401, '000', 'HTTP Status Response - Unauthorized', 'security'));
    const fault = faults.take(operation);
    if (fault?.kind === 'status') {
      const text = STATUS_TEXT[fault.status] ?? `HTTP ${fault.status}`;
      return respond(res, route, serviceError(fault.status, '000', text, fault.status === 429 ? 'validation' : 'internal'));
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
      else if (typeof merchantAccount !== 'string' || !merchantAccounts.has(merchantAccount))
        answer = serviceError(403, '901', 'Invalid Merchant Account', 'security');
      else {
        const decline = fault?.kind === 'decline' ? fault.code : undefined;
        answer = route.operation === 'authorize' ? authorize(body as Json, key, decline) : modify(route, body as Json, decline);
        // Carried out: the answer is the key's from now on (Adyen keeps it at least 31 days).
        if (key) answers.set(key, { ...answer, path: route.path });
      }
    }

    faults.deliver(fault, req, () => respond(res, route, answer, key));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      contractViolations.push(`fake error: ${(error as Error).message}`);
      if (!res.headersSent) respond(res, undefined, serviceError(500, '000', (error as Error).message, 'internal'));
    });
  });
  const port = await listen(server, options.port);

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    contractViolations,
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
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
