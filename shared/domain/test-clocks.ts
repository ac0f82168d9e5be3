import * as v from 'valibot';
import { config } from '../config.ts';
import { logger } from '../logger.ts';
import { sendJson } from '../queues-client.ts';
import type { AdvanceTestClockBody, CreateTestClockBody } from '../schemas/test-clocks.ts';
import { TestClockMessage } from '../schemas/test-clocks.ts';
import type { Owner } from '../store/keys.ts';
import type { PageQuery } from '../store/pagination.ts';
import { dueOnClock, nextDueOnClock } from '../store/subscriptions.ts';
import {
  beginAdvance,
  deleteClockObjects,
  deleteTestClock as deleteRecord,
  finishAdvance,
  getTestClock as getRecord,
  listTestClocks as listRecords,
  loadTestClock,
  putTestClock,
  recordAdvance,
  stalledAdvances,
  type TestClockRecord,
} from '../store/test-clocks.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { addDays, utcDate } from './billing-dates.ts';
import { atBusinessTime, clock as machineClock } from './clock.ts';
import { BadRequest, InvalidState, NotFound } from './errors.ts';
import { newEvent } from './events.ts';
import { freshOrigin, idFor, type Origin } from './ids.ts';
import { renewalMessageOf, renewPeriod } from './renewals.ts';
import { nextSettlementDay, runSettlementDay } from './settlements.ts';

/**
 * Test clocks (DECISIONS "Test clocks"): a customer bound to a clock has its billing follow the clock's time, and an
 * advance runs every piece of work due up to the new time, in time order, through the code the schedules run: the
 * renewals (and their retries) of the clock's subscriptions, then the daily balance and settlement job of the
 * merchant's test mode, day by day. It runs in the clocks queue's worker, so the API answers `advancing` at once; it
 * records how far it got after each day, so an advance that crashed resumes there when its message comes again.
 */
const MAX_YEARS_AHEAD = 5;

/** The send to the clocks queue: a seam tests replace to run the advance where they want. */
export const clocksQueue = {
  send: (messages: TestClockMessage[]): Promise<void> => sendJson(config.CLOCKS_QUEUE_URL, 'clocks', messages),
};

const view = (c: TestClockRecord) => ({
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
const machineIso = () => new Date(machineClock.now()).toISOString();

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
  const existing = await loadTestClock(clock.id);
  if (!existing) await putTestClock(clock);
  return view(existing ?? clock);
}

export async function listTestClocks(merchant: Merchant, page: PageQuery) {
  const result = await listRecords(testModeOnly(merchant), page);
  return { object: 'list' as const, data: result.data.map(view), has_more: result.has_more };
}

async function load(merchant: Merchant, clockId: string): Promise<TestClockRecord> {
  const clock = await getRecord(testModeOnly(merchant), clockId);
  if (!clock) throw new NotFound();
  return clock;
}

export const getTestClock = async (merchant: Merchant, clockId: string) => view(await load(merchant, clockId));

/** Starts moving the clock forward to `frozen_time`: answers `advancing` at once; the clocks worker does the work. */
export async function advanceTestClock(merchant: Merchant, clockId: string, input: v.InferOutput<typeof AdvanceTestClockBody>) {
  const clock = await load(merchant, clockId);
  const target = canonical(input.frozen_time);
  if (clock.status === 'advancing') throw new InvalidState(undefined, 'the test clock is advancing; wait for test_clock.ready');
  if (target < clock.frozen_time)
    throw new BadRequest('parameter_invalid', 'frozen_time', `a test clock only moves forward, from ${clock.frozen_time}`);
  const begun = await beginAdvance(clock, target, machineIso());
  if (!begun) throw new InvalidState(undefined, 'the test clock is advancing; wait for test_clock.ready');
  await clocksQueue.send([{ clock_id: clock.id }]);
  return view(begun);
}

/** Deletes the clock and what is bound to it: its customers, their subscriptions and invoices. */
export async function deleteTestClock(merchant: Merchant, clockId: string) {
  const clock = await load(merchant, clockId);
  await deleteClockObjects(clock, clock.customer_ids);
  if (!(await deleteRecord(clock.id))) throw new NotFound();
  return { id: clock.id, object: 'test_clock' as const, deleted: true as const };
}

/** How long an advance may go without recording progress before the reconciler sends it again. */
const STALLED_AFTER_MS = 10 * 60_000;

/** Sends again the advances that stopped moving (the reconciler's schedule): each resumes where it got to. */
export async function resumeStalledAdvances(now: number): Promise<number> {
  const stalled = await stalledAdvances(new Date(now - STALLED_AFTER_MS).toISOString());
  if (stalled.length) await clocksQueue.send(stalled.map((clock_id) => ({ clock_id })));
  return stalled.length;
}

export const parseTestClockMessage = (body: string): TestClockMessage => v.parse(TestClockMessage, JSON.parse(body));

/** The clocks worker: runs an advance to its target (or from where a crashed run got to). */
export async function runAdvance({ clock_id }: TestClockMessage): Promise<'ready' | 'skipped'> {
  const clock = await loadTestClock(clock_id);
  if (!clock || clock.status !== 'advancing' || !clock.target_time) return 'skipped';
  const owner: Owner = { merchant_id: clock.merchant_id, livemode: false };
  const target = Date.parse(clock.target_time);
  let now = Date.parse(clock.frozen_time);
  let day = utcDate(now);
  for (;;) {
    const next = await nextWorkDay(clock.id, owner, day);
    if (!next || next > utcDate(target)) break;
    day = next;
    now = Math.max(now, Date.parse(`${day}T00:00:00.000Z`));
    await atBusinessTime(now, () => runDay(clock.id, owner, day));
    await recordAdvance(clock.id, new Date(now).toISOString(), machineIso());
    day = addDays(day, 1);
  }
  const ready = { ...clock, status: 'ready' as const, frozen_time: clock.target_time, target_time: clock.target_time };
  const event = newEvent(owner, 'test_clock.ready', view(ready));
  await finishAdvance(ready, machineIso(), event);
  logger.info('Test clock advanced', { clock_id, frozen_time: clock.target_time });
  return 'ready';
}

/** The first day on or after `from` with due work for the clock: a renewal or retry, or the daily settlement job. */
async function nextWorkDay(clockId: string, owner: Owner, from: string): Promise<string | undefined> {
  const [renewal, settlement] = await Promise.all([nextDueOnClock(clockId), nextSettlementDay(owner, from)]);
  return [renewal && (renewal < from ? from : renewal), settlement].filter((d): d is string => d !== undefined).sort()[0];
}

/** One day of the clock: its due renewals and retries (a renewal may make another due: run until none is), then the daily job. */
async function runDay(clockId: string, owner: Owner, day: string): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const messages = (await dueOnClock(clockId, day)).flatMap((s) => renewalMessageOf(s, day) ?? []);
    if (messages.length === 0) break;
    for (const message of messages) await renewPeriod(message);
  }
  await runSettlementDay(owner, day);
}
