import * as v from 'valibot';
import { idPattern } from '../model/ids.ts';
import { listQuery, Name } from './common.ts';

/** An ISO 8601 UTC timestamp (`2027-01-31T00:00:00Z`): a test clock's time. */
const FrozenTime = v.pipe(
  v.string(),
  v.isoTimestamp('an ISO 8601 timestamp'),
  v.check((t) => /(Z|[+-]00:?00)$/.test(t), 'a time in UTC (ending in Z)'),
  v.examples(['2027-01-31T00:00:00Z']),
);

export const CreateTestClockBody = v.object({ frozen_time: FrozenTime, name: v.optional(v.pipe(Name, v.examples(['Renewal dunning']))) });

export const AdvanceTestClockBody = v.object({ frozen_time: FrozenTime });

export const ListTestClocksQuery = listQuery('testClock');

/** What the clocks queue carries: the clock to advance (to its `target_time`). */
export const TestClockMessage = v.object({ clock_id: v.pipe(v.string(), v.regex(idPattern('testClock'), 'a test clock id')) });
export type TestClockMessage = v.InferOutput<typeof TestClockMessage>;
