import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import {
  type DocumentNode,
  execute,
  type ExecutionResult,
  type FieldNode,
  GraphQLError,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
  parse,
  validate,
} from 'graphql';
import type { BraintreeCredentials } from '../../../../shared/providers/braintree/index.ts';
import { Faults } from '../faults.ts';
import { listen } from '../listen.ts';
import type { FakeFault, FakeOperation, FakeRequest, FakeServer } from '../types.ts';
import { type CallContext, BraintreeBook, type FakeMerchant } from './book.ts';
import { BraintreeNotifications } from './notifications.ts';
import { BraintreePayouts } from './payouts.ts';
import { braintreeSchema } from './contract.ts';
import { type PayoutFaults, payoutFaultsOf } from '../payout-faults.ts';

/**
 * A local Braintree GraphQL gateway for tests and the local runtime: POST /graphql with Basic auth and a
 * `Braintree-Version` header; every request is parsed, validated and executed against Braintree's published schema
 * (a query the real schema rejects is rejected here too), and answered with what that execution produces.
 */

/** Credentials the fake accepts (sandbox-looking, never real). */
export const FAKE_BRAINTREE_CREDENTIALS = {
  merchant_id: 'fakemerchant0001',
  public_key: 'fakepublickey4242',
  private_key: 'fakeprivatekey0123456789abcdef',
  merchant_account_ids: { USD: 'fake_usd', EUR: 'fake_eur', JPY: 'fake_jpy', KWD: 'fake_kwd' },
} as const satisfies BraintreeCredentials;

const FAKE_MERCHANTS: FakeMerchant[] = [
  {
    id: FAKE_BRAINTREE_CREDENTIALS.merchant_id,
    publicKey: FAKE_BRAINTREE_CREDENTIALS.public_key,
    privateKey: FAKE_BRAINTREE_CREDENTIALS.private_key,
    accounts: [
      { id: 'fake_usd', currency: 'USD', isDefault: true },
      { id: 'fake_eur', currency: 'EUR' },
      { id: 'fake_jpy', currency: 'JPY' },
      { id: 'fake_kwd', currency: 'KWD' },
      { id: 'fake_gbp_pending', currency: 'GBP', status: 'PENDING' },
    ],
  },
];

/** Which of our operations each root field serves, and whether injected faults and stalls apply to it. */
const ROOT_FIELDS: Readonly<Record<string, { operation: FakeOperation; faultable: boolean }>> = {
  ping: { operation: 'verify', faultable: true },
  viewer: { operation: 'verify', faultable: true },
  // Tokenizing is the first step of an authorization but moves no money: faults meet the authorization itself.
  tokenizeCreditCard: { operation: 'authorize', faultable: false },
  authorizePaymentMethod: { operation: 'authorize', faultable: true },
  authorizeCreditCard: { operation: 'authorize', faultable: true },
  search: { operation: 'lookup', faultable: true },
  node: { operation: 'lookup', faultable: true },
  captureTransaction: { operation: 'capture', faultable: true },
  // Braintree has one reversal (void before settlement, refund after): the fake names it `reverse`; a fault injected
  // for `void` meets it too.
  reverseTransaction: { operation: 'reverse', faultable: true },
  refundTransaction: { operation: 'refund', faultable: true },
  createDisputeTextEvidence: { operation: 'dispute_evidence', faultable: true },
  finalizeDispute: { operation: 'dispute_evidence', faultable: false },
  acceptDispute: { operation: 'dispute_accept', faultable: true },
  deletePaymentMethodFromVault: { operation: 'remove_token', faultable: true },
  report: { operation: 'payouts', faultable: true },
};

/** `node` reads named for what they are for: the changes of a payment, a dispute (else a look-up before an operation). */
const STATUS_READS = new Set(['TransactionChanges', 'DisputeById']);
/** `search` reads of a reconciliation run (shared/providers/braintree/payout-queries.ts). */
const PAYOUT_READS = new Set(['SettledTransactions', 'SettledRefunds', 'ReceivedDisputes']);

/** A request as the Braintree fake records it: the shared shape plus the GraphQL root field and what was refused. */
export interface BraintreeFakeRequest extends FakeRequest {
  /** the root field of the request's operation (`authorizePaymentMethod`, `search`, …) */
  field?: string;
  /** the errors of a request refused before execution (authentication, version, schema validation) */
  refused?: string[];
}

/** A call held before it is carried out, until the test releases it. */
export interface Stall {
  /** resolves when the held call has arrived at the fake */
  readonly arrived: Promise<void>;
  /** lets the call go on; resolves once it has been carried out */
  release(): Promise<void>;
}

export interface BraintreeFake extends FakeServer {
  readonly requests: BraintreeFakeRequest[];
  /**
   * the fake's books (e.g. `settleCaptures = false` / `settleRefunds = false` keep captures / refunds unsettled,
   * `settle(id)` runs the batch for one, `declineSettlement(id)` has the processor decline a capture)
   */
  readonly gateway: BraintreeBook;
  /** the next call of `operation` waits before being carried out until the test releases it */
  stall(operation: FakeOperation): Stall;
  /**
   * Pays out what settled (`POST /_fake/payouts {merchant_account?, …faults}`; every merchant account by default):
   * disburses it and publishes each account's payment-level fee report of the day (payouts.ts).
   */
  payOut(
    faults?: PayoutFaults,
    merchantAccount?: string,
  ): { payouts: Array<{ merchantAccount: string; day: string; currency: string; amount: number }> };
  /**
   * Rewrites the fee report links `report.paymentLevelFees` answers (a link elsewhere, or through
   * `/reports/moved/<token>.csv`, which redirects to the report); `undefined` restores them.
   */
  linkReports(rewrite?: (link: string) => string): void;
}

interface PendingStall {
  arrived: () => void;
  gate: Promise<void>;
  carriedOut: () => void;
}

export async function startBraintreeFake(options: { port?: number; notificationDelayMs?: number } = {}): Promise<BraintreeFake> {
  const schema = braintreeSchema();
  const notifications = new BraintreeNotifications(options.notificationDelayMs);
  const gateway = new BraintreeBook(FAKE_MERCHANTS, (merchant, kind, subject) =>
    notifications.notify({ publicKey: merchant.publicKey, privateKey: merchant.privateKey }, kind, subject),
  );
  let origin = '';
  const payouts = new BraintreePayouts(gateway, () => origin);
  const rootValue = {
    ...gateway.root,
    search: () => ({
      ...gateway.root.search(),
      refunds: payouts.search.refunds,
      disputes: payouts.search.disputes,
      transactions: (args: { input: Record<string, unknown> }, ctx: CallContext) =>
        args.input.statusTransition
          ? payouts.search.settledTransactions(args, ctx)
          : gateway.root.search().transactions(args as Parameters<ReturnType<typeof gateway.root.search>['transactions']>[0], ctx),
    }),
    report: () => payouts.report,
  };
  const payOut = (faults: PayoutFaults = {}, merchantAccount?: string) => payouts.payOut(FAKE_MERCHANTS[0]!.id, faults, merchantAccount);
  const requests: BraintreeFakeRequest[] = [];
  const faults = new Faults();
  const stalls = new Map<FakeOperation, PendingStall[]>();
  const sockets = new Set<Socket>();

  const takeFault = (operation: FakeOperation, field: string): FakeFault | undefined =>
    faults.take(operation) ?? (field === 'reverseTransaction' ? faults.take('void') : undefined);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const requestId = randomUUID();
    const refuse = (errors: readonly GraphQLError[] | GraphQLError[], errorClass: string, record?: BraintreeFakeRequest, status = 200) => {
      if (record) record.refused = errors.map((e) => e.message);
      answer(status, { errors: errors.map((e) => ({ ...e.toJSON(), extensions: { errorClass, ...e.extensions } })), extensions: { requestId } });
    };
    const pathname = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method === 'POST' && pathname.startsWith('/_fake/')) {
      const controlled = control(pathname, raw);
      return answer(controlled.status, controlled.body);
    }
    const moved = /^\/reports\/moved\/([0-9a-f]+)\.csv$/.exec(pathname);
    if (req.method === 'GET' && moved) {
      requests.push({ operation: 'payouts', method: 'GET', path: pathname, body: undefined });
      res.writeHead(302, { location: `/reports/${moved[1]}.csv` });
      res.end();
      return;
    }
    const download = /^\/reports\/([0-9a-f]+)\.csv$/.exec(pathname);
    if (req.method === 'GET' && download) {
      requests.push({ operation: 'payouts', method: 'GET', path: pathname, body: undefined });
      const fault = faults.take('payouts');
      if (fault?.kind === 'status') return answer(fault.status, { error: `HTTP ${fault.status}` });
      const report = payouts.download(download[1]!);
      if (!report) return answer(404, { error: 'not found' });
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.end(report);
      return;
    }
    if (req.method !== 'POST' || pathname !== '/graphql') return answer(404, { error: 'not found' });

    let body: { query?: string; variables?: Record<string, unknown>; operationName?: string };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      return answer(400, {
        errors: [{ message: 'The request body is not JSON.', extensions: { errorClass: 'VALIDATION' } }],
        extensions: { requestId },
      });
    }
    let document: DocumentNode | undefined;
    let parseError: GraphQLError | undefined;
    try {
      document = parse(body.query ?? '');
    } catch (error) {
      parseError = error as GraphQLError;
    }
    const operationAst = document ? getOperationAST(document, body.operationName) : null;
    const field = operationAst ? rootField(operationAst) : undefined;
    const name = operationAst?.name?.value ?? '';
    const route =
      field === 'node' && STATUS_READS.has(name)
        ? { operation: 'status' as const, faultable: true }
        : field === 'search' && PAYOUT_READS.has(name)
          ? { operation: 'payouts' as const, faultable: true }
          : field
            ? ROOT_FIELDS[field]
            : undefined;
    const record: BraintreeFakeRequest = {
      operation: route?.operation ?? 'verify',
      method: req.method,
      path: '/graphql',
      body: redact(body),
      ...(field ? { field } : {}),
    };
    const key = keyOf(field, body.variables);
    if (key) record.idempotencyKey = key;
    requests.push(record);

    // An injected fault meets the call before Braintree looks at it (a load balancer's 5xx, a rate limit).
    const fault = route?.faultable ? takeFault(route.operation, field!) : undefined;
    if (fault?.kind === 'status') {
      const errorClass = fault.status === 429 ? 'RESOURCE_LIMIT' : fault.status === 503 ? 'SERVICE_AVAILABILITY' : 'INTERNAL';
      return answer(fault.status, { errors: [{ message: `HTTP ${fault.status}`, extensions: { errorClass } }], extensions: { requestId } });
    }

    const merchant = authenticate(gateway, req.headers.authorization);
    if (!merchant) return refuse([new GraphQLError('Authentication credentials are invalid.')], 'AUTHENTICATION', record);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(String(req.headers['braintree-version'] ?? ''))) {
      return refuse([new GraphQLError('A Braintree-Version header (YYYY-MM-DD) is required.')], 'UNSUPPORTED_CLIENT', record);
    }
    if (!document) return refuse([parseError!], 'VALIDATION', record);
    const invalid = validate(schema, document);
    if (invalid.length > 0) return refuse(invalid, 'VALIDATION', record);
    if (!route) return refuse([new GraphQLError(`The Braintree fake does not implement ${field ?? 'this operation'}.`)], 'VALIDATION', record);

    if (route.faultable) {
      const stall = stalls.get(route.operation)?.shift();
      if (stall) {
        stall.arrived();
        await stall.gate;
      }
      const context: CallContext = { merchant, ...(fault?.kind === 'decline' && route.operation === 'authorize' ? { decline: fault.code } : {}) };
      const result =
        fault?.kind === 'decline' && route.operation !== 'authorize'
          ? { errors: [new GraphQLError('Declined by the processor.', { extensions: { errorClass: 'VALIDATION', legacyCode: fault.code } })] }
          : await run(document, body, context);
      if (!record.idempotencyKey && context.idempotencyKey) record.idempotencyKey = context.idempotencyKey;
      stall?.carriedOut();
      const payload = { ...format(result), extensions: { requestId } };
      return faults.deliver(fault, req, () => answer(200, payload));
    }
    const context: CallContext = { merchant };
    const result = await run(document, body, context);
    if (!record.idempotencyKey && context.idempotencyKey) record.idempotencyKey = context.idempotencyKey;
    answer(200, { ...format(result), extensions: { requestId } });
  }

  async function run(document: DocumentNode, body: { variables?: Record<string, unknown>; operationName?: string }, context: CallContext) {
    return (await execute({
      schema,
      document,
      rootValue,
      contextValue: context,
      variableValues: body.variables ?? {},
      operationName: body.operationName ?? null,
    })) as ExecutionResult;
  }

  /** The control endpoints (`/_fake/…`, JSON in and out): how `npm start` users and the test helper drive the fake. */
  function control(pathname: string, raw: string): { status: number; body: unknown } {
    let input: Record<string, unknown>;
    try {
      input = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return { status: 400, body: { error: 'the body is not JSON' } };
    }
    const text = (name: string) => (typeof input[name] === 'string' ? (input[name] as string) : undefined);
    try {
      if (pathname === '/_fake/payouts') {
        const read = payoutFaultsOf(input);
        if ('problem' in read) return { status: 400, body: { error: read.problem } };
        return { status: 200, body: payOut(read.faults, text('merchant_account')) };
      }
      if (pathname === '/_fake/webhooks') {
        const url = text('url');
        if (!url) return { status: 400, body: { error: 'url is required' } };
        notifications.register(url);
        return { status: 200, body: { url } };
      }
      if (pathname === '/_fake/disputes') {
        const reference = text('reference');
        if (!reference) return { status: 400, body: { error: 'reference is required' } };
        return { status: 200, body: { id: gateway.openDispute(reference, text('reason')) } };
      }
      const close = /^\/_fake\/disputes\/([^/]+)\/close$/.exec(pathname);
      if (close) {
        const outcome = text('outcome');
        if (outcome !== 'won' && outcome !== 'lost') return { status: 400, body: { error: 'outcome must be won or lost' } };
        gateway.closeDispute(decodeURIComponent(close[1]!), outcome);
        return { status: 200, body: { id: decodeURIComponent(close[1]!), status: outcome.toUpperCase() } };
      }
      const fail = /^\/_fake\/refunds\/([^/]+)\/fail$/.exec(pathname);
      if (fail) {
        gateway.failRefund(decodeURIComponent(fail[1]!));
        return { status: 200, body: { id: decodeURIComponent(fail[1]!), status: 'SETTLEMENT_DECLINED' } };
      }
      return { status: 404, body: { error: 'not found' } };
    } catch (error) {
      return { status: 400, body: { error: (error as Error).message } };
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: [{ message: (error as Error).message, extensions: { errorClass: 'INTERNAL' } }] }));
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listen(server, options.port);
  origin = `http://127.0.0.1:${port}`;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    gateway,
    inject: (operation, fault, times) => faults.inject(operation, fault, times),
    clearFaults: () => faults.clear(),
    stall(operation) {
      let arrived!: () => void;
      let open!: () => void;
      let carriedOut!: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      const gate = new Promise<void>((resolve) => (open = resolve));
      const done = new Promise<void>((resolve) => (carriedOut = resolve));
      stalls.set(operation, [...(stalls.get(operation) ?? []), { arrived, gate, carriedOut }]);
      return {
        arrived: arrival,
        release: () => {
          open();
          return done;
        },
      };
    },
    holds: () => gateway.holds(),
    notifications,
    openDispute: (reference, reason) => gateway.openDispute(reference, reason),
    closeDispute: (id, outcome) => gateway.closeDispute(id, outcome),
    failRefund: (id) => gateway.failRefund(id),
    disputes: () => gateway.fakeDisputes(),
    payOut,
    linkReports: (rewrite) => void (payouts.linkReport = rewrite ?? ((link) => link)),
    async close() {
      faults.dropHeldAnswers();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function authenticate(gateway: BraintreeBook, header: string | undefined): FakeMerchant | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? gateway.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1)) : undefined;
}

function rootField(operation: OperationDefinitionNode): string | undefined {
  const first = operation.selectionSet.selections.find((s): s is FieldNode => s.kind === Kind.FIELD);
  return first?.name.value;
}

/** The idempotency key a call carries in its variables: the transaction's or refund's orderId, else the clientMutationId. */
function keyOf(field: string | undefined, variables: Record<string, unknown> | undefined): string | undefined {
  const input = variables?.input as Record<string, Record<string, unknown> | string | undefined> | undefined;
  const nested = (name: string) => (typeof input?.[name] === 'object' ? (input[name] as Record<string, unknown>).orderId : undefined);
  if (field === 'tokenizeCreditCard') return undefined;
  if (field === 'search') return typeof variables?.orderId === 'string' ? variables.orderId : undefined;
  const key = nested('transaction') ?? nested('refund') ?? input?.clientMutationId;
  return typeof key === 'string' ? key : undefined;
}

/** The recorded body keeps no card number or CVV (the last four digits only). */
function redact(body: { query?: string; variables?: Record<string, unknown>; operationName?: string }): unknown {
  const card = (body.variables?.input as { creditCard?: Record<string, unknown> } | undefined)?.creditCard;
  if (!card) return body;
  const number = typeof card.number === 'string' ? `…${card.number.slice(-4)}` : card.number;
  const input = { ...(body.variables!.input as object), creditCard: { ...card, number, ...(card.cvv ? { cvv: '***' } : {}) } };
  return { ...body, variables: { ...body.variables, input } };
}

/** An execution result as JSON, every error with its Braintree `errorClass`. */
function format(result: ExecutionResult): Record<string, unknown> {
  // Without data the request itself was refused (variables that do not coerce, e.g. a malformed Amount).
  const errorClass = result.data === undefined ? 'VALIDATION' : 'INTERNAL';
  const errors = result.errors?.map((e) => {
    const json = e.toJSON();
    return { ...json, extensions: { errorClass, ...json.extensions } };
  });
  return { ...(result.data !== undefined ? { data: result.data } : {}), ...(errors?.length ? { errors } : {}) };
}

// Run on its own (`npx tsx infra/local/fakes/braintree/server.ts`, PORT to choose the port): for the local runtime and manual tries.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fake = await startBraintreeFake({ port: Number(process.env.PORT ?? 12113) });
  console.log(`Braintree fake on ${fake.url}/graphql: BRAINTREE_GATEWAY_URL=${fake.url}, credentials ${JSON.stringify(FAKE_BRAINTREE_CREDENTIALS)}`);
}
