import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { db, TABLE } from '../../shared/store/client.ts';
import { ROUTING_STAT_SHARDS, routingStatKeys } from '../../shared/store/keys.ts';
import type { Owner } from '../../shared/model/targets.ts';
import { flushAttempts, readStats, recordAttempt, statsFlush } from '../../shared/store/routing-stats.ts';
import { watchingDb } from '../support/db-calls.ts';

const WINDOW_MS = 15 * 60_000;
const approved = { approved: true, latencyMs: 100, amount: 2500, currency: 'USD' };
const declined = { ...approved, approved: false };

/** The attempts the table holds for `owner`, over every shard. */
async function attemptsInTable(owner: Owner): Promise<number> {
  let attempts = 0;
  for (let shard = 0; shard < ROUTING_STAT_SHARDS; shard++) {
    const out = await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': routingStatKeys.shard(owner, shard) },
      }),
    );
    for (const item of out.Items ?? []) attempts += Number(item.attempts);
  }
  return attempts;
}

/** Runs `act` and counts the routing-statistics writes it sends. */
async function statWritesBy(act: () => Promise<unknown>): Promise<number> {
  let writes = 0;
  await watchingDb(({ command, input }) => {
    const pk = (input.Key as { pk?: string } | undefined)?.pk;
    if (command === 'UpdateItemCommand' && pk?.startsWith('RSTAT#')) writes++;
  }, act);
  return writes;
}

describe("a container's routing statistics", () => {
  const everyMs = statsFlush.everyMs;
  afterEach(() => {
    statsFlush.everyMs = everyMs;
  });

  it('writes a burst of attempts as one sum, and counts them in its reads before and after, never twice', async () => {
    // Prepare: a merchant of its own; the container wrote what it held just now, and writes again only in a minute
    const owner: Owner = { merchant_id: `mer_${randomUUID()}`, livemode: false };
    const now = Date.now();
    await flushAttempts();
    statsFlush.everyMs = 60_000;
    // Act: four attempts at stripe in a burst, beside one in the same merchant's live mode and one of another merchant,
    // and one too old for the window
    const writes = await statWritesBy(async () => {
      for (const attempt of [approved, approved, approved, declined]) await recordAttempt(owner, 'stripe', null, attempt, now, WINDOW_MS * 2);
      await recordAttempt({ ...owner, livemode: true }, 'stripe', null, approved, now, WINDOW_MS * 2);
      await recordAttempt({ merchant_id: `mer_${randomUUID()}`, livemode: false }, 'stripe', null, approved, now, WINDOW_MS * 2);
      await recordAttempt(owner, 'stripe', null, approved, now - WINDOW_MS - 60_000, WINDOW_MS * 2);
    });
    const held = await readStats(owner, now - WINDOW_MS);
    const heldInTable = await attemptsInTable(owner);
    const flushWrites = await statWritesBy(flushAttempts);
    const written = await readStats(owner, now - WINDOW_MS);
    // Assess: none written during the burst, yet counted; then one write of the sum, counted once
    expect(writes).toBe(0);
    expect(held.providers.stripe).toEqual({ attempts: 4, approvals: 3, latency_sum: 400 });
    expect(held.currencies.USD).toEqual({ approvals: 3, approved_amount: 7500 });
    expect(heldInTable).toBe(0);
    expect(flushWrites).toBe(4);
    expect(await attemptsInTable(owner)).toBe(5);
    expect(written.providers.stripe).toEqual(held.providers.stripe);
    expect(written.currencies).toEqual(held.currencies);
  });

  it('writes an attempt at once when the container wrote none for a while', async () => {
    // Prepare
    const owner: Owner = { merchant_id: `mer_${randomUUID()}`, livemode: false };
    statsFlush.everyMs = 0;
    // Act
    const writes = await statWritesBy(() => recordAttempt(owner, 'adyen', 'con_1', approved, Date.now(), WINDOW_MS * 2));
    // Assess
    expect(writes).toBe(1);
    expect(await attemptsInTable(owner)).toBe(1);
    expect((await readStats(owner, Date.now() - WINDOW_MS)).connectors.con_1).toEqual({ attempts: 1, approvals: 1, latency_sum: 100 });
  });
});
