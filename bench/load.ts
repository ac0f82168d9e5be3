/**
 * Fixed-rate load through the local API gateway (autocannon, in this process) and the DynamoDB round trips an
 * operation cannot avoid, replayed on the same DynamoDB Local.
 */
import autocannon from 'autocannon';
import { catalog } from '../functions/catalog.ts';
import { startGateway } from '../infra/local/gateway.ts';
import { newMerchant } from '../test/support/merchant.ts';
import { paymentBody } from '../test/support/payments.ts';
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
    p99: percentile(latencies, 99),
    latencies,
  };
}

/**
 * Fresh pay_/evt_ ids in a recorded call, so a replayed conditional Put creates a new item as the original did; one
 * `ids` map per replayed operation, so its later calls (the commit after the operation's begin) find that item.
 */
const freshIds = (call: Call, ids: Map<string, string>): Call => {
  const id = () => Array.from({ length: 26 }, () => '0123456789abcdefghjkmnpqrstvwxyz'[Math.floor(Math.random() * 32)]).join('');
  const json = JSON.stringify(call.input).replace(
    /\b(pay|evt)_[0-9a-z]{26}(?![0-9a-z])/g,
    (old, kind: string) => ids.get(old) ?? (ids.set(old, `${kind}_${id()}`), ids.get(old)!),
  );
  return { ...call, input: JSON.parse(json) };
};

/** `runs` sequential replays of `calls` (one after the other, as the operation has to wait for each): ms of each. */
export async function replaySequence(calls: Call[], runs: number): Promise<number[]> {
  const totals: number[] = [];
  for (let i = 0; i < runs; i++) {
    let total = 0;
    const ids = new Map<string, string>();
    for (const call of calls) total += await replay(freshIds(call, ids));
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
    p99: percentile(latencies, 99),
    latencies,
  };
}

/**
 * The local gateway with a pool of merchants for creates (the endpoint allows 100 requests a minute per merchant,
 * so creates go round-robin over enough merchants to stay below it) and payments to read.
 */
export async function startLoad(totalCreates: number, getIds: string[], getKey: string) {
  const merchants = await Promise.all(Array.from({ length: Math.ceil(totalCreates / 80) }, () => newMerchant()));
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
  type Rate = { rate: number; connections: number; seconds: number };
  return {
    create: (p: Rate) => run(url, { name: 'POST /api/payments/create', path: '/api/payments/create', ...p, next: createNext }),
    get: (p: Rate) => run(url, { name: 'GET /api/payments/{id}', path: '/api/payments/x', ...p, next: getNext }),
    close: () => gateway.close(),
  };
}
