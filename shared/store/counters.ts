import { TABLE, type TransactItem } from './client.ts';
import { counterKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { acrossShards, queryAll } from './pagination.ts';
import { counterShards } from './write-shards.ts';

/**
 * Write-sharded counters: each write ADDs to one cell of a random shard (`CNT#<owner>#<kind>#<shard>`), inside the
 * transaction of the change it counts, so a busy merchant spreads its writes over `counterShards` partitions
 * (write-shards.ts: one per 3,000 payments a minute the deployment allows).
 * Reads query every shard of a sort-key range and sum the cells that share a sort key.
 */
export type CounterKind = 'PAY' | 'REV' | 'BAL' | 'PAYN' | 'RCV';

/** A shard for a new counter write: the transaction that sends it awaits `counterShards.forWrite()` first (commit.ts). */
export const randomShard = (): number => Math.floor(Math.random() * counterShards.configured);

/** An ADD of `values` to one counter cell, for a TransactWrite; `set` adds plain attributes (e.g. index keys). */
export function counterAdd(
  owner: Owner,
  kind: CounterKind,
  sortKey: string,
  values: Record<string, number>,
  options: { shard?: number; set?: Record<string, unknown>; condition?: { expression: string; values: Record<string, unknown> } } = {},
): TransactItem {
  const names: Record<string, string> = {};
  const attributeValues: Record<string, unknown> = { ...options.condition?.values };
  const adds = Object.entries(values).map(([field, value], i) => {
    names[`#a${i}`] = field;
    attributeValues[`:a${i}`] = value;
    return `#a${i} :a${i}`;
  });
  const sets = Object.entries({ merchant_id: owner.merchant_id, livemode: owner.livemode, ...options.set }).map(([field, value], i) => {
    names[`#s${i}`] = field;
    attributeValues[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  return {
    Update: {
      TableName: TABLE,
      Key: counterKeys.cell(owner, kind, options.shard ?? randomShard(), sortKey),
      UpdateExpression: `ADD ${adds.join(', ')} SET ${sets.join(', ')}`,
      ConditionExpression: options.condition?.expression,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: attributeValues,
    },
  };
}

export interface CounterCell {
  shard: number;
  sk: string;
  values: Record<string, number>;
}

/** Every cell of every shard with a sort key in [from, to], unsummed (callers group by `sk`). */
export async function readCells(owner: Owner, kind: CounterKind, from: string, to: string): Promise<CounterCell[]> {
  return acrossShards(await counterShards.forRead(), async (shard) =>
    (
      await queryAll({
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': counterKeys.shard(owner, kind, shard), ':from': from, ':to': to },
      })
    ).map((item) => {
      const values: Record<string, number> = {};
      for (const [k, v] of Object.entries(item)) if (typeof v === 'number' && k !== 'expires_at') values[k] = v;
      return { shard, sk: String(item.sk), values };
    }),
  );
}

/** Sums cells by sort key. */
export function sumBySortKey(cells: readonly CounterCell[]): Map<string, Record<string, number>> {
  const sums = new Map<string, Record<string, number>>();
  for (const cell of cells) {
    const sum = sums.get(cell.sk) ?? {};
    for (const [k, v] of Object.entries(cell.values)) sum[k] = (sum[k] ?? 0) + v;
    sums.set(cell.sk, sum);
  }
  return sums;
}
