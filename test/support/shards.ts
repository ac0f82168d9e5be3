import { randomUUID } from 'node:crypto';
import type { Key } from '../../shared/store/keys.ts';
import { counterShards, type WriteShards } from '../../shared/store/write-shards.ts';

/** A record of shards of a test's own (write-shards.ts), so no other test reads more shards because of it. */
export const shardsRecordKey = (): Key => ({ pk: `TABLE#test-${randomUUID()}`, sk: 'SHARDS' });

/** Counters written and read as a deployment with `shards` would, while `act` runs. */
export async function withCounterShards<T>(shards: WriteShards, act: () => Promise<T>): Promise<T> {
  const deployed = { ...counterShards };
  Object.assign(counterShards, shards);
  try {
    return await act();
  } finally {
    Object.assign(counterShards, deployed);
  }
}
