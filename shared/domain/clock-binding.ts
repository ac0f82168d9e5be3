import type { Owner } from '../model/targets.ts';
import * as testClocks from '../store/test-clocks.ts';
import { BadRequest } from '../model/errors.ts';

/** How a customer binds to a test clock (few per clock, as at Stripe), and the time of a bound customer's billing. */
export const MAX_CUSTOMERS_PER_CLOCK = 3;

/** A customer bound to a clock at its creation: the clock must be the owner's, ready, with room for one more. */
export async function bindToClock(owner: Owner, clockId: string, customerId: string): Promise<void> {
  const clock = owner.livemode ? undefined : await testClocks.getTestClock(owner, clockId);
  if (!clock) throw new BadRequest('resource_missing', 'test_clock', owner.livemode ? 'test clocks exist in test mode only' : 'no such test clock');
  if (!(await testClocks.bindCustomer(clock.id, customerId, MAX_CUSTOMERS_PER_CLOCK))) {
    throw new BadRequest(
      'parameter_invalid',
      'test_clock',
      `a test clock takes at most ${MAX_CUSTOMERS_PER_CLOCK} customers, and none while it advances`,
    );
  }
}

/** The clock's time, for what a request does to a customer bound to it (a subscription starts on the clock's day). */
export async function clockTimeOf(testClock: string | null | undefined): Promise<number | undefined> {
  const clock = testClock ? await testClocks.loadTestClock(testClock) : undefined;
  return clock && Date.parse(clock.frozen_time);
}
