import * as v from 'valibot';
import { config } from '../config.ts';
import { sendJson } from '../queues-client.ts';
import type { AdvanceTestClockBody, CreateTestClockBody, TestClockMessage } from '../schemas/test-clocks.ts';
import type { Owner } from '../model/targets.ts';
import type { PageQuery } from '../store/pagination.ts';
import * as testClocks from '../store/test-clocks.ts';
import type { TestClockRecord } from '../store/test-clocks.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { clock as machineClock } from '../model/clock.ts';
import { BadRequest, InvalidState, NotFound } from '../model/errors.ts';
import { freshOrigin, idFor, type Origin } from '../model/ids.ts';
import { deleteCustomersPaymentMethods } from './payment-method-deletion.ts';
import { allows, TEST_CLOCK } from '../model/state-machines.ts';

/**
 * Test clocks (docs/api.md "Test clocks"): a customer bound to a clock has its billing follow the clock's time. An
 * advance answers `advancing` at once and the clocks queue's worker runs it (test-clock-advance.ts), so the API's
 * functions do not load the renewal and settlement code.
 */
const MAX_YEARS_AHEAD = 5;

/** The send to the clocks queue: a seam tests replace to run the advance where they want. */
export const clocksQueue = {
  send: (messages: TestClockMessage[]): Promise<void> => sendJson(config.CLOCKS_QUEUE_URL, 'clocks', messages),
};

/** A clock as the API shows it (and its `test_clock.ready` event). */
export const testClockView = (c: TestClockRecord) => ({
  id: c.id,
  object: 'test_clock' as const,
  name: c.name,
  frozen_time: c.frozen_time,
  status: c.status,
  created_at: c.created_at,
  livemode: false as const,
});

const testModeOnly = (merchant: Merchant): Owner => {
  if (merchant.livemode) throw new BadRequest('livemode_not_allowed', undefined, 'test clocks exist in test mode only');
  return ownerOf(merchant);
};

const canonical = (iso: string) => new Date(iso).toISOString();
/** When the machine did something to a clock (not the clock's own time). */
export const machineIso = () => new Date(machineClock.now()).toISOString();

export async function createTestClock(merchant: Merchant, input: v.InferOutput<typeof CreateTestClockBody>, origin: Origin = freshOrigin()) {
  const owner = testModeOnly(merchant);
  const frozen = canonical(input.frozen_time);
  const latest = new Date(origin.at);
  latest.setUTCFullYear(latest.getUTCFullYear() + MAX_YEARS_AHEAD);
  if (Date.parse(frozen) > latest.getTime())
    throw new BadRequest('parameter_invalid', 'frozen_time', `at most ${MAX_YEARS_AHEAD} years ahead of now`);
  const at = new Date(origin.at).toISOString();
  const clock: TestClockRecord = {
    id: idFor('testClock', origin),
    ...owner,
    name: input.name ?? null,
    frozen_time: frozen,
    status: 'ready',
    target_time: null,
    customer_ids: [],
    created_at: at,
    updated_at: at,
  };
  // a retried request (same origin) finds the clock its first run stored
  const existing =
    (await testClocks.loadTestClock(clock.id)) ?? ((await testClocks.putTestClock(clock)) ? clock : await testClocks.loadTestClock(clock.id));
  if (!existing) throw new Error(`Test clock ${clock.id} refused, and no clock is stored under its id`);
  return testClockView(existing);
}

export async function listTestClocks(merchant: Merchant, page: PageQuery) {
  const result = await testClocks.listTestClocks(testModeOnly(merchant), page);
  return { object: 'list' as const, data: result.data.map(testClockView), has_more: result.has_more };
}

async function load(merchant: Merchant, clockId: string): Promise<TestClockRecord> {
  const clock = await testClocks.getTestClock(testModeOnly(merchant), clockId);
  if (!clock) throw new NotFound();
  return clock;
}

export const getTestClock = async (merchant: Merchant, clockId: string) => testClockView(await load(merchant, clockId));

/** Starts moving the clock forward to `frozen_time`: answers `advancing` at once; the clocks worker does the work. */
export async function advanceTestClock(merchant: Merchant, clockId: string, input: v.InferOutput<typeof AdvanceTestClockBody>) {
  const clock = await load(merchant, clockId);
  const target = canonical(input.frozen_time);
  if (!allows(TEST_CLOCK, 'advance', clock.status)) throw new InvalidState(undefined, 'the test clock is advancing; wait for test_clock.ready');
  if (target < clock.frozen_time)
    throw new BadRequest('parameter_invalid', 'frozen_time', `a test clock only moves forward, from ${clock.frozen_time}`);
  const begun = await testClocks.beginAdvance(clock, TEST_CLOCK.advance, target, machineIso());
  if (!begun) throw new InvalidState(undefined, 'the test clock is advancing; wait for test_clock.ready');
  await clocksQueue.send([{ clock_id: clock.id }]);
  return testClockView(begun);
}

/** Deletes the clock and what is bound to it: its customers, their payment methods, subscriptions and invoices. */
export async function deleteTestClock(merchant: Merchant, clockId: string) {
  const clock = await load(merchant, clockId);
  for (const customerId of clock.customer_ids) await deleteCustomersPaymentMethods(merchant, customerId);
  await testClocks.deleteClockObjects(clock, clock.customer_ids);
  if (!(await testClocks.deleteTestClock(clock.id))) throw new NotFound();
  return { id: clock.id, object: 'test_clock' as const, deleted: true as const };
}

/** How long an advance may go without recording progress before the reconciler sends it again. */
const STALLED_AFTER_MS = 10 * 60_000;

/** Sends again the advances that stopped moving (the reconciler's schedule): each resumes where it got to. */
export async function resumeStalledAdvances(now: number): Promise<number> {
  const stalled = await testClocks.stalledAdvances(new Date(now - STALLED_AFTER_MS).toISOString());
  if (stalled.length) await clocksQueue.send(stalled.map((clock_id) => ({ clock_id })));
  return stalled.length;
}
