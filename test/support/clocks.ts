import { handler as createCustomer } from '../../functions/customers/create.ts';
import { handler as advanceClock } from '../../functions/test-clocks/advance.ts';
import { handler as createClock } from '../../functions/test-clocks/create.ts';
import { handler as advanceWorker } from '../../functions/workers/test-clock-advance.ts';
import { clocksQueue } from '../../shared/domain/test-clocks.ts';
import type { TestClockMessage } from '../../shared/schemas/test-clocks.ts';
import { apiEvent, fakeContext, invokeHttp, queueEvent } from './lambda.ts';
import { bearer } from './merchant.ts';

/**
 * Test clocks for tests: a clock with a customer bound to it, and an advance run to its end by the clocks worker (the
 * advance's message is kept from the queue and handed to the worker as Lambda would, so nothing waits).
 */
const queued: TestClockMessage[] = [];
clocksQueue.send = async (messages) => {
  queued.push(...messages);
};

/** A clock at `frozenTime` and a customer on it. */
export async function customerOnClock(key: string, frozenTime: string) {
  const clock = await invokeHttp(
    createClock,
    apiEvent({ method: 'POST', path: '/api/test_clocks', headers: bearer(key), body: { frozen_time: frozenTime } }),
  );
  if (clock.status !== 200) throw new Error(`clock not created: ${clock.rawBody}`);
  const email = `clock-${clock.body.id}@example.com`;
  const customer = await invokeHttp(
    createCustomer,
    apiEvent({ method: 'POST', path: '/api/customers', headers: bearer(key), body: { email, test_clock: clock.body.id } }),
  );
  if (customer.status !== 200) throw new Error(`customer not created: ${customer.rawBody}`);
  return { clockId: clock.body.id as string, customerId: customer.body.id as string };
}

/** Advances the clock to `frozenTime` and runs the advance through the clocks worker. */
export async function advanceClockTo(key: string, clockId: string, frozenTime: string): Promise<void> {
  const res = await invokeHttp(
    advanceClock,
    apiEvent({ method: 'POST', path: `/api/test_clocks/${clockId}/advance`, headers: bearer(key), body: { frozen_time: frozenTime } }),
  );
  if (res.status !== 200) throw new Error(`clock not advanced: ${res.rawBody}`);
  for (const message of queued.splice(0)) {
    const result = await advanceWorker(queueEvent([message], 'clocks'), fakeContext({ name: 'workers/test-clock-advance', timeout: 300 }));
    if (result.batchItemFailures.length) throw new Error(`the advance failed: ${JSON.stringify(result)}`);
  }
}
