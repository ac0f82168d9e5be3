import { PROVIDERS, type ProviderName } from '../providers/types.ts';
import * as routingStats from '../store/routing-stats.ts';
import type { RecentStats } from '../store/routing-stats.ts';
import { clock } from '../model/clock.ts';
import type { Owner } from '../model/targets.ts';

/** The sliding window of recent authorizations that smart routing and risk read. */
export const STATS_WINDOW_MS = 15 * 60 * 1000;
/** A container re-reads a merchant's shared statistics at most this often; its own attempts count at once. */
const CACHE_MS = 5_000;

type Stats = RecentStats;

/** Smart routing's exploration draws; tests fix them like they fix the clock. */
export const chance = { random: (): number => Math.random() };
const cache = new Map<string, { readAt: number; stats: Stats }>();
const sequences = new Map<string, number>();

/** The cache's key of an owner: test and live traffic keep their statistics apart. */
const cacheKey = (owner: Owner) => `${owner.merchant_id}:${owner.livemode ? 'live' : 'test'}`;

export async function recentStats(owner: Owner): Promise<Stats> {
  const now = clock.now();
  const cached = cache.get(cacheKey(owner));
  if (cached && now - cached.readAt < CACHE_MS) return cached.stats;
  const stats = await routingStats.readStats(owner, now - STATS_WINDOW_MS);
  cache.set(cacheKey(owner), { readAt: now, stats });
  return stats;
}

/** The merchant's mean approved amount in this currency in the window; undefined without approvals. */
export function meanApprovedAmount(stats: Stats, currency: string): number | undefined {
  const volume = stats.currencies[currency];
  return volume && volume.approvals > 0 ? volume.approved_amount / volume.approvals : undefined;
}

/** Records one authorization attempt in the shared window and in this container's cached copy. */
export async function countAttempt(
  owner: Owner,
  target: { provider: ProviderName; connectorId: string | null },
  attempt: { approved: boolean; latencyMs: number; amount: number; currency: string },
) {
  const cached = cache.get(cacheKey(owner))?.stats;
  if (cached) {
    const counted = [
      cached.providers[target.provider],
      ...(target.connectorId ? [(cached.connectors[target.connectorId] ??= routingStats.emptyStats())] : []),
    ];
    for (const p of counted) {
      p.attempts += 1;
      p.approvals += attempt.approved ? 1 : 0;
      p.latency_sum += attempt.latencyMs;
    }
    const volume = (cached.currencies[attempt.currency] ??= { approvals: 0, approved_amount: 0 });
    volume.approvals += attempt.approved ? 1 : 0;
    volume.approved_amount += attempt.approved ? attempt.amount : 0;
  }
  await routingStats.recordAttempt(owner, target.provider, target.connectorId, attempt, clock.now(), STATS_WINDOW_MS * 2);
}

/**
 * Round robin's next turn: per container, so turns rotate without a shared hot key. A payment `take`s its turn;
 * a simulation only looks at it, so it predicts the turn the next payment gets.
 */
export function roundRobinTurn(merchantId: string, take: boolean): number {
  if (!sequences.has(merchantId)) sequences.set(merchantId, Math.floor(Math.random() * PROVIDERS.length));
  const n = sequences.get(merchantId)! + 1;
  if (take) sequences.set(merchantId, n);
  return n;
}
