/**
 * A list page of a merchant with a long history: HISTORY payments created through the use case itself (payments,
 * list index entries, count cells as a real create writes them; the HTTP rate limit is not in the way), then the
 * first page of `GET /api/payments/list` recorded, with and without a filter.
 */
import * as v from 'valibot';
import { createPayment } from '../shared/domain/payments.ts';
import { CreatePaymentBody } from '../shared/schemas/payments.ts';
import { type HttpResult } from '../test/support/lambda.ts';
import { newMerchant, testActor } from '../test/support/merchant.ts';
import { paymentBody, payments } from '../test/support/payments.ts';
import { type Call, record } from './dynamo.ts';

const CONCURRENCY = 16;

export interface HistoryPage {
  payments: number;
  seedSeconds: number;
  page: Call[];
  filteredPage: Call[];
}

const ok = (res: HttpResult): HttpResult => {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${res.rawBody}`);
  return res;
};

export async function listPageAtHistory(history: number, log: (line: string) => void): Promise<HistoryPage> {
  const { merchantId, apiKey } = await newMerchant();
  const actor = testActor(merchantId);
  const started = performance.now();
  let made = 0;
  const worker = async () => {
    while (made < history) {
      made++;
      await createPayment(actor, v.parse(CreatePaymentBody, paymentBody()));
      if (made % 2000 === 0) log(`history: ${made} of ${history} payments`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seedSeconds = (performance.now() - started) / 1000;
  const list = (query: Record<string, string>) => payments.list(apiKey, query).then(ok);
  await list({ limit: '10' }); // warm: the API key's last_used touch
  const page = await record(() => list({ limit: '10' }));
  const filteredPage = await record(() => list({ limit: '10', status: 'succeeded', currency: 'usd' }));
  const total = (await list({ limit: '1' })).body.total as number;
  if (total !== history) throw new Error(`the list counts ${total} payments, ${history} were made`);
  return { payments: history, seedSeconds, page, filteredPage };
}
