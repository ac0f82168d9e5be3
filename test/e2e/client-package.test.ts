import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// A low limit, so that the script meets a 429; set before any handler reads its environment.
const PAYMENTS_PER_MINUTE = vi.hoisted(() => {
  process.env.PAYMENTS_PER_MINUTE = '4';
  return 4;
});
import { buildClient, CLIENT_DIR } from '../../client/build.ts';
import type { Gateway } from '../../infra/local/gateway.ts';
import { projectRoot } from '../../infra/local/lambda.ts';
import { newMerchant } from '../support/merchant.ts';
import { freshCard } from '../support/payments.ts';
import { startTestGateway } from '../support/runtime.ts';

const run = promisify(execFile);

/**
 * The client package as a user gets it: built, packed with `npm pack`, installed from the tarball into a scratch
 * project (offline: it has no dependency), type-checked there, and run with plain `node` against the local gateway
 * (`npm start`'s, here in the test process) as a merchant with a few payments already.
 */
describe('the client package, packed and installed into a scratch project', () => {
  let scratch: string;
  let runtime: { url: string; apiKey: string };
  let gateway: Gateway;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'client-scratch-'));
    const [, started, merchant] = await Promise.all([
      (async () => {
        await buildClient();
        await run('npm', ['pack', CLIENT_DIR, '--pack-destination', scratch], { cwd: projectRoot });
        const tarball = readdirSync(scratch).find((f) => f.endsWith('.tgz'))!;
        writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
        await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', `./${tarball}`], { cwd: scratch });
      })(),
      startTestGateway(),
      newMerchant({ payments: true }),
    ]);
    gateway = started;
    runtime = { url: gateway.url, apiKey: merchant.apiKey };
  });
  afterAll(async () => {
    await gateway?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const tsc = (file: string) =>
    run(
      process.execPath,
      [
        resolve(projectRoot, 'node_modules/typescript/bin/tsc'),
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--lib',
        'es2022,dom',
        file,
      ],
      { cwd: scratch },
    );

  it('is typed from the OpenAPI document: a right call compiles, a wrong body does not', async () => {
    // Prepare
    const call = (body: string) => `import { createClient } from '@payment-orchestration/client';
const api = createClient({ baseUrl: 'http://localhost:3000', apiKey: 'sk_test_x' });
const payment = await api.POST('/api/payments/create', { body: ${body} });
const id: string = payment.id;
const captured = await api.POST('/api/payments/{id}/capture', { params: { id }, body: {} });
console.log(captured.status);
`;
    const card = "{ type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' } }";
    writeFileSync(join(scratch, 'right.ts'), call(`{ amount: 1000, currency: 'usd', payment_method: ${card} }`));
    writeFileSync(join(scratch, 'wrong.ts'), call(`{ amount: 'ten', currency: 'usd', payment_method: ${card} }`));
    // Act + Assess
    await expect(tsc('right.ts')).resolves.toBeDefined();
    const wrong = await tsc('wrong.ts').then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    // line 3, column 66: the `amount` of the body
    expect(wrong).toContain("wrong.ts(3,66): error TS2322: Type 'string' is not assignable to type 'number'.");
  }, 300_000); // two tsc runs

  it('creates, captures, refunds and lists every page with plain node, and waits out a 429 by its Retry-After', async () => {
    // Prepare: the script a merchant would write
    const script = `import { createClient } from '@payment-orchestration/client';
const [baseUrl, apiKey, cards] = [process.argv[2], process.argv[3], JSON.parse(process.argv[4])];
const retries = [];
const api = createClient({ baseUrl, apiKey, maxWaitMs: 65_000, onRetry: (r) => retries.push(r) });
const body = (number, amount) => ({ amount, currency: 'usd', payment_method: { type: 'card', card: { number, exp_month: 12, exp_year: 2034, cvc: '123' } } });
const first = await api.POST('/api/payments/create', { body: body(cards[0], 2500) });
const captured = await api.POST('/api/payments/{id}/capture', { params: { id: first.id }, body: {} });
const refunded = await api.POST('/api/payments/{id}/refund', { params: { id: first.id }, body: { amount: 1000 } });
// create until the limit answers 429 and the client has waited it out once
const created = [first.id];
for (const number of cards.slice(1)) {
  created.push((await api.POST('/api/payments/create', { body: body(number, 1000) })).id);
  if (retries.some((r) => r.status === 429)) break;
}
const listed = [];
for await (const payment of api.listAll('/api/payments/list', { query: { limit: 2 } })) listed.push(payment.id);
console.log(JSON.stringify({ captured, refunded, created, listed, retries }));
`;
    writeFileSync(join(scratch, 'flow.mjs'), script);
    const cards = Array.from({ length: 2 * PAYMENTS_PER_MINUTE + 1 }, () => freshCard());
    // Act
    const { stdout } = await run(process.execPath, ['flow.mjs', runtime.url, runtime.apiKey, JSON.stringify(cards)], { cwd: scratch });
    // Assess
    const out = JSON.parse(stdout) as {
      captured: { id: string; status: string };
      refunded: { status: string; refund_id: string; amount: number };
      created: string[];
      listed: string[];
      retries: { status: number | string; waitMs: number; method: string; path: string }[];
    };
    expect(out.captured).toMatchObject({ id: out.created[0], status: 'captured' });
    expect(out.refunded).toMatchObject({ status: 'refunded', amount: 1000 });
    expect(out.refunded.refund_id).toMatch(/^ref_/);
    expect(new Set(out.created).size).toBe(out.created.length);
    expect(out.created.length).toBeGreaterThan(PAYMENTS_PER_MINUTE);
    // every page walked: the merchant's earlier payments and all of these, each once
    expect(out.listed).toEqual(expect.arrayContaining(out.created));
    expect(new Set(out.listed).size).toBe(out.listed.length);
    expect(out.listed.length).toBeGreaterThan(out.created.length);
    const limited = out.retries.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const retry of limited) {
      expect(retry).toMatchObject({ method: 'POST', path: '/api/payments/create' });
      expect(retry.waitMs).toBeGreaterThanOrEqual(1000);
      expect(retry.waitMs).toBeLessThanOrEqual(60_000);
    }
  }, 450_000);
});
