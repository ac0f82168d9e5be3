import * as v from 'valibot';
import { Id, list, Timestamp } from './common.ts';

export const TestClock = v.object({
  id: Id('testClock'),
  object: v.literal('test_clock'),
  name: v.nullable(v.string()),
  frozen_time: v.pipe(Timestamp, v.description("the clock's time: its customers' renewals, retries, due dates and settlements follow it")),
  status: v.pipe(v.picklist(['ready', 'advancing']), v.description('advancing while an advance runs the work due up to its new time')),
  created_at: Timestamp,
  livemode: v.pipe(v.literal(false), v.description('test clocks exist in test mode only')),
});

export const TestClockList = list(TestClock);

export const DeletedTestClock = v.object({ id: Id('testClock'), object: v.literal('test_clock'), deleted: v.literal(true) });
