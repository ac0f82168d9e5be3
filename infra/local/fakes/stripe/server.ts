import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Faults } from '../faults.ts';
import { listen } from '../listen.ts';
import type { FakeDispute, FakeHold, FakeOperation, FakeRequest, FakeServer } from '../types.ts';
import { type Answer, FakeControlError } from './answers.ts';
import { StripeBook } from './book.ts';
import { control } from './control.ts';
import { servePage } from './three-d-secure.ts';
import { expanded, expansionProblem, expansionsOf } from './expand.ts';
import { type Form, parseForm, text } from './form.ts';
import { StripeNotifier } from './notifications.ts';
import type { PayoutFaults } from './payouts.ts';
import { cardError, errorBody, type StripeObject, statusError } from './objects.ts';

/** Keys the fake accepts (one account per key; `sk_live_` answers with `livemode: true`). */
export const STRIPE_FAKE_SECRET_KEY = 'sk_test_fake_51Fake4eC39HqLyjWDarjtT1zdp7dc';
export const STRIPE_FAKE_LIVE_KEY = 'sk_live_fake_51Fake9aF27GqKyiVCbrisS0ycp6cb';
/** The endpoint secret the fake signs webhooks with unless one is registered with the endpoint. */
export const STRIPE_FAKE_WEBHOOK_SECRET = 'whsec_fake_3ZkQ9vL2xW7pN4rT8yB1cD6fH0jM5sA';
/** The test account's credentials as `POST /api/connectors` takes them: its key and its webhook secret. */
export const STRIPE_FAKE_CREDENTIALS = { secret_key: STRIPE_FAKE_SECRET_KEY, webhook_secret: STRIPE_FAKE_WEBHOOK_SECRET } as const;
/** Any other key of this shape is an account of its own (made on its first call), e.g. one per test. */
const FAKE_ACCOUNT_KEY = /^sk_(test|live)_fake_[0-9A-Za-z]{8,}$/;
/** Credentials of a fresh account of the fake: its own books and payouts, shared with nobody. */
export const stripeFakeAccount = () => ({
  secret_key: `sk_test_fake_${randomBytes(12).toString('hex')}`,
  webhook_secret: STRIPE_FAKE_WEBHOOK_SECRET,
});

export interface StripeFakeRequest extends FakeRequest {
  /** the `Stripe-Version` header the call carried */
  stripeVersion?: string;
}

export interface StripeFake extends FakeServer {
  readonly requests: StripeFakeRequest[];
  /** Moves every object's creation time back by `ms`, as if made that long ago. */
  backdate(ms: number): void;
  /** true: refunds are created `pending` and wait for `settleRefund` or `failRefund`; false (default): they succeed at once */
  refundsPending(on: boolean): void;
  /** A pending refund goes through (`refund.updated`, `charge.refunded`). */
  settleRefund(refundReference: string): void;
  /** The Customer a PaymentMethod is attached to (null: detached, no longer chargeable), or undefined when unknown. */
  attachedCustomer(paymentMethodId: string): string | null | undefined;
  /** Stripe's card updater changes a kept PaymentMethod (`payment_method.automatically_updated`). */
  updateCard(paymentMethodId: string, update: { exp_month: number; exp_year: number; number?: string }): unknown;
  /**
   * Pays out what the account of `secretKey` (default: the test account) captured, refunded and lost in disputes since
   * its last payout: one payout per currency, with Stripe's fees per line, getting wrong what `faults` says
   * (`POST /_fake/payouts`).
   */
  payOut(faults?: PayoutFaults, secretKey?: string): Array<{ id: string; amount: number; currency: string }>;
}

interface Route {
  operation: FakeOperation;
  /** a PaymentIntent create: an injected decline is carried out as the card's answer */
  createsIntent?: boolean;
  run(book: StripeBook, form: Form, context: { livemode: boolean; idempotencyKey?: string; decline?: string }): Answer;
}

/** The calls the connector makes, by method and path, named as the fakes name operations. */
function routeOf(method: string, path: string, form: Form): Route | undefined {
  const intent = /^\/v1\/payment_intents\/(pi_\w+)(\/capture|\/cancel)?$/.exec(path);
  const refund = /^\/v1\/refunds\/(re_\w+)$/.exec(path);
  const dispute = /^\/v1\/disputes\/(dp_\w+)(\/close)?$/.exec(path);
  const detach = /^\/v1\/payment_methods\/(pm_\w+)\/detach$/.exec(path);
  if (method === 'GET' && path === '/v1/balance') return { operation: 'verify', run: (book, _f, c) => book.balance(c.livemode) };
  if (method === 'POST' && path === '/v1/payment_intents')
    // A PaymentIntent not confirmed at once authorizes nothing: the connector makes one only to close a key (reverse).
    return {
      operation: text(form, 'confirm') === 'true' ? 'authorize' : 'reverse',
      createsIntent: true,
      run: (book, f, c) => book.createIntent(f, c),
    };
  if (method === 'GET' && path === '/v1/payment_intents') return { operation: 'lookup', run: (book, f) => book.listIntents(f) };
  if (method === 'GET' && path === '/v1/payment_intents/search') return { operation: 'lookup', run: (book, f) => book.searchIntents(f) };
  if (method === 'GET' && intent && !intent[2]) return { operation: 'status', run: (book) => book.retrieveIntent(intent[1]!) };
  if (method === 'POST' && intent?.[2] === '/capture') return { operation: 'capture', run: (book, f) => book.captureIntent(intent[1]!, f) };
  if (method === 'POST' && intent?.[2] === '/cancel')
    return { operation: text(form, 'cancellation_reason') === 'abandoned' ? 'reverse' : 'void', run: (book, f) => book.cancelIntent(intent[1]!, f) };
  if (method === 'POST' && path === '/v1/refunds') return { operation: 'refund', run: (book, f) => book.refunds.create(f) };
  if (method === 'GET' && path === '/v1/refunds') return { operation: 'status', run: (book, f) => book.refunds.list(f) };
  if (method === 'GET' && refund) return { operation: 'status', run: (book) => book.refunds.retrieve(refund[1]!) };
  if (method === 'GET' && path === '/v1/payouts') return { operation: 'payouts', run: (book, f) => book.payouts.list(f) };
  if (method === 'GET' && path === '/v1/balance_transactions')
    return { operation: 'payouts', run: (book, f) => book.payouts.transactionsOf(f, (id) => book.sourceObject(id)) };
  if (method === 'GET' && path === '/v1/disputes') return { operation: 'status', run: (book, f) => book.disputes.list(f) };
  if (method === 'GET' && dispute && !dispute[2]) return { operation: 'status', run: (book) => book.disputes.retrieve(dispute[1]!) };
  if (method === 'POST' && dispute && !dispute[2]) return { operation: 'dispute_evidence', run: (book, f) => book.disputes.update(dispute[1]!, f) };
  if (method === 'POST' && dispute?.[2]) return { operation: 'dispute_accept', run: (book) => book.disputes.close(dispute[1]!) };
  // Keeping a card for a customer is part of its authorization.
  if (method === 'POST' && path === '/v1/customers') return { operation: 'authorize', run: (book, f, c) => book.createCustomer(f, c.livemode) };
  if (method === 'GET' && path === '/v1/customers') return { operation: 'authorize', run: (book, f) => book.listCustomers(f) };
  if (method === 'POST' && detach) return { operation: 'remove_token', run: (book) => book.detachMethod(detach[1]!) };
  return undefined;
}

/** Stripe's idempotency: a key's first answer is kept (per account) and replayed for the same endpoint and parameters. */
interface Saved {
  endpoint: string;
  params: string;
  answer: Answer;
}
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
const idempotencyError = (message: string): Answer => ({ status: 400, body: errorBody({ type: 'idempotency_error', message }), saved: false });

/**
 * A local Stripe: Stripe's form-encoded requests and JSON answers (shaped from Stripe's fixtures), Bearer keys,
 * Idempotency-Key replays, state (PaymentIntents, refunds, disputes, Customers), the sandbox's test cards and Stripe's
 * 3-D Secure ones (with the challenge page Stripe hosts, `three-d-secure.ts`), injected faults, and signed webhook events
 * for every change. `searchLagMs` is how long a PaymentIntent takes to become
 * searchable (Stripe: "less than a minute"); `notificationDelayMs` how long after a change its events are sent.
 */
export async function startStripeFake(options: { port?: number; searchLagMs?: number; notificationDelayMs?: number } = {}): Promise<StripeFake> {
  const notifier = new StripeNotifier(STRIPE_FAKE_WEBHOOK_SECRET, options.notificationDelayMs ?? 0);
  const bookFor = (key: string) => {
    const livemode = key.startsWith('sk_live_');
    return new StripeBook(
      options.searchLagMs ?? 60_000,
      (type, object) => notifier.emit(type, object, livemode),
      () => origin,
      livemode,
    );
  };
  const books = new Map<string, StripeBook>([STRIPE_FAKE_SECRET_KEY, STRIPE_FAKE_LIVE_KEY].map((key) => [key, bookFor(key)]));
  /** The account of a key: the two fixed ones, or one more per `sk_test_fake_…` key, so a test can have its own Stripe account. */
  const bookOf = (key: string) => {
    if (!books.has(key) && FAKE_ACCOUNT_KEY.test(key)) books.set(key, bookFor(key));
    return books.get(key);
  };
  const saved = new Map<string, Saved>();
  const requests: StripeFakeRequest[] = [];
  const faults = new Faults();
  /** the fake's own address, for the challenge pages it hosts (known once it listens) */
  let origin = '';

  const answer = (res: ServerResponse, { status, body }: Pick<Answer, 'status' | 'body'>, replayed = false) => {
    if (res.destroyed) return;
    res.writeHead(status, {
      'content-type': 'application/json',
      'request-id': `req_${randomBytes(7).toString('hex')}`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    });
    res.end(JSON.stringify(body));
  };

  function idempotent(account: string, endpoint: string, key: string | undefined, form: Form, run: () => Answer): Answer & { replayed?: boolean } {
    if (!key || !endpoint.startsWith('POST ')) return run();
    const params = canonical(form);
    const first = saved.get(`${account} ${key}`);
    if (first && first.endpoint !== endpoint)
      return idempotencyError(
        `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${first.endpoint}' vs '${endpoint}').`,
      );
    if (first && first.params !== params)
      return idempotencyError(
        `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
      );
    if (first) return { ...first.answer, replayed: true };
    const result = run();
    if (result.saved) saved.set(`${account} ${key}`, { endpoint, params, answer: result });
    return result;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://stripe.fake');
    const method = req.method ?? 'GET';
    if (url.pathname.startsWith('/_fake/')) return control(controls, method, url.pathname, Buffer.concat(chunks).toString('utf8'), res);
    // The shopper's browser at the 3-D Secure challenge (hooks.stripe.com at Stripe): no API key.
    if (url.pathname.startsWith('/3d_secure_2/'))
      return servePage((id) => [...books.values()].find((b) => b.challenge(id)), method, url, Buffer.concat(chunks).toString('utf8'), res);
    const form = parseForm(method === 'GET' ? url.search.slice(1) : Buffer.concat(chunks).toString('utf8'));
    const route = routeOf(method, url.pathname, form);
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    const stripeVersion = req.headers['stripe-version'] as string | undefined;
    requests.push({ operation: route?.operation ?? 'lookup', method, path: url.pathname, idempotencyKey, body: form, stripeVersion });
    if (stripeVersion) notifier.apiVersion = stripeVersion;

    const key = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const book = bookOf(key);
    if (!book) {
      const shown = key
        ? `Invalid API Key provided: ${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`
        : 'You did not provide an API key.';
      return answer(res, { status: 401, body: errorBody({ type: 'invalid_request_error', message: shown }) });
    }
    if (!route)
      return answer(res, {
        status: 404,
        body: errorBody({ type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${url.pathname}).` }),
      });

    const fault = faults.take(route.operation);
    if (fault?.kind === 'status') return answer(res, { status: fault.status, body: errorBody(statusError(fault.status)) });
    if (fault?.kind === 'decline' && !route.createsIntent) return answer(res, { status: 402, body: errorBody(cardError(fault.code)) });
    const decline = fault?.kind === 'decline' ? fault.code : undefined;
    const livemode = key.startsWith('sk_live_');
    const result = idempotent(
      key,
      `${method} ${url.pathname}`,
      idempotencyKey,
      form,
      () => expansionProblem(method, url.pathname, form) ?? route.run(book, form, { livemode, idempotencyKey, decline }),
    );
    const body = result.status === 200 ? expanded(result.body, expansionsOf(form), (id) => book.charge(id)) : result.body;
    faults.deliver(fault, req, () => answer(res, { status: result.status, body }, result.replayed));
  }

  /** The book holding `has`, for the control calls that name an object of either account. */
  const bookWith = (what: string, has: (book: StripeBook) => boolean) => {
    const book = [...books.values()].find(has);
    if (!book) throw new FakeControlError(`no ${what}`, 404);
    return book;
  };
  const controls = {
    register: (url: string, secret?: string) => notifier.register(url, secret),
    openDispute: (reference: string, reason?: string) =>
      bookWith(`payment ${reference}`, (b) => b.intent(reference) !== undefined).disputes.open(reference, reason),
    closeDispute: (id: string, outcome: 'won' | 'lost') => bookWith(`dispute ${id}`, (b) => b.disputes.has(id)).disputes.decide(id, outcome),
    failRefund: (id: string) => bookWith(`refund ${id}`, (b) => b.refunds.has(id)).refunds.fail(id),
    updateCard: (id: string, update: { exp_month: number; exp_year: number; number?: string }) =>
      bookWith(`payment_method ${id}`, (b) => b.hasMethod(id)).updateCard(id, update),
    payOut: (faults: PayoutFaults = {}, secretKey = STRIPE_FAKE_SECRET_KEY) => {
      const book = bookOf(secretKey);
      if (!book) throw new FakeControlError(`no account has the key ${secretKey.slice(0, 12)}…`, 404);
      book.payouts.assertSomething();
      return book.payouts.payOut(faults).map((p) => ({ id: String(p.id), amount: Number(p.amount), currency: String(p.currency) }));
    },
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => answer(res, { status: 500, body: errorBody({ type: 'api_error', message: String(error) }) }));
  });
  const port = await listen(server, options.port);
  origin = `http://127.0.0.1:${port}`;
  const every = () => [...books.values()].flatMap((book) => [...book.holds.values()]);

  return {
    url: origin,
    requests,
    inject: (operation, fault, times) => faults.inject(operation, fault, times),
    clearFaults: () => faults.clear(),
    holds: (): FakeHold[] => every().map((hold) => ({ ...hold })),
    backdate: (ms) => books.forEach((book) => book.backdate(ms)),
    notifications: notifier,
    ...controls,
    refundsPending: (on) => books.forEach((book) => (book.refunds.pending = on)),
    attachedCustomer: (id) => [...books.values()].find((b) => b.hasMethod(id))?.attachedCustomer(id),
    settleRefund: (id) => bookWith(`refund ${id}`, (b) => b.refunds.has(id)).refunds.settle(id),
    disputes: (): FakeDispute[] =>
      [...books.values()].flatMap((book) =>
        book.disputes
          .all()
          .reverse()
          .map((dispute) => disputeView(dispute, book)),
      ),
    async close() {
      notifier.stop();
      faults.dropHeldAnswers();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A dispute as the fake's tests read it: the evidence received by field name, and whether the merchant conceded. */
function disputeView(dispute: StripeObject, book: StripeBook): FakeDispute {
  const evidence = Object.entries(dispute.evidence as StripeObject).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return {
    id: String(dispute.id),
    paymentReference: String(dispute.payment_intent),
    amount: Number(dispute.amount),
    currency: String(dispute.currency),
    status: String(dispute.status),
    evidence: Object.fromEntries(evidence),
    accepted: book.disputes.accepted.has(String(dispute.id)),
  };
}

// `tsx infra/local/fakes/stripe/server.ts`: a fake Stripe for the local runtime (PORT, default 12111).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fake = await startStripeFake({ port: Number(process.env.PORT ?? 12111), notificationDelayMs: 3_000 });
  console.log(
    `Stripe fake on ${fake.url}: STRIPE_API_BASE_URL=${fake.url}, secret key ${STRIPE_FAKE_SECRET_KEY}, webhook secret ${STRIPE_FAKE_WEBHOOK_SECRET}`,
  );
}
