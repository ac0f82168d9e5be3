/**
 * `npm run bench`: bundles and cold init, DynamoDB capacity per operation, fixed-rate latency on the local stack
 * against the DynamoDB round trips an operation cannot avoid, the cost of a million creates and the hottest keys of
 * one merchant at 1,000 creates/s. Prints tables, writes bench/results.json. A benchmark, not a test: it never fails
 * on a missed target, it reports it.
 */
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { catalog } from '../functions/catalog.ts';
import { startLocalStack } from '../infra/local/services.ts';
import { BASELINE, benchBundles, ROOT } from './bundles.ts';
import { benchDashboard, DASHBOARD_BUDGET_KB } from './dashboard.ts';
import { costPerMillionCreates, PRICES, scaleOnPaper } from './model.ts';
import { percentile } from './stats.ts';
import type { Call } from './dynamo.ts';

const INIT_RUNS = Number(process.env.BENCH_INIT_RUNS ?? 15);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 15);
const REPLAYS = 50;
/** the single-connection run is cut in parts with the round-trip replays before, between and after them */
const PARTS = 3;
/** 1 connection: requests one after another, the latency of a create on its own; then concurrent load. */
const CREATE = [
  { rate: 20, connections: 1 },
  { rate: 40, connections: 4 },
];
const GET = [
  { rate: 20, connections: 1 },
  { rate: 200, connections: 10 },
];
/** saved cards, on their own: a payment method saved (for a customer), a create charging one for the first time */
const SAVE = [{ rate: 20, connections: 1 }];
const CHARGE = [{ rate: 20, connections: 1 }];
const TARGETS = {
  initRatio: 1.3,
  createLatencyRatio: 1.3,
  createWcu: 6,
  createRcu: 2,
  captureWcu: 6,
  refundWcu: 8,
  refundRcu: 3,
  listRcu: 3,
  costPerMillion: 8,
  keyShare: 0.1,
};
/** the merchant history a list page is measured at */
const HISTORY = Number(process.env.BENCH_HISTORY ?? 10_000);
/** the limit the hot-key figure is modelled at (1,000 creates/s), and the payments a list page is measured at with it */
const RAISED_LIMIT = 60_000;
const RAISED_HISTORY = 1_000;

const started = performance.now();
const print = (line = '') => process.stdout.write(`${line}\n`);
const log = (line: string) => process.stderr.write(`[bench ${Math.round((performance.now() - started) / 1000)}s] ${line}\n`);
const fixed = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '-');
const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

/** Numbers right-aligned, text left-aligned. */
function table(title: string, head: string[], rows: (string | number)[][]): void {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const numeric = head.map((_, i) => rows.every((r) => typeof r[i] === 'number' || /^[\d.,%-]+$/.test(String(r[i]))));
  print(`\n${title}`);
  for (const [i, r] of cells.entries()) {
    print(
      r
        .map((c, j) => (numeric[j] ? c.padStart(widths[j]!) : c.padEnd(widths[j]!)))
        .join('  ')
        .trimEnd(),
    );
    if (i === 0) print(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

// 1. Bundles, before anything else runs on the machine
const bundles = await benchBundles(INIT_RUNS, log);
const dashboard = await benchDashboard();

// 2-3. The local stack; handlers read their configuration at import, so modules are loaded after the env is set
async function onLocalStack() {
  log('starting DynamoDB Local + SQS');
  const stack = await startLocalStack({ tableName: 'bench', logLevel: 'WARN' });
  Object.assign(process.env, stack.env);
  try {
    return await measure();
  } finally {
    log('stopping DynamoDB Local + SQS');
    await stack.stop();
  }
}

async function measure() {
  // the hosted pages' private functions run in this process, as the local runtime runs them
  (await import('../infra/local/private-functions.ts')).runPrivateFunctionsInProcess();
  const { benchCapacity } = await import('./capacity.ts');
  const { merge, replaySequence, startLoad } = await import('./load.ts');
  const { newMerchant } = await import('../test/support/merchant.ts');
  const { listPageAtHistory, listPageAtLimit } = await import('./history.ts');

  log('capacity per operation');
  const capacity = await benchCapacity();
  log(`a list page at ${HISTORY} payments of history`);
  const history = await listPageAtHistory(HISTORY, log);
  log(`a list page of ${RAISED_HISTORY} payments written with PAYMENTS_PER_MINUTE=${RAISED_LIMIT}`);
  const raised = await listPageAtLimit(RAISED_LIMIT, RAISED_HISTORY);

  // The least a create does in sequence: authenticate (API key), count it against the merchant's limit, write the
  // payment's operation before the provider call, and commit the payment with its event after it. A get:
  // authenticate, read the payment.
  const unavoidableCreate = capacity.createCalls.filter(
    (c) => c.keys[0] === 'APIKEY' || c.keys[0] === 'RATE' || (c.wcu > 0 && c.keys.includes('PAY')),
  );
  const unavoidableGet = capacity.getCalls;
  // A payment method: authenticate, count it against the key's limit (the customer's reads beside it), seal the card
  // into the vault (its card and CVC at once: one of them stands for that round trip), then store the payment method
  // (never one without its card).
  const unavoidableSave = capacity.pmCreateCalls.filter(
    (c, i, calls) => c.keys[0] === 'APIKEY' || c.keys[0] === 'RATE' || (c.wcu > 0 && (!c.vault || calls.findIndex((d) => d.vault) === i)),
  );
  // A create charging a saved card: authenticate, read the payment method and the vault's card (beside the rate
  // window), then the reads and the velocity count that need the card's number, begin, commit (the token kept in it).
  const unavoidableCharge = capacity.pmFirstChargeCalls.filter(
    (c) => ['APIKEY', 'RATE', 'VEL'].includes(c.keys[0]!) || (c.wcu > 0 && c.keys.includes('PAY')),
  );
  const reader = await newMerchant({ payments: true });
  // a part of a phase lasts at least a second (autocannon's least duration)
  const total = (phases: typeof CREATE) => phases.reduce((n, p) => n + p.rate * Math.max(SECONDS, p.connections === 1 ? PARTS : 1), 0);
  const load = await startLoad(
    { creates: total(CREATE), saves: total(SAVE), charges: total(CHARGE) },
    [reader.paymentId!, reader.capturedPaymentId!],
    reader.apiKey,
  );
  const unavoidable = { create: unavoidableCreate, get: unavoidableGet, save: unavoidableSave, charge: unavoidableCharge };
  const runs = [];
  const replays = { create: [] as number[], get: [] as number[], save: [] as number[], charge: [] as number[] };
  try {
    for (const [kind, phases] of [
      ['create', CREATE],
      ['get', GET],
      ['save', SAVE],
      ['charge', CHARGE],
    ] as const) {
      for (const phase of phases) {
        log(`load ${kind} at ${phase.rate}/s over ${phase.connections} connection(s) for ${SECONDS} s`);
        if (phase.connections > 1) {
          runs.push({ kind, ...(await load[kind]({ ...phase, seconds: SECONDS })) });
          continue;
        }
        // the run the round trips are compared with: replays before, between and after its parts
        const calls = unavoidable[kind];
        const parts = [];
        for (let i = 0; i < PARTS; i++) {
          replays[kind].push(...(await replaySequence(calls, REPLAYS, kind === 'save')));
          parts.push(await load[kind]({ ...phase, seconds: SECONDS / PARTS }));
        }
        replays[kind].push(...(await replaySequence(calls, REPLAYS, kind === 'save')));
        runs.push({ kind, ...merge(parts) });
      }
    }
  } finally {
    await load.close();
  }
  return { capacity, history, raised, unavoidable, runs, replays };
}

const { capacity, history, raised, unavoidable, runs, replays } = await onLocalStack();
const { SMART_ROUTED_CREATE, PM_CREATE, PM_CHARGE, PM_FIRST_CHARGE } = await import('./capacity.ts');
const KINDS = ['create', 'get', 'save', 'charge'] as const;
const roundTripsOf = (kind: (typeof KINDS)[number]) => ({
  calls: unavoidable[kind].map((c) => `${c.command} ${c.vault ? 'vault:' : ''}${c.keys.join(',')}`),
  replays: replays[kind].length,
  p50Ms: percentile(replays[kind], 50),
});
const roundTrips = Object.fromEntries(KINDS.map((k) => [k, roundTripsOf(k)])) as Record<(typeof KINDS)[number], ReturnType<typeof roundTripsOf>>;
const single = (kind: string) => runs.find((r) => r.kind === kind && r.connections === 1)!;
const latencyRatio = Object.fromEntries(KINDS.map((k) => [k, single(k).p50 / roundTrips[k].p50Ms])) as Record<(typeof KINDS)[number], number>;
const operation = (name: string) => capacity.operations.find((o) => o.operation === name)!;
const create = operation('payment create');
const pmCreate = operation(PM_CREATE);
const pmCharge = operation(PM_CHARGE);
const pmFirstCharge = operation(PM_FIRST_CHARGE);
const smartRoutedCreate = operation(SMART_ROUTED_CREATE);
const capture = operation('payment capture');
const refund = operation('payment refund');
const units = (calls: Call[], unit: 'rcu' | 'wcu') => calls.reduce((s, c) => s + c[unit], 0);
const listPage = {
  rcu: units(history.page, 'rcu'),
  filteredRcu: units(history.filteredPage, 'rcu'),
  rareRcu: units(history.rarePage, 'rcu'),
  raisedRcu: units(raised.page, 'rcu'),
};
/** Calls grouped by command and keys: `Query CNT ×10 5R`. */
const grouped = (calls: Call[]) => {
  const groups = new Map<string, { n: number; rcu: number }>();
  for (const c of calls) {
    const key = `${c.command} ${c.keys.join(',')}`;
    const g = groups.get(key) ?? { n: 0, rcu: 0 };
    groups.set(key, { n: g.n + 1, rcu: g.rcu + c.rcu });
  }
  return [...groups].map(([key, g]) => `${key}${g.n > 1 ? ` ×${g.n}` : ''} ${g.rcu}R`).join('; ');
};
const memoryMb = catalog.find((f) => f.name === 'payments/create')!.memory;
const cost = costPerMillionCreates({ memoryMb, durationMs: single('create').p50, wcu: create.wcu, rcu: create.rcu });
const scale = scaleOnPaper(capacity.createCalls, RAISED_LIMIT / 60, capacity.committedPaymentBytes);
const functions = bundles.filter((b) => b.name !== BASELINE);
const worstInit = functions.reduce((a, b) => (b.ratio > a.ratio ? b : a));
const hottestOf = (rows: typeof scale.rows) => rows.reduce((a, b) => (b.share > a.share ? b : a));
const hottest = hottestOf(scale.rows);
const hottestWrite = hottestOf(scale.rows.filter((r) => r.kind === 'write'));
const hottestRead = hottestOf(scale.rows.filter((r) => r.kind === 'read'));
const targets = [
  {
    target: `dashboard: ≤ ${DASHBOARD_BUDGET_KB} KB of gzipped JavaScript before the first page`,
    value: `${fixed(dashboard.gzipBytes / 1024, 1)} KB`,
    met: dashboard.gzipBytes <= DASHBOARD_BUDGET_KB * 1024,
  },
  {
    target: `cold init ratio ≤ ${TARGETS.initRatio} (every function)`,
    value: `${fixed(worstInit.ratio, 2)} worst (${worstInit.name}, ${fixed(worstInit.initMs)} ms); ${functions.filter((b) => b.ratio > TARGETS.initRatio).length} over`,
    met: worstInit.ratio <= TARGETS.initRatio,
  },
  {
    target: `create p50 ≤ ${TARGETS.createLatencyRatio}× unavoidable round trips`,
    value: fixed(latencyRatio.create, 2),
    met: latencyRatio.create <= TARGETS.createLatencyRatio,
  },
  {
    target: `create ≤ ${TARGETS.createWcu} WCU`,
    value: `${create.wcu} (service rules: ${scale.wcuPerCreate})`,
    met: create.wcu <= TARGETS.createWcu,
  },
  {
    target: `create ≤ ${TARGETS.createRcu} RCU`,
    value: `${create.rcu} naming its provider, ${smartRoutedCreate.rcu} smart-routed`,
    met: Math.max(create.rcu, smartRoutedCreate.rcu) <= TARGETS.createRcu,
  },
  { target: `capture ≤ ${TARGETS.captureWcu} WCU`, value: String(capture.wcu), met: capture.wcu <= TARGETS.captureWcu },
  {
    target: `refund ≤ ${TARGETS.refundWcu} WCU and ≤ ${TARGETS.refundRcu} RCU`,
    value: `${refund.wcu} WCU, ${refund.rcu} RCU`,
    met: refund.wcu <= TARGETS.refundWcu && refund.rcu <= TARGETS.refundRcu,
  },
  {
    target: `a list page ≤ ${TARGETS.listRcu} RCU at ${HISTORY.toLocaleString('en')} payments`,
    value: `${listPage.rcu} (filtered: ${listPage.filteredRcu})`,
    met: Math.max(listPage.rcu, listPage.filteredRcu) <= TARGETS.listRcu,
  },
  { target: `≤ $${TARGETS.costPerMillion} per million creates`, value: `$${fixed(cost.total, 2)}`, met: cost.total <= TARGETS.costPerMillion },
  {
    target: `no key over ${pct(TARGETS.keyShare)} of a partition at 1,000 creates/s`,
    value: `${pct(hottest.share)}: writes ${pct(hottestWrite.share)} (${hottestWrite.key}), reads ${pct(hottestRead.share)} (${hottestRead.key})`,
    met: hottest.share <= TARGETS.keyShare,
  },
];

// Report
const baseline = bundles.find((b) => b.name === BASELINE)!;
table(
  `Bundles (built as the stack builds them: infra/bundle.ts; KB read at a cold start) and cold init: median of ${INIT_RUNS} fresh node processes importing the bundle`,
  ['function', 'KB', 'init ms', 'ratio', 'largest additions to the baseline (KB)'],
  bundles.map((b) => [
    b.name,
    fixed(b.bytes / 1024, 0),
    fixed(b.initMs),
    fixed(b.ratio, 2),
    Object.entries(b.additions)
      .map(([p, kb]) => `${p} ${kb}`)
      .join(', '),
  ]),
);
table(
  `The dashboard (dashboard/build.ts): JavaScript before the first page shows, budget ${DASHBOARD_BUDGET_KB} KB gzipped`,
  ['scripts', 'KB', 'KB gzipped', 'budget KB', 'all scripts KB gzipped (pages loaded later too)'],
  [
    [
      dashboard.scripts.length,
      fixed(dashboard.bytes / 1024, 1),
      fixed(dashboard.gzipBytes / 1024, 1),
      DASHBOARD_BUDGET_KB,
      fixed(dashboard.allGzipBytes / 1024, 1),
    ],
  ],
);
table(
  "DynamoDB per operation (DynamoDB Local, ReturnConsumedCapacity TOTAL, warm container, median of 3; a read at least the service's minimum, 0.5 RCU or 1 when consistent, where DynamoDB Local reports 0 for a query that matches nothing)",
  ['operation', 'requests', 'RCU', 'WCU', 'vault RCU', 'vault WCU', 'calls'],
  capacity.operations.map((o) => [o.operation, o.requests, o.rcu, o.wcu, o.vaultRcu, o.vaultWcu, o.calls.join('; ')]),
);
table(
  `Fixed-rate load through the local gateway (${SECONDS} s each)`,
  ['endpoint', 'rate/s', 'conns', 'sent', 'ok', 'errors', 'ok/s', 'p50 ms', 'p95 ms', 'p99 ms'],
  runs.map((r) => [r.name, r.rate, r.connections, r.sent, r.ok, r.errors, fixed(r.ok / r.seconds), fixed(r.p50), fixed(r.p95), fixed(r.p99)]),
);
table(
  `A list page (limit 10) with ${HISTORY.toLocaleString('en')} payments in the merchant's history (made in ${fixed(history.seedSeconds, 0)} s)`,
  ['page', 'requests', 'RCU', 'ms', 'calls'],
  [
    ['newest first', history.page.length, listPage.rcu, fixed(history.ms.page), grouped(history.page)],
    ['status + currency filter', history.filteredPage.length, listPage.filteredRcu, fixed(history.ms.filteredPage), grouped(history.filteredPage)],
    ['a status only the oldest has (voided)', history.rarePage.length, listPage.rareRcu, fixed(history.ms.rarePage), grouped(history.rarePage)],
    [
      `newest first, ${RAISED_HISTORY.toLocaleString('en')} payments at PAYMENTS_PER_MINUTE=${RAISED_LIMIT.toLocaleString('en')} (${raised.listShards} list shards)`,
      raised.page.length,
      listPage.raisedRcu,
      fixed(raised.ms),
      grouped(raised.page),
    ],
  ],
);
table(
  'Unavoidable DynamoDB round trips (replayed in sequence on DynamoDB Local)',
  ['operation', 'round trips', 'p50 ms', 'operation p50 ms', 'ratio'],
  KINDS.map((k) => [
    { create: 'create', get: 'get', save: 'payment method create', charge: 'create with pm_ (first charge)' }[k],
    roundTrips[k].calls.join(' → '),
    fixed(roundTrips[k].p50Ms),
    fixed(single(k).p50),
    fixed(latencyRatio[k], 2),
  ]),
);
table(
  `Cost per million creates (USD; ${memoryMb} MB, ${Math.ceil(single('create').p50)} ms, ${create.wcu} WCU, ${create.rcu} RCU)`,
  ['item', 'USD'],
  [
    ['API Gateway REST', fixed(cost.apiGateway, 2)],
    ['Lambda requests', fixed(cost.lambdaRequests, 2)],
    ['Lambda duration (arm64)', fixed(cost.lambdaDuration, 2)],
    ['DynamoDB writes', fixed(cost.dynamoDbWrites, 2)],
    ['DynamoDB reads', fixed(cost.dynamoDbReads, 2)],
    ['total', fixed(cost.total, 2)],
  ],
);
table(
  'Scale on paper: one merchant at 1,000 creates/s (share of a partition: 1,000 WCU/s, 3,000 RCU/s)',
  ['key (one of)', 'kind', 'per create', 'per s', 'units', 'units/s', 'share', '', 'by'],
  scale.rows.map((r) => [
    r.key,
    r.kind,
    r.perCreate,
    fixed(r.perSecond, 0),
    r.unitsEach,
    fixed(r.unitsPerSecond, 0),
    pct(r.share),
    r.share > TARGETS.keyShare ? 'OVER' : '',
    r.by,
  ]),
);
print(
  `item sizes: ${Object.entries(scale.itemBytes)
    .map(([k, b]) => `${k} ${b} B`)
    .join(', ')}; one create by these rules: ${scale.wcuPerCreate} WCU (DynamoDB Local: ${create.wcu})`,
);
if (scale.uncovered.length) print(`! the create also wrote keys the model does not list: ${scale.uncovered.join(', ')}`);
table(
  'Targets',
  ['target', 'value', ''],
  targets.map((t) => [t.target, t.value, t.met ? 'met' : 'MISSED']),
);

/** The headline figures, by the names issue 15 gives them (`create.wcu`, `list.rcu_per_page_at_10k`, …). */
const headline = {
  create: { wcu: create.wcu, rcu: create.rcu, rcu_smart_routing: smartRoutedCreate.rcu, p50_ratio: Number(latencyRatio.create.toFixed(3)) },
  capture: { wcu: capture.wcu },
  /** saved cards: the main table's units, the vault's apart */
  payment_method_create: {
    wcu: pmCreate.wcu,
    rcu: pmCreate.rcu,
    vault_wcu: pmCreate.vaultWcu,
    vault_rcu: pmCreate.vaultRcu,
    p50_ratio: Number(latencyRatio.save.toFixed(3)),
  },
  create_with_pm: {
    wcu: pmCharge.wcu,
    rcu: pmCharge.rcu,
    vault_wcu: pmCharge.vaultWcu,
    vault_rcu: pmCharge.vaultRcu,
    first_charge: { wcu: pmFirstCharge.wcu, rcu: pmFirstCharge.rcu, vault_wcu: pmFirstCharge.vaultWcu, vault_rcu: pmFirstCharge.vaultRcu },
    p50_ratio_first_charge: Number(latencyRatio.charge.toFixed(3)),
  },
  refund: { wcu: refund.wcu, rcu: refund.rcu },
  init: {
    worst_ratio: Number(worstInit.ratio.toFixed(3)),
    worst_function: worstInit.name,
    worst_ms: Number(worstInit.initMs.toFixed(1)),
    baseline_ms: Number(baseline.initMs.toFixed(1)),
  },
  cost_per_million_creates_usd: Number(cost.total.toFixed(2)),
  hot_key: {
    max_share: Number(hottest.share.toFixed(3)),
    key: hottest.key,
    max_write_share: Number(hottestWrite.share.toFixed(3)),
    write_key: hottestWrite.key,
  },
  list: {
    rcu_per_page_at_10k: listPage.rcu,
    rcu_per_filtered_page_at_10k: listPage.filteredRcu,
    rcu_per_rare_filter_page_at_10k: listPage.rareRcu,
    ms_per_rare_filter_page_at_10k: Number(history.ms.rarePage.toFixed(0)),
    history: HISTORY,
    rcu_per_page_at_raised_limit: listPage.raisedRcu,
    raised_limit: RAISED_LIMIT,
  },
};

const results = {
  ...headline,
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memoryGb: Math.round(totalmem() / 2 ** 30),
  seconds: Math.round((performance.now() - started) / 1000),
  bundles: { initRuns: INIT_RUNS, baselineMs: baseline.initMs, functions: bundles },
  dashboard: { ...dashboard, budgetKb: DASHBOARD_BUDGET_KB },
  capacity: capacity.operations,
  load: runs.map(({ latencies: _, ...r }) => r),
  roundTrips,
  latencyRatio,
  /** one warm create's DynamoDB calls in order, with their round trips (parallel ones overlap) */
  createCalls: capacity.createCalls.map((c) => ({ command: c.command, keys: c.keys, rcu: c.rcu, wcu: c.wcu, ms: Number(c.ms.toFixed(2)) })),
  cost: { prices: PRICES, perMillionCreates: cost },
  scale,
  targets,
};
writeFileSync(join(ROOT, 'bench/results.json'), `${JSON.stringify(results, null, 2)}\n`);
print(`\nbench/results.json written (${results.seconds} s, ${results.cpu}, ${results.cores} cores, node ${results.node})`);
process.exit(0);
