import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { PROVIDERS, type ProviderName } from '../providers/types.ts';
import { db, TABLE, ttl } from './client.ts';
import { type Owner, ROUTING_STAT_SHARDS, routingStatKeys } from './keys.ts';
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

/** Counts one authorization attempt in the current minute's bucket of a random shard. */
export async function recordAttempt(
  owner: Owner,
  provider: ProviderName,
  connectorId: string | null,
  attempt: { approved: boolean; latencyMs: number; amount: number; currency: string },
  now: number,
  keepMs: number,
): Promise<void> {
  const bucket = now - (now % STAT_BUCKET_MS);
  const shard = Math.floor(Math.random() * ROUTING_STAT_SHARDS);
  await db.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: routingStatKeys.bucket(owner, shard, bucket, provider, attempt.currency, connectorId),
      UpdateExpression:
        'ADD attempts :one, approvals :approved, latency_sum :latency, approved_amount :amount SET expires_at = if_not_exists(expires_at, :expires)',
      ExpressionAttributeValues: {
        ':one': 1,
        ':approved': attempt.approved ? 1 : 0,
        ':latency': attempt.latencyMs,
        ':amount': attempt.approved ? attempt.amount : 0,
        ':expires': ttl(bucket + keepMs),
      },
    }),
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
  for (const item of items) {
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
