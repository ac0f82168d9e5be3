import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { PROVIDERS, type ProviderName } from '../providers/types.ts';
import { db, TABLE, ttl } from './client.ts';
import { ROUTING_STAT_SHARDS, routingStatKeys, scopeOf } from './keys.ts';
import type { Owner } from '../model/targets.ts';
import { acrossShards } from './pagination.ts';

export const STAT_BUCKET_MS = 60_000;

export interface ProviderStats {
  attempts: number;
  approvals: number;
  latency_sum: number;
}

/** Approved volume per currency, for risk's "amount vs the merchant's usual" signal. */
export interface CurrencyVolume {
  approvals: number;
  approved_amount: number;
}

export interface RecentStats {
  /** per provider, over all its accounts and its sandbox */
  providers: Record<ProviderName, ProviderStats>;
  /** per connector account (`con_…`) */
  connectors: Record<string, ProviderStats>;
  currencies: Record<string, CurrencyVolume>;
}

export const emptyStats = (): ProviderStats => ({ attempts: 0, approvals: 0, latency_sum: 0 });

/** A container writes the attempts it counted at most this often, summed per bucket: one write for many under load. */
export const statsFlush = { everyMs: 1_000 };

/** Sums not yet written, shaped as the bucket item they will add to. */
interface PendingCount {
  owner: Owner;
  sk: string;
  attempts: number;
  approvals: number;
  latency_sum: number;
  approved_amount: number;
  expiresAt: number;
}
/** this container's counts not yet written, by owner and bucket; reads add them, so they count here at once */
const pending = new Map<string, PendingCount>();
let lastFlushAt = Number.NEGATIVE_INFINITY;

/**
 * Counts one authorization attempt in the current minute's bucket. The first attempt after a quiet second is written
 * at once with whatever this container counted before it; the others wait for it, counted in this container's reads
 * at once and in the others' once written: at this container's next attempt a second or more later. Statistics are
 * best effort: a container that stops (or fails a write) loses what it held, at most a second of its attempts.
 */
export async function recordAttempt(
  owner: Owner,
  provider: ProviderName,
  connectorId: string | null,
  attempt: { approved: boolean; latencyMs: number; amount: number; currency: string },
  now: number,
  keepMs: number,
): Promise<void> {
  const bucket = now - (now % STAT_BUCKET_MS);
  const sk = routingStatKeys.sortKey(bucket, provider, attempt.currency, connectorId);
  const held = `${scopeOf(owner)}#${sk}`;
  const count = pending.get(held) ?? {
    owner: { merchant_id: owner.merchant_id, livemode: owner.livemode },
    sk,
    attempts: 0,
    approvals: 0,
    latency_sum: 0,
    approved_amount: 0,
    expiresAt: bucket + keepMs,
  };
  count.attempts += 1;
  count.approvals += attempt.approved ? 1 : 0;
  count.latency_sum += attempt.latencyMs;
  count.approved_amount += attempt.approved ? attempt.amount : 0;
  pending.set(held, count);
  if (performance.now() - lastFlushAt >= statsFlush.everyMs) await flushAttempts();
}

/** Writes every count this container holds, each to a random shard. */
export async function flushAttempts(): Promise<void> {
  lastFlushAt = performance.now();
  const due = [...pending.values()];
  pending.clear();
  await Promise.all(
    due.map((count) =>
      db.send(
        new UpdateCommand({
          TableName: TABLE,
          Key: routingStatKeys.bucket(count.owner, Math.floor(Math.random() * ROUTING_STAT_SHARDS), count.sk),
          UpdateExpression:
            'ADD attempts :attempts, approvals :approvals, latency_sum :latency, approved_amount :amount SET expires_at = if_not_exists(expires_at, :expires)',
          ExpressionAttributeValues: {
            ':attempts': count.attempts,
            ':approvals': count.approvals,
            ':latency': count.latency_sum,
            ':amount': count.approved_amount,
            ':expires': ttl(count.expiresAt),
          },
        }),
      ),
    ),
  );
}

/** Sums every shard's buckets since `since` per provider and per currency: one Query per shard, in parallel. */
export async function readStats(owner: Owner, since: number): Promise<RecentStats> {
  const totals = Object.fromEntries(PROVIDERS.map((p) => [p, emptyStats()])) as Record<ProviderName, ProviderStats>;
  const currencies: Record<string, CurrencyVolume> = {};
  const connectors: Record<string, ProviderStats> = {};
  const from = routingStatKeys.since(since - (since % STAT_BUCKET_MS));
  // one page per shard: a shard holds at most a few hundred buckets of the window
  const items = await acrossShards(ROUTING_STAT_SHARDS, async (shard) => {
    const out = await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk AND sk >= :from',
        ExpressionAttributeValues: { ':pk': routingStatKeys.shard(owner, shard), ':from': from },
      }),
    );
    return out.Items ?? [];
  });
  // what this container holds, by the query's own condition
  const held = [...pending.values()].filter((count) => scopeOf(count.owner) === scopeOf(owner) && count.sk >= from);
  for (const item of [...items, ...held]) {
    const { provider, currency, connectorId } = routingStatKeys.parse(String(item.sk));
    const total = totals[provider as ProviderName];
    if (!total) continue;
    for (const stats of connectorId ? [total, (connectors[connectorId] ??= emptyStats())] : [total]) {
      stats.attempts += Number(item.attempts ?? 0);
      stats.approvals += Number(item.approvals ?? 0);
      stats.latency_sum += Number(item.latency_sum ?? 0);
    }
    const volume = (currencies[currency] ??= { approvals: 0, approved_amount: 0 });
    volume.approvals += Number(item.approvals ?? 0);
    volume.approved_amount += Number(item.approved_amount ?? 0);
  }
  return { providers: totals, connectors, currencies };
}
