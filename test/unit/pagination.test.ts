import { describe, expect, it } from 'vitest';
import { listPageAcross } from '../../shared/store/pagination.ts';

describe('list reads across partitions', () => {
  it('refuse a cursor together with a sort-key prefix, which one key condition cannot hold', async () => {
    // Prepare: a partition read by prefix, paged past a cursor
    const spec = { partition: { name: 'gsi1pk', value: 'MER#mer_1#EVT#0' }, sortKey: { name: 'gsi1sk', prefix: 'evt_' }, index: 'gsi1' as const };
    // Act + Assess: refused before any read, instead of reading past the prefix
    await expect(listPageAcross([spec], { limit: 10, starting_after: 'evt_01' })).rejects.toThrow('both a cursor bound and a sort-key prefix');
  });
});
