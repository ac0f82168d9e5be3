/**
 * Fixed-rate load through the local API gateway (autocannon, in this process) and the DynamoDB round trips an
 * operation cannot avoid, replayed on the same DynamoDB Local.
 */
import autocannon from 'autocannon';
import { catalog } from '../functions/catalog.ts';
import { startGateway } from '../infra/local/gateway.ts';
import { createPaymentMethod } from '../shared/domain/payment-methods.ts';
import { newMerchant, testActor } from '../test/support/merchant.ts';
import { cardBody } from '../test/support/payment-methods.ts';
import { freshCard, paymentBody } from '../test/support/payments.ts';
import { type Call, replay } from './dynamo.ts';
import { percentile } from './stats.ts';

export interface LoadResult {
  name: string;
  rate: number;
  connections: number;
  seconds: number;
  sent: number;
  ok: number;
  errors: number;
  p50: number;
  p95: number;
  p99: number;
  /** ms of each 200 (not written to the results) */
  latencies: number[];
}

interface Phase {
  name: string;
  path: string;
  rate: number;
  connections: number;
  seconds: number;
  /** method, headers, body of the next request */
  next: () => { method: 'GET' | 'POST'; path?: string; headers: Record<string, string>; body?: string };
}

async function run(url: string, phase: Phase): Promise<LoadResult> {
  const latencies: number[] = [];
  let sent = 0;
  const instance = autocannon({
    url: url + phase.path,
    connections: phase.connections,
    overallRate: phase.rate,
    duration: phase.seconds,
    requests: [{ setupRequest: (req: object) => (sent++, { ...req, ...phase.next() }) }],
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status === 200) latencies.push(ms);
  });
  const result = await instance;
  return {
    name: phase.name,
    rate: phase.rate,
    connections: phase.connections,
    seconds: phase.seconds,
    sent,
    ok: latencies.length,
    errors: result.errors + result.timeouts + result.non2xx,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    latencies,
  };
}

/**
 * Fresh pay_/evt_ ids in a recorded call, so a replayed conditional Put creates a new item as the original did (with
 * `paymentMethods`, pm_ ids and card fingerprints too: the replay saves a new one; else a pm_ named is the one saved);
 * one `ids` map per replayed operation, so its later calls (the commit after the operation's begin) find that item.
 * The vault's calls (unconditional, and binary) are replayed as recorded.
 */
const freshIds = (call: Call, ids: Map<string, string>, paymentMethods: boolean): Call => {
  if (call.vault) return call;
  const kinds = paymentMethods ? /\b(pay|evt|pm)_[0-9a-z]{26}(?![0-9a-z])/g : /\b(pay|evt)_[0-9a-z]{26}(?![0-9a-z])/g;
  const fresh = (length: number, digits: string) => Array.from({ length }, () => digits[Math.floor(Math.random() * digits.length)]).join('');
  const json = JSON.stringify(call.input)
    .replace(kinds, (old, kind: string) => ids.get(old) ?? (ids.set(old, `${kind}_${fresh(26, '0123456789abcdefghjkmnpqrstvwxyz')}`), ids.get(old)!))
    .replace(
      /(?<=PMCARD#cus_[0-9a-z]{26}#|"fingerprint":\{"S":")[0-9a-f]{16}\b/g,
      (old) => ids.get(old) ?? (ids.set(old, fresh(16, '0123456789abcdef')), ids.get(old)!),
    );
  return { ...call, input: JSON.parse(json) };
};

/** `runs` sequential replays of `calls` (one after the other, as the operation has to wait for each): ms of each. */
export async function replaySequence(calls: Call[], runs: number, paymentMethods = false): Promise<number[]> {
  const totals: number[] = [];
  for (let i = 0; i < runs; i++) {
    let total = 0;
    const ids = new Map<string, string>();
    for (const call of calls) total += await replay(freshIds(call, ids, paymentMethods));
    totals.push(total);
  }
  return totals;
}

/** Runs of one phase taken in parts, as one. */
export function merge(parts: LoadResult[]): LoadResult {
  const latencies = parts.flatMap((p) => p.latencies);
  const sum = (f: (p: LoadResult) => number) => parts.reduce((s, p) => s + f(p), 0);
  return {
    ...parts[0]!,
    seconds: sum((p) => p.seconds),
    sent: sum((p) => p.sent),
    ok: sum((p) => p.ok),
    errors: sum((p) => p.errors),
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    latencies,
  };
}

/** Requests of each kind the load will send. */
export interface LoadCounts {
  creates: number;
  /** payment methods saved with a publishable key */
  saves: number;
  /** creates charging a saved card for the first time (one made beforehand for each) */
  charges: number;
}

/**
 * The local gateway with a pool of merchants for creates (the endpoint allows 100 requests a minute per merchant,
 * so creates go round-robin over enough merchants to stay below it; payment-method creates, 30 a minute per
 * publishable key and IP, likewise over their publishable keys), saved cards to charge and payments to read.
 */
export async function startLoad(counts: LoadCounts, getIds: string[], getKey: string) {
  const size = Math.max(Math.ceil((counts.creates + counts.charges) / 80), Math.ceil(counts.saves / 25));
  const merchants = await Promise.all(Array.from({ length: size }, () => newMerchant({ payments: false, publishableKey: true })));
  // autocannon may send a request or two more than rate × seconds
  const toSave = Math.ceil(counts.charges * 1.05) + 5;
  const saved: { apiKey: string; pm: string }[] = [];
  for (let i = 0; i < toSave; i += 8) {
    const batch = Array.from({ length: Math.min(8, toSave - i) }, (_, j) => merchants[(i + j) % merchants.length]!);
    const card = () => ({ number: freshCard(), exp_month: 12, exp_year: 2034, cvc: '123' });
    const made = await Promise.all(
      batch.map((m) => createPaymentMethod(testActor(m.merchantId), { type: 'card', card: card(), customer_id: m.customerId })),
    );
    saved.push(...made.map((pm, j) => ({ apiKey: batch[j]!.apiKey, pm: pm.id })));
  }
  const gateway = await startGateway({ port: 0, catalog, log: false });
  const url = `http://127.0.0.1:${gateway.port}`;
  let n = 0;
  const createNext = () => ({
    method: 'POST' as const,
    headers: { Authorization: `Bearer ${merchants[n++ % merchants.length]!.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(paymentBody()),
  });
  const getNext = () => ({
    method: 'GET' as const,
    path: `/api/payments/${getIds[n++ % getIds.length]}`,
    headers: { Authorization: `Bearer ${getKey}` },
  });
  const saveNext = () => {
    const m = merchants[n++ % merchants.length]!;
    return {
      method: 'POST' as const,
      headers: { Authorization: `Bearer ${m.publishableKey!}`, 'Content-Type': 'application/json' },
      // a publishable key names no customer
      body: JSON.stringify(cardBody(freshCard())),
    };
  };
  const chargeNext = () => {
    const { apiKey, pm } = saved.pop()!;
    return {
      method: 'POST' as const,
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ amount: 2500, currency: 'usd', payment_method: pm }),
    };
  };
  type Rate = { rate: number; connections: number; seconds: number };
  return {
    create: (p: Rate) => run(url, { name: 'POST /api/payments/create', path: '/api/payments/create', ...p, next: createNext }),
    save: (p: Rate) => run(url, { name: 'POST /api/payment_methods', path: '/api/payment_methods', ...p, next: saveNext }),
    charge: (p: Rate) => run(url, { name: 'POST /api/payments/create (pm_)', path: '/api/payments/create', ...p, next: chargeNext }),
    get: (p: Rate) => run(url, { name: 'GET /api/payments/{id}', path: '/api/payments/x', ...p, next: getNext }),
    close: () => gateway.close(),
  };
}
