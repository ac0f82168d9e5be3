/** The cost model and the scale-on-paper model, from measured figures and the key design. */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  API_KEY_HASH_COPIES,
  EVENT_LIST_SHARDS,
  LEASE_SHARDS,
  ROUTING_COPIES,
  ROUTING_STAT_SHARDS,
  windowShards,
  writeShardsOf,
} from '../shared/store/keys.ts';
import type { Call } from './dynamo.ts';

/** AWS list prices, us-east-1, on-demand (USD). */
export const PRICES = {
  source:
    'AWS list prices, us-east-1, as quoted in issue 7 (aws.amazon.com/api-gateway/pricing, /lambda/pricing, /dynamodb/pricing/on-demand); not fetched by the benchmark',
  asOf: '2026-11-22',
  apiGatewayRestPerMillionRequests: 3.5,
  lambdaArm64PerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  dynamoDbPerMillionWriteRequestUnits: 0.625,
  dynamoDbPerMillionReadRequestUnits: 0.125,
};

/** Dollars per million creates: one REST API request, one Lambda invocation of `durationMs`, its DynamoDB units. */
export function costPerMillionCreates(m: { memoryMb: number; durationMs: number; wcu: number; rcu: number }) {
  const apiGateway = PRICES.apiGatewayRestPerMillionRequests;
  const lambdaRequests = PRICES.lambdaPerMillionRequests;
  // Lambda bills duration by the millisecond, rounded up
  const lambdaDuration = (m.memoryMb / 1024) * (Math.ceil(m.durationMs) / 1000) * PRICES.lambdaArm64PerGbSecond * 1e6;
  const dynamoDbWrites = m.wcu * PRICES.dynamoDbPerMillionWriteRequestUnits;
  const dynamoDbReads = m.rcu * PRICES.dynamoDbPerMillionReadRequestUnits;
  const total = apiGateway + lambdaRequests + lambdaDuration + dynamoDbWrites + dynamoDbReads;
  return { inputs: m, apiGateway, lambdaRequests, lambdaDuration, dynamoDbWrites, dynamoDbReads, total };
}

/** DynamoDB's item size rule (attribute names + values; numbers ≈ digits/2 + 1), in bytes. */
const sizeOf = (v: AttributeValue): number => {
  if (v.S !== undefined) return Buffer.byteLength(v.S);
  if (v.N !== undefined) return Math.ceil(v.N.length / 2) + 1;
  if (v.B !== undefined) return v.B.length;
  if (v.M) return 3 + itemBytes(v.M);
  if (v.L) return 3 + v.L.reduce((s, x) => s + 1 + sizeOf(x), 0);
  return 1;
};
export const itemBytes = (item: Record<string, AttributeValue>): number =>
  Object.entries(item).reduce((s, [name, v]) => s + Buffer.byteLength(name) + sizeOf(v), 0);

/** Sizes of the items a create Puts (alone or in a transaction), by key prefix (`PAY`, `EVT`). */
function putSizes(create: Call[]): Record<string, number> {
  type Put = { Item: Record<string, AttributeValue> };
  const puts = create.flatMap((c): Put[] =>
    c.command === 'PutItem'
      ? [c.input as Put]
      : c.command === 'TransactWriteItems'
        ? (c.input as { TransactItems: { Put?: Put }[] }).TransactItems.flatMap((t) => (t.Put ? [t.Put] : []))
        : [],
  );
  const sizes: Record<string, number> = {};
  for (const { Item } of puts) sizes[String(Item.pk!.S).split('#')[0]!] = itemBytes(Item);
  return sizes;
}

export const PARTITION_WCU = 1000;
export const PARTITION_RCU = 3000;

export interface KeyLoad {
  key: string;
  by: string;
  kind: 'write' | 'read';
  /** requests to keys of this pattern per create: in the create request, and later (the delivery worker) */
  perCreate: number;
  inRequest: number;
  /** requests per second on ONE key of the pattern */
  perSecond: number;
  unitsEach: number;
  unitsPerSecond: number;
  /** of one partition's 1,000 WCU/s (writes) or 3,000 RCU/s (reads) */
  share: number;
}

/**
 * Every key one create writes (and the hottest it reads), for ONE merchant at `rate` creates/s, every payment by a
 * known customer with one provider attempt. Units by the service's rules: 1 WCU per KB written (items ≤ 1 KB where
 * the create only updates them), 2× inside a transaction; an index write per GSI the item is in (projection ALL),
 * counted once. `committedPaymentBytes`: the payment as its commit leaves it (routed, with its history), what the
 * commit and the list index write. Also returns the WCU of one create by these rules, and the key prefixes the
 * recorded create wrote that the rows do not cover (should be none).
 */
export function scaleOnPaper(create: Call[], rate: number, committedPaymentBytes: number) {
  const sizes: Record<string, number> = { ...putSizes(create), 'PAY committed': committedPaymentBytes };
  const kb = (prefix: string) => Math.max(1, Math.ceil((sizes[prefix] ?? 1024) / 1024));
  /** `spread`: how many keys a merchant's writes of this pattern spread over (`rate` = a new key each time) */
  const row = (kind: KeyLoad['kind'], key: string, by: string, unitsEach: number, spread: number, perCreate = 1, inRequest = perCreate): KeyLoad => {
    const perSecond = (rate * perCreate) / spread;
    const share = (perSecond * unitsEach) / (kind === 'write' ? PARTITION_WCU : PARTITION_RCU);
    return { key, by, kind, perCreate, inRequest, perSecond, unitsEach, unitsPerSecond: perSecond * unitsEach, share };
  };
  /** the keys a window at this rate (PAYMENTS_PER_MINUTE raised to it) is split over */
  const windowKeys = windowShards(rate * 60);
  /** the write shards of that limit: the lists a create writes, and the counters (write-shards.ts) */
  const listShards = writeShardsOf(rate * 60);
  const rows = [
    row(
      'write',
      `RATE#payments-create#<mer>#<minute>#<0..${windowKeys - 1}>`,
      `rate-limit window, PAYMENTS_PER_MINUTE=${rate * 60} split over ${windowKeys} keys (UpdateItem ADD)`,
      1,
      windowKeys,
    ),
    row('write', 'VEL#<card>#<hour>', 'card velocity, per card', 1, rate),
    row(
      'write',
      `RSTAT#<mer>#<0..${ROUTING_STAT_SHARDS - 1}>`,
      'routing stats, random shard (at most: a busy container sums a second of attempts in one write)',
      1,
      ROUTING_STAT_SHARDS,
    ),
    row(
      'write',
      'PAY#<pay>',
      'payment Put before the provider call (alone), then its commit (transaction, the routed payment)',
      kb('PAY') + 2 * kb('PAY committed'),
      rate,
    ),
    row(
      'write',
      `gsi1 MER#<mer>#PAY[#<1..${listShards - 1}>]`,
      `payment list index entry, written with the commit, over the ${listShards} shards of PAYMENTS_PER_MINUTE=${rate * 60}`,
      kb('PAY committed'),
      listShards,
    ),
    row(
      'write',
      `gsi2 LEASE#<0..${LEASE_SHARDS - 1}>`,
      'operation lease index: the entry the Put adds, then the one the commit removes (every merchant’s operations)',
      kb('PAY'),
      LEASE_SHARDS,
      2,
    ),
    row('write', 'EVT#<pay> EVT#<evt>', 'event Put (transaction), in its payment’s partition', 2 * kb('EVT'), rate),
    row(
      'write',
      `gsi1 MER#<mer>#EVT#<0..${EVENT_LIST_SHARDS - 1}>`,
      'event list index, a shard by event id: the Put, then the worker’s update',
      kb('EVT'),
      EVENT_LIST_SHARDS,
      2,
      1,
    ),
    row('write', 'CUS#<cus>', 'card on file (transaction), per customer, when the payment puts another card on file', 2, rate),
    row(
      'write',
      `gsi1 MER#<mer>#CUS[#<1..${listShards - 1}>]`,
      `customer list index entry, rewritten by the card-on-file update, over the ${listShards} shards`,
      1,
      listShards,
    ),
    row('write', 'gsi2 MER#<mer>#CUSEMAIL#<email>', 'customer e-mail index entry, per customer', 1, rate),
    row(
      'write',
      `CNT#<mer>#PAY#<0..${listShards - 1}>`,
      'authorization counter with its providers’ attempts (transaction), random shard',
      2,
      listShards,
    ),
    row('write', `CNT#<mer>#PAYN#<0..${listShards - 1}>`, 'payment count for the list total (transaction), random shard', 2, listShards),
    row('write', 'IDEM#<mer>#<key>', 'only with Idempotency-Key: claim + completion, per key', 2, rate, 2, 0),
    row(
      'read',
      `APIKEY#<hash>[#<1..${API_KEY_HASH_COPIES - 1}>]`,
      `API key GetItem (strongly consistent), every request, of one of the hash item's ${API_KEY_HASH_COPIES} copies at random`,
      1,
      API_KEY_HASH_COPIES,
    ),
    row(
      'read',
      `MER#<mer>#ROUTING#<0..${ROUTING_COPIES - 1}>`,
      `connector accounts and routing rules, one Query of one of their ${ROUTING_COPIES} copies at random, every create`,
      0.5,
      ROUTING_COPIES,
    ),
  ];
  const wcuPerCreate = rows.filter((r) => r.kind === 'write').reduce((s, r) => s + r.inRequest * r.unitsEach, 0);
  const covered = new Set(rows.map((r) => r.key.replace(/^gsi\d /, '').split('#')[0]));
  const written = new Set(create.filter((c) => c.wcu > 0).flatMap((c) => c.keys));
  return { rate, itemBytes: sizes, wcuPerCreate, rows, uncovered: [...written].filter((k) => !covered.has(k)) };
}
