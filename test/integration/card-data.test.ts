import { createHash } from 'node:crypto';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// Reads the table's stream: a table of its own with one (the suite's shared table has none).
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('card-data', { stream: true }));
import { handler as connect } from '../../functions/connectors/create.ts';
import { handler as updateConnector } from '../../functions/connectors/update.ts';
import { config } from '../../shared/config.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { queueDefinitions } from '../../shared/queues.ts';
import { idempotencyKeys } from '../../shared/store/keys.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { CARDS, paymentBody, payments } from '../support/payments.ts';
import { streamEvents } from '../support/stream.ts';
import { inflateRawSync } from 'node:zlib';
import { unpack } from '../../shared/store/stored-form.ts';

// Every log level on, before the handlers' logger is created, so the scan sees everything they could log.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = process.env.LOG_LEVEL = 'DEBUG';
});

/** A key the Stripe fake refuses: a refused credential is not kept anywhere either. */
const REFUSED_STRIPE_KEY = 'sk_test_refused8c1d2e3f4a5b6c7d8e9f0a1b';

/** Distinctive CVCs, so that a hit can only be the CVC itself. */
const CVCS = ['8317', '7291', '6604'];
const NUMBERS = [CARDS.approved, CARDS.mastercard, CARDS.genericDecline, CARDS.processingError, CARDS.fraudulent, '4242424242424241'];

const captured: string[] = [];
const originalWrites = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
const originalConsole = { ...console };
const responses: string[] = [];

let fakes: ProviderFakes;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
});
afterAll(() => fakes.close());

beforeAll(() => {
  // Capture every log line the handlers write, whichever way they write it.
  const tap = (chunk: unknown) => void captured.push(String(chunk));
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => (
    tap(chunk),
    originalWrites.out(chunk as string, ...(rest as []))
  )) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => (
    tap(chunk),
    originalWrites.err(chunk as string, ...(rest as []))
  )) as typeof process.stderr.write;
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    console[method] = (...args: unknown[]) => {
      tap(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
      originalConsole[method](...args);
    };
  }
});
afterAll(() => {
  process.stdout.write = originalWrites.out;
  process.stderr.write = originalWrites.err;
  Object.assign(console, originalConsole);
});

describe('card data and provider credentials', () => {
  it('never reach a table item, a queued message, a log line or a response', async () => {
    // Prepare + Act: a run of payments through every path that touches a card
    const { apiKey, merchantId } = await newMerchant();
    const run = async (p: Promise<{ rawBody: string; body: { id?: string }; headers: Record<string, string> }>) => {
      const res = await p;
      responses.push(res.rawBody);
      return res;
    };
    const withCvc = (number: string, cvc: string, extra: Record<string, unknown> = {}) => {
      const body = paymentBody(extra, number);
      body.payment_method.card.cvc = cvc;
      return body;
    };
    const firstBody = withCvc(CARDS.approved, CVCS[0]!);
    const ok = await run(payments.create(apiKey, firstBody, { 'Idempotency-Key': 'card-data-1' }));
    const replay = await run(payments.create(apiKey, withCvc(CARDS.approved, CVCS[1]!), { 'Idempotency-Key': 'card-data-1' }));
    await run(payments.create(apiKey, withCvc(CARDS.mastercard, CVCS[1]!, { routing: 'round_robin' })));
    await run(payments.create(apiKey, withCvc(CARDS.genericDecline, CVCS[2]!)));
    await run(payments.create(apiKey, withCvc(CARDS.processingError, CVCS[0]!)));
    await run(payments.create(apiKey, withCvc(CARDS.fraudulent, CVCS[1]!)));
    await run(payments.create(apiKey, withCvc('4242424242424241', CVCS[2]!)));
    await run(payments.create(apiKey, withCvc(CARDS.approved, '12')));
    await run(payments.simulate(apiKey, { amount: 100, currency: 'usd', payment_method: { type: 'card', card: { number: CARDS.mastercard } } }));
    await run(payments.capture(apiKey, ok.body.id!));
    await run(payments.refund(apiKey, ok.body.id!, { amount: 100 }));
    await run(payments.list(apiKey, { limit: '100' }));
    // Provider accounts connected (one refused), used by payments, and given new credentials
    const connectors: Record<string, string> = {};
    for (const provider of ['stripe', 'adyen', 'braintree'] as const) {
      const body = { provider, credentials: fakes.credentials[provider] };
      const made = await run(invokeHttp(connect, apiEvent({ method: 'POST', path: '/api/connectors', headers: bearer(apiKey), body })));
      connectors[provider] = made.body.id!;
      await run(payments.create(apiKey, withCvc(CARDS.approved, CVCS[0]!, { routing: provider })));
    }
    const refused = { provider: 'stripe', credentials: { secret_key: REFUSED_STRIPE_KEY } };
    await run(invokeHttp(connect, apiEvent({ method: 'POST', path: '/api/connectors', headers: bearer(apiKey), body: refused })));
    const renewed = { credentials: fakes.credentials.braintree };
    await run(
      invokeHttp(
        updateConnector,
        apiEvent({ method: 'PUT', path: `/api/connectors/${connectors.braintree}`, headers: bearer(apiKey), body: renewed }),
      ),
    );
    const secrets = [
      fakes.credentials.stripe.secret_key,
      REFUSED_STRIPE_KEY,
      fakes.credentials.adyen.api_key,
      fakes.credentials.braintree.private_key,
      fakes.credentials.braintree.public_key,
    ];

    // The table stream's consumer puts the changes' events on the events queue (what a deployed stack does)
    await streamEvents(merchantId);

    // Assess: the whole table, every queue, the captured output and every response
    const items: unknown[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await db.send(new ScanCommand({ TableName: TABLE, ExclusiveStartKey: startKey }));
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    const sqs = new SQSClient({});
    const messages: string[] = [];
    for (const q of queueDefinitions) {
      const url = process.env[q.envVar]!;
      const out = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 0, MessageAttributeNames: ['All'] }),
      );
      messages.push(...(out.Messages ?? []).map((m) => JSON.stringify(m)));
    }

    // The idempotency record keeps a keyed hash of the request, without the CVC: a replay differing only in its CVC
    // is the same request, and nobody holding the table can test card-number guesses against an unkeyed hash.
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const idem = (
      await db.send(
        new GetCommand({ TableName: TABLE, Key: idempotencyKeys.record(idempotencyKeys.scope(testOwner(merchantId), 'api_key'), 'card-data-1') }),
      )
    ).Item!;
    const sorted = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sorted)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .sort(([a], [b]) => (a < b ? -1 : 1))
                .map(([k, x]) => [k, sorted(x)]),
            )
          : v;
    const unkeyed = createHash('sha256')
      .update(`POST /api/payments/create\n${JSON.stringify(sorted(firstBody))}`)
      .digest('hex');
    expect(idem.request_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(idem.request_hash).not.toBe(unkeyed);

    expect(Object.values(connectors)).toEqual([expect.stringMatching(/^con_/), expect.stringMatching(/^con_/), expect.stringMatching(/^con_/)]);
    expect(items.some((i) => JSON.stringify(i).includes('credentials_sealed'))).toBe(true);
    // An event's payload is stored deflated (store/events.ts), and a payment's routing decision, attempts, card,
    // metadata and history entries packed (store/stored-form.ts): each is searched as its reader would read it. Bytes
    // that do not inflate (another test stores some on purpose) are searched as they are.
    const text = (bytes: Uint8Array) => {
      for (const read of [() => JSON.stringify(unpack(bytes)), () => inflateRawSync(bytes).toString('utf8')]) {
        try {
          return read();
        } catch {
          // not that encoding
        }
      }
      return Buffer.from(bytes).toString('utf8');
    };
    const readableValue = (v: unknown): unknown => (v instanceof Uint8Array ? text(v) : Array.isArray(v) ? v.map(readableValue) : v);
    const readable = (item: Record<string, unknown>) => Object.fromEntries(Object.entries(item).map(([k, v]) => [k, readableValue(v)]));
    expect(items.some((i) => (i as Record<string, unknown>).data instanceof Uint8Array)).toBe(true);
    expect(items.some((i) => (i as Record<string, unknown>).card instanceof Uint8Array)).toBe(true);
    const haystacks = { items: items.map((i) => JSON.stringify(readable(i as Record<string, unknown>))), messages, logs: captured, responses };
    expect(items.length).toBeGreaterThan(10);
    expect(captured.join('\n')).toContain('Request rejected'); // the log capture does see the handlers' logs
    expect(responses.some((r) => r.includes('"last4":"4242"'))).toBe(true);
    for (const [where, texts] of Object.entries(haystacks)) {
      for (const text of texts) {
        for (const number of NUMBERS) expect(text, `card number in ${where}`).not.toContain(number);
        // Other tests' random cards share the table, and one may end in these digits: a last4 is not a CVC.
        const withoutLast4 = text.replace(/"last4":\s*"\d{4}"/g, '');
        for (const cvc of CVCS) expect(withoutLast4, `CVC in ${where}`).not.toMatch(new RegExp(`["':= ]${cvc}["',} ]`));
        expect(text, `a cvc field in ${where}`).not.toMatch(/"cvc"/);
        for (const secret of secrets) expect(text, `a provider credential in ${where}`).not.toContain(secret);
      }
    }
  });
});
