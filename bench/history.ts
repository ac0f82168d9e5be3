/**
 * A list page of a merchant with a long history: HISTORY payments created through the use case itself (payments,
 * list index entries, count cells as a real create writes them; the HTTP rate limit is not in the way), then the
 * first page of `GET /api/payments/list` recorded, with and without a filter.
 */
import * as v from 'valibot';
import { createPayment } from '../shared/domain/payment-create.ts';
import { CreatePaymentBody } from '../shared/schemas/payments.ts';
import { type HttpResult } from '../test/support/lambda.ts';
import { newMerchant, testActor } from '../test/support/merchant.ts';
import { paymentBody, payments } from '../test/support/payments.ts';
import { writeShardsOf } from '../shared/store/keys.ts';
import { counterShards, writeShards, writeShardsFor } from '../shared/store/write-shards.ts';
import { type Call, record } from './dynamo.ts';

const CONCURRENCY = 16;

export interface HistoryPage {
  payments: number;
  seedSeconds: number;
  page: Call[];
  filteredPage: Call[];
  /** a page filtered to a status only the oldest payment has: the list index is read to its end */
  rarePage: Call[];
  /** ms each page took, in the order above */
  ms: { page: number; filteredPage: number; rarePage: number };
}

const ok = (res: HttpResult): HttpResult => {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.rawBody}`);
  return res;
};

/** Creates payments through the use case, CONCURRENCY at a time, from `made` until `count` exist; `log` every 2,000. */
async function createPayments(actor: ReturnType<typeof testActor>, made: number, count: number, log?: (line: string) => void) {
  const worker = async () => {
    while (made < count) {
      made++;
      await createPayment(actor, v.parse(CreatePaymentBody, paymentBody()));
      if (log && made % 2000 === 0) log(`history: ${made} of ${count} payments`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

export async function listPageAtHistory(history: number, log: (line: string) => void): Promise<HistoryPage> {
  const { merchantId, apiKey } = await newMerchant();
  const actor = testActor(merchantId);
  const started = performance.now();
  // the oldest payment is voided: a page filtered to `voided` has one match, at the far end of the list
  const oldest = await createPayment(actor, v.parse(CreatePaymentBody, paymentBody()));
  ok(await payments.void(apiKey, oldest.id));
  await createPayments(actor, 1, history, log);
  const seedSeconds = (performance.now() - started) / 1000;
  const list = (query: Record<string, string>) => payments.list(apiKey, query).then(ok);
  await list({ limit: '10' }); // warm: the API key's last_used touch
  const timed = async (query: Record<string, string>) => {
    const t = performance.now();
    let res: HttpResult | undefined;
    const calls = await record(async () => (res = await list(query)));
    return { calls, ms: performance.now() - t, found: (res!.body.data as unknown[]).length };
  };
  const page = await timed({ limit: '10' });
  const filteredPage = await timed({ limit: '10', status: 'succeeded', currency: 'usd' });
  const rarePage = await timed({ limit: '10', status: 'voided' });
  if (rarePage.found !== 1) throw new Error(`the voided page found ${rarePage.found} payments, 1 was voided`);
  const total = (await list({ limit: '1' })).body.total as number;
  if (total !== history) throw new Error(`the list counts ${total} payments, ${history} were made`);
  return {
    payments: history,
    seedSeconds,
    page: page.calls,
    filteredPage: filteredPage.calls,
    rarePage: rarePage.calls,
    ms: { page: page.ms, filteredPage: filteredPage.ms, rarePage: rarePage.ms },
  };
}

/**
 * The first page of a merchant whose payments were written as with PAYMENTS_PER_MINUTE=`limit`: its list over that
 * limit's shards, its counts over as many counter shards. The shards are recorded under keys of the bench's own, so
 * the other measures keep reading one shard of each.
 */
export async function listPageAtLimit(limit: number, history: number): Promise<{ listShards: number; page: Call[]; ms: number }> {
  const deployed = { lists: { ...writeShards }, counters: { ...counterShards } };
  Object.assign(writeShards, writeShardsFor(writeShardsOf(limit), { pk: `TABLE#bench-${Date.now()}`, sk: 'WRITE_SHARDS' }));
  Object.assign(counterShards, writeShardsFor(writeShardsOf(limit), { pk: `TABLE#bench-${Date.now()}`, sk: 'COUNTER_SHARDS' }));
  try {
    const { merchantId, apiKey } = await newMerchant();
    const actor = testActor(merchantId);
    await createPayments(actor, 0, history);
    const list = () => payments.list(apiKey, { limit: '10' }).then(ok);
    await list(); // warm: the API key's last_used touch, the shards record read
    const t = performance.now();
    const page = await record(list);
    const ms = performance.now() - t;
    return { listShards: writeShards.configured, page, ms };
  } finally {
    Object.assign(writeShards, deployed.lists);
    Object.assign(counterShards, deployed.counters);
  }
}
