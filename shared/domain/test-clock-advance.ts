import * as v from 'valibot';
import { logger } from '../logger.ts';
import { TestClockMessage } from '../schemas/test-clocks.ts';
import type { Owner } from '../model/targets.ts';
import * as subscriptions from '../store/subscriptions.ts';
import * as testClocks from '../store/test-clocks.ts';
import { addDays, utcDate } from '../model/billing-dates.ts';
import { atBusinessTime } from '../model/clock.ts';
import { newEvent } from '../model/events.ts';
import { renewalMessageOf, renewPeriod } from './renewals.ts';
import { nextSettlementDay, runSettlementDay } from './settlements.ts';
import { allows, TEST_CLOCK } from '../model/state-machines.ts';
import { machineIso, testClockView } from './test-clocks.ts';

/**
 * The clocks worker's advance: every piece of work due up to the clock's new time, in time order, through the code the
 * schedules run: the renewals (and their retries) of the clock's subscriptions, then the daily balance and settlement
 * job of the merchant's test mode, day by day. It records how far it got after each day, so an advance that crashed
 * resumes there when its message comes again.
 */

/** A message of the clocks queue, checked by its schema. */
export const parseTestClockMessage = (body: string): TestClockMessage => v.parse(TestClockMessage, JSON.parse(body));

/** The clocks worker: runs an advance to its target (or from where a crashed run got to). */
export async function runAdvance({ clock_id }: TestClockMessage): Promise<'ready' | 'skipped'> {
  const clock = await testClocks.loadTestClock(clock_id);
  if (!clock || !allows(TEST_CLOCK, 'finish', clock.status) || !clock.target_time) return 'skipped';
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
    await testClocks.recordAdvance(clock.id, new Date(now).toISOString(), machineIso());
    day = addDays(day, 1);
  }
  const finish = TEST_CLOCK.finish;
  const ready = { ...clock, status: finish.to, frozen_time: clock.target_time, target_time: clock.target_time };
  const event = newEvent(owner, finish.event, testClockView(ready));
  await testClocks.finishAdvance(ready, finish, machineIso(), event);
  logger.info('Test clock advanced', { clock_id, frozen_time: clock.target_time });
  return 'ready';
}

/** The first day on or after `from` with due work for the clock: a renewal or retry, or the daily settlement job. */
async function nextWorkDay(clockId: string, owner: Owner, from: string): Promise<string | undefined> {
  const [renewal, settlement] = await Promise.all([subscriptions.nextDueOnClock(clockId), nextSettlementDay(owner, from)]);
  return [renewal && (renewal < from ? from : renewal), settlement].filter((d): d is string => d !== undefined).sort()[0];
}

/** One day of the clock: its due renewals and retries (a renewal may make another due: run until none is), then the daily job. */
async function runDay(clockId: string, owner: Owner, day: string): Promise<void> {
  for (let round = 0; round < 10; round++) {
    const messages = (await subscriptions.dueOnClock(clockId, day)).flatMap((s) => renewalMessageOf(s, day) ?? []);
    if (messages.length === 0) break;
    for (const message of messages) await renewPeriod(message);
  }
  await runSettlementDay(owner, day);
}
