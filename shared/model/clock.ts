import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The one source of "now". Tests move time by setting `clock.now`; production never touches it.
 *
 * Two kinds of now: `clock.now()` is the machine's time (leases, expiries, rate windows, when events are made and
 * delivered); `businessNow()` is the time the money and billing rules see (timestamps of records, capture days,
 * billing and due dates). They are the same, except while a test clock advances: then its work runs inside
 * `atBusinessTime`, at the clock's time, through the same code the schedules run.
 */
export const clock = {
  now: (): number => Date.now(),
};

const businessTime = new AsyncLocalStorage<number>();

export const businessNow = (): number => businessTime.getStore() ?? clock.now();

/** Runs `work` with business time frozen at `at` (a test clock's time). */
export const atBusinessTime = <T>(at: number, work: () => Promise<T>): Promise<T> => businessTime.run(at, work);

export const isoNow = (): string => new Date(businessNow()).toISOString();
