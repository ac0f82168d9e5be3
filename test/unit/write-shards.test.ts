import { describe, expect, it } from 'vitest';
import { counterKeys, writeShardsOf } from '../../shared/store/keys.ts';

describe('write shards', () => {
  it('gives one shard up to 3,000 payments a minute and one more per 3,000 above', () => {
    expect([100, 3_000, 3_001, 60_000].map(writeShardsOf)).toEqual([1, 1, 2, 20]);
  });

  it("spreads a merchant's balance cells over every partition of the balance index by their counter shard", () => {
    const owner = { merchant_id: 'mer_01jdxq3m5n6p7r8s9t0v1w2x3y', livemode: true };
    const partitions = Array.from({ length: 20 }, (_, shard) => counterKeys.balanceIndex(owner, 'USD#available', shard).gsi2pk);
    expect(new Set(partitions).size).toBe(10);
  });
});
