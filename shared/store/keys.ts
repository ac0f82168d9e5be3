/**
 * Every key string of the single table is built here and nowhere else (the card vault, a table of its own, builds its
 * keys in vault.ts).
 *
 * Access patterns
 * | pattern                               | key condition                                         | index |
 * |---------------------------------------|-------------------------------------------------------|-------|
 * | merchant profile by id (+ rule_count) | pk = MER#<mer>, sk = PROFILE                          | table |
 * | merchant by e-mail (sign-in)          | pk = EMAIL#<email>, sk = EMAIL                        | table |
 * | OTP request by id                     | pk = OTP#<req>, sk = OTP                              | table |
 * | session by token hash (auth)          | pk = SESS#<sha256>, sk = SESS                         | table |
 * | user by e-mail (sign-in)              | pk = EMAIL#<email>, sk = USER                         | table |
 * | an e-mail's user, memberships and invitations (sign-in) | pk = EMAIL#<email> (whole partition, consistent) | table |
 * | a user's membership copy of a merchant | pk = EMAIL#<email>, sk = MEMBER#<mer>                | table |
 * | an e-mail's invitation copy (accept)  | pk = EMAIL#<email>, sk = IVT#<ivt>                    | table |
 * | membership by merchant and user (auth)| pk = MER#<mer>, sk = MEMBER#<usr>                     | table |
 * | merchant's members                    | pk = MER#<mer>, sk begins_with MEMBER#                | table |
 * | invitation by id                      | pk = MER#<mer>, sk = IVT#<ivt>                        | table |
 * | merchant's invitations, newest first  | pk = MER#<mer>, sk begins_with IVT# (desc)            | table |
 * | API key by key hash (auth; one copy)  | pk = APIKEY#<sha256>[#<1..3>], sk = APIKEY            | table |
 * | merchant's API keys, newest first     | pk = MER#<mer>, sk begins_with KEY# (desc)            | table |
 * | API key by id                         | pk = MER#<mer>, sk = KEY#<key>                        | table |
 * | customer by id                        | pk = CUS#<cus>, sk = CUS                              | table |
 * | merchant's customers, newest first    | gsi1pk = MER#<own>#CUS[#<1..n-1>], gsi1sk < / > <cus> (desc; every shard) | gsi1 |
 * | merchant's customer by e-mail         | gsi2pk = MER#<own>#CUSEMAIL#<email>                   | gsi2  |
 * | merchant's routing rules              | pk = MER#<own>, sk begins_with RULE#                  | table |
 * | routing rule by id                    | pk = MER#<own>, sk = RULE#<rul>                       | table |
 * | payment by id                         | pk = PAY#<pay>, sk = PAY                              | table |
 * | payment's refunds                     | pk = PAY#<pay>, sk begins_with REF#                   | table |
 * | merchant's refunds, newest first      | gsi1pk = MER#<own>#REF, gsi1sk <ref>                  | gsi1  |
 * | refund by id (then its item, by key)  | gsi1pk = MER#<own>#REF, gsi1sk = <ref>                | gsi1  |
 * | merchant's payments, newest first     | gsi1pk = MER#<own>#PAY[#<1..n-1>], gsi1sk <id> (ULID: time range; every shard) | gsi1 |
 * | the most write shards ever used (lists) | pk = TABLE, sk = WRITE_SHARDS                         | table |
 * | the most counter shards ever used     | pk = TABLE, sk = COUNTER_SHARDS                       | table |
 * | payment's disputes                    | pk = PAY#<pay>, sk begins_with DIS# (DIS#<provider ref>)| table |
 * | payment's refunds and disputes (timeline)| pk = PAY#<pay>, sk between DIS# and REF#~           | table |
 * | merchant's disputes, newest first     | gsi1pk = MER#<own>#DIS, gsi1sk <dis>                  | gsi1  |
 * | dispute by id (then its item, by key) | gsi1pk = MER#<own>#DIS, gsi1sk = <dis>                | gsi1  |
 * | payment by a provider's reference     | pk = PREF#<con>#<reference>, sk = PREF                | table |
 * | inbound notification seen (dedup)     | pk = INWH#<con>#<provider event id>, sk = INWH        | table |
 * | routing stats of the last minutes     | pk = RSTAT#<own>#<shard>, sk >= <bucket ms> (×shards) | table |
 * | card velocity in an hour              | pk = VEL#<fingerprint>#<hour ms>, sk = VEL            | table |
 * | a saved card's charge retries by day  | pk = CARDCAP#<own>#<pm fingerprint>, sk between <day−29> and <day> | table |
 * | event (record + delivery log), by object| pk = EVT#<object id>, sk = EVT#<evt>                 | table |
 * | merchant's events, newest first       | gsi1pk = MER#<own>#EVT#<0..19>, gsi1sk <evt>           | gsi1  |
 * | merchant's webhook endpoints          | pk = MER#<own>, sk begins_with WHK# (+ webhook_count) | table |
 * | merchant's settings (checkout origins) | pk = MER#<own>, sk = SETTINGS                         | table |
 * | merchant's connector accounts         | pk = MER#<own>, sk begins_with CON# (+ connector_count)| table |
 * | connector account by id               | pk = MER#<own>, sk = CON#<con>                        | table |
 * | what routing reads (accounts + rules) | pk = MER#<own>#ROUTING#<0..3> (one copy, whole)       | table |
 * | connector account by id alone (inbound)| gsi2pk = CONID#<con>                                 | gsi2  |
 * | subscription by id                    | pk = SUB#<sub>, sk = SUB                              | table |
 * | merchant's subscriptions, newest first| gsi1pk = MER#<own>#SUB, gsi1sk <sub>                  | gsi1  |
 * | subscriptions due for renewal         | gsi2pk = RENEW#<shard>, gsi2sk <= <due date>#<sub>    | gsi2  |
 * | a test clock's subscriptions due      | gsi2pk = RENEW#<clk>, gsi2sk <= <due date>#<sub>      | gsi2  |
 * | subscriptions awaiting a card update  | gsi2pk = CARDWAIT#<pm>                                | gsi2  |
 * | test clock by id                      | pk = CLK#<clk>, sk = CLK                              | table |
 * | owner's test clocks, newest first     | gsi1pk = MER#<own>#CLK, gsi1sk <clk>                  | gsi1  |
 * | advances that stopped moving (reconc.)| gsi2pk = CLOCK#ADVANCING, gsi2sk < <iso time>         | gsi2  |
 * | renewal of one period (idempotency)   | pk = SUB#<sub>, sk = PERIOD#<period start>            | table |
 * | invoice by id                         | pk = INV#<inv>, sk = INV                              | table |
 * | merchant's invoices, newest first     | gsi1pk = MER#<own>#INV, gsi1sk <inv>                  | gsi1  |
 * | invoice number counter (gapless)      | pk = MER#<own>, sk = INVNUM                           | table |
 * | merchant counters (balance, analytics)| pk = CNT#<own>#<kind>#<shard>, sk = <day>#<dims>      | table |
 * | payment counts (list total)           | pk = CNT#<own>#PAYN#<shard>, sk = <cur>#<prov>         | table |
 * | settlement by id                      | pk = SET#<set>, sk = SET                              | table |
 * | merchant's settlements, newest first  | gsi1pk = MER#<own>#SET, gsi1sk <set>                  | gsi1  |
 * | settlement of a merchant/currency/day | pk = MER#<own>, sk = SETDAY#<day>#<currency>          | table |
 * | balance cells of all merchants (job)  | gsi2pk = BALANCE#<hash shard>                         | gsi2  |
 * | settlements waiting to arrive (job)   | gsi2pk = SETTLEMENT#PENDING, gsi2sk <= <date>#~       | gsi2  |
 * | idempotency record                    | pk = IDEM#[<credential kind>:]<own>#<key>, sk = IDEM  | table |
 * | rate-limit window (one key, or shard) | pk = RATE#<limit>#<subject>#<window>[#<n>], sk = RATE | table |
 * | payment link by id                    | pk = PLINK#<plink>, sk = PLINK                        | table |
 * | merchant's payment links, newest first| gsi1pk = MER#<own>#PLINK, gsi1sk <plink>              | gsi1  |
 * | a payment's place on its payment link | pk = PLINK#<plink>, sk = PAY#<pay>                    | table |
 * | a shopper page's served form          | pk = FORM#<form id>, sk = FORM                        | table |
 * | operations whose lease ended (reconc.)| gsi2pk = LEASE#<shard>, gsi2sk < <now iso>           | gsi2  |
 * | settlement of a provider's payout     | pk = SET#<set> (<set> derived from <con>#<payout>)    | table |
 * | reconciliation exception by id        | pk = REX#<rex>, sk = REX (id derived from what it is) | table |
 * | owner's reconciliation exceptions     | gsi1pk = MER#<own>#REX, gsi1sk <rex> (desc; filters)  | gsi1  |
 * | connector account's last run          | pk = MER#<own>, sk = RECON#<con>                      | table |
 * | connector accounts to reconcile (job) | gsi1pk = RECONCILE#<0..9>, gsi1sk <con>               | gsi1  |
 * | payment method by id                  | pk = PM#<pm>, sk = PM                                 | table |
 * | customer's payment methods, newest first | gsi1pk = CUS#<cus>#PM, gsi1sk <pm> (desc)           | gsi1  |
 * | customer's payment method of one card | pk = PMCARD#<cus>#<fingerprint>, sk = PMCARD          | table |
 * | owner's audit log, newest first (time range) | pk = AUD#<own>, sk <aud> (ULID: created_after/before) | table |
 * | audit entries of one actor            | gsi1pk = AUD#<own>#ACTOR#<usr or key>, gsi1sk <aud>   | gsi1  |
 * | audit entries of one object           | gsi2pk = AUD#<own>#OBJECT#<object id>, gsi2sk <aud>   | gsi2  |
 * | audit entries of one action           | gsi3pk = AUD#<own>#ACTION#<action>, gsi3sk <aud> (sparse: only entries) | gsi3 |
 *
 * Unbounded entities (customers, payments, invoices, events) get their own partition and are listed through gsi1;
 * small per-merchant sets (API keys, rules, webhooks, connectors) live under MER#<mer> or MER#<own>. `<own>` is the
 * owner's scope (`Owner` below): the merchant's id for live data, `<mer>:test` for test data, so the two modes never
 * share a list, counter, sequence or set.
 */

import type { Owner } from '../model/targets.ts';

export type Key = { pk: string; sk: string };

export const scopeOf = (owner: Owner): string => (owner.livemode ? owner.merchant_id : `${owner.merchant_id}:test`);
/** Whether a stored record belongs to the owner. */
export const ownedBy = (record: { merchant_id?: string | undefined; livemode?: boolean | undefined } | undefined, owner: Owner): boolean =>
  record !== undefined && record.merchant_id === owner.merchant_id && record.livemode === owner.livemode;
/** The owner an item names. */
export const ownerOfItem = (item: Record<string, unknown>): Owner => ({ merchant_id: String(item.merchant_id), livemode: item.livemode === true });

export const merchantKeys = {
  profile: (merchantId: string): Key => ({ pk: `MER#${merchantId}`, sk: 'PROFILE' }),
  byEmail: (email: string): Key => ({ pk: `EMAIL#${email}`, sk: 'EMAIL' }),
};

export const otpKeys = {
  request: (requestId: string): Key => ({ pk: `OTP#${requestId}`, sk: 'OTP' }),
};

export const sessionKeys = {
  byTokenHash: (tokenHash: string): Key => ({ pk: `SESS#${tokenHash}`, sk: 'SESS' }),
};

/**
 * A person's items live in their e-mail's partition (the user, a copy of each membership and of each invitation to
 * them), so sign-in reads all it needs in one consistent query; a merchant's side (members, invitations) lives in its
 * own partition, where authentication reads a session's membership by key.
 */
export const userKeys = {
  byEmail: (email: string): Key => ({ pk: `EMAIL#${email}`, sk: 'USER' }),
  partition: (email: string) => `EMAIL#${email}`,
  /** sort keys of that partition: the merchant made at the e-mail's first sign-in (merchantKeys.byEmail), the user, copies */
  kindOf: (sk: string): 'merchant_email' | 'user' | 'membership' | 'invitation' | 'other' =>
    sk === 'EMAIL'
      ? 'merchant_email'
      : sk === 'USER'
        ? 'user'
        : sk.startsWith('MEMBER#')
          ? 'membership'
          : sk.startsWith('IVT#')
            ? 'invitation'
            : 'other',
  membershipCopy: (email: string, merchantId: string): Key => ({ pk: `EMAIL#${email}`, sk: `MEMBER#${merchantId}` }),
  invitationCopy: (email: string, invitationId: string): Key => ({ pk: `EMAIL#${email}`, sk: `IVT#${invitationId}` }),
};

export const memberKeys = {
  item: (merchantId: string, userId: string): Key => ({ pk: `MER#${merchantId}`, sk: `MEMBER#${userId}` }),
  listPrefix: (merchantId: string) => ({ pk: `MER#${merchantId}`, skPrefix: 'MEMBER#' }),
};

export const invitationKeys = {
  item: (merchantId: string, invitationId: string): Key => ({ pk: `MER#${merchantId}`, sk: `IVT#${invitationId}` }),
  listPrefix: (merchantId: string) => ({ pk: `MER#${merchantId}`, skPrefix: 'IVT#' }),
};

/**
 * Copies of an API key's hash item. Every request reads one at random, strongly consistent (1 RCU), so a key used
 * 1,000 times a second costs each copy 250 RCU/s, 8% of a partition's 3,000 where one item would take a third.
 */
export const API_KEY_HASH_COPIES = 4;

export const apiKeyKeys = {
  byHash: (keyHash: string, copy = 0): Key => ({ pk: copy === 0 ? `APIKEY#${keyHash}` : `APIKEY#${keyHash}#${copy}`, sk: 'APIKEY' }),
  item: (merchantId: string, keyId: string): Key => ({ pk: `MER#${merchantId}`, sk: `KEY#${keyId}` }),
  listPrefix: (merchantId: string) => ({ pk: `MER#${merchantId}`, skPrefix: 'KEY#' }),
};

/**
 * Payments a minute one write shard takes (write-shards.ts): a counter cell is written inside a transaction (two
 * units), and a payment's list entry with its commit (one unit as the create commits it, stored packed; two once
 * captured or with a long metadata), so 3,000 a minute (50 a second) of either is a tenth of a partition's writes.
 */
export const PAYMENTS_PER_WRITE_SHARD = 3_000;
/** The write shards a limit of `paymentsPerMinute` creates needs: one up to 3,000 a minute. */
export const writeShardsOf = (paymentsPerMinute: number): number => Math.max(1, Math.ceil(paymentsPerMinute / PAYMENTS_PER_WRITE_SHARD));

/**
 * The lists a payment create writes (payments, and customers through the card it puts on file) are written over the
 * write shards of the configured PAYMENTS_PER_MINUTE (`writeShardsOf`), so one merchant at its limit keeps each index
 * partition under a tenth of its writes. An entry's shard is a hash of its id; shard 0 (the partition without a
 * suffix) is the only one up to 3,000 a minute. A page reads every shard the table's writes were ever spread over
 * (write-shards.ts).
 */
const listShard = (partition: string, shard: number) => (shard === 0 ? partition : `${partition}#${shard}`);
const everyShard = (partition: string, shards: number) => Array.from({ length: shards }, (_, shard) => listShard(partition, shard));
export const writeShardKeys = {
  /** the most write shards the table's lists were ever spread over (only ever raised) */
  floor: (): Key => ({ pk: 'TABLE', sk: 'WRITE_SHARDS' }),
  /** the same for the counter cells */
  counterFloor: (): Key => ({ pk: 'TABLE', sk: 'COUNTER_SHARDS' }),
};

export const paymentMethodKeys = {
  item: (paymentMethodId: string): Key => ({ pk: `PM#${paymentMethodId}`, sk: 'PM' }),
  /** the list entry of a payment method attached to a customer */
  byCustomer: (customerId: string, paymentMethodId: string) => ({ gsi1pk: `CUS#${customerId}#PM`, gsi1sk: paymentMethodId }),
  customerList: (customerId: string) => ({ gsi1pk: `CUS#${customerId}#PM` }),
  /** one payment method per customer and card number (its fingerprint): the same card saved again finds it */
  customerCard: (customerId: string, fingerprint: string): Key => ({ pk: `PMCARD#${customerId}#${fingerprint}`, sk: 'PMCARD' }),
};

export const customerKeys = {
  item: (customerId: string): Key => ({ pk: `CUS#${customerId}`, sk: 'CUS' }),
  list: (owner: Owner, customerId: string, shards: number) => ({
    gsi1pk: listShard(`MER#${scopeOf(owner)}#CUS`, shardOf(customerId, shards)),
    gsi1sk: customerId,
  }),
  listPartitions: (owner: Owner, shards: number) => everyShard(`MER#${scopeOf(owner)}#CUS`, shards),
  byEmail: (owner: Owner, email: string) => ({ gsi2pk: `MER#${scopeOf(owner)}#CUSEMAIL#${email}`, gsi2sk: 'CUS' }),
};

export const routingRuleKeys = {
  item: (owner: Owner, ruleId: string): Key => ({ pk: `MER#${scopeOf(owner)}`, sk: `RULE#${ruleId}` }),
  listPrefix: (owner: Owner) => ({ pk: `MER#${scopeOf(owner)}`, skPrefix: 'RULE#' }),
};

const paymentListPartition = (owner: Owner) => `MER#${scopeOf(owner)}#PAY`;
export const paymentKeys = {
  item: (paymentId: string): Key => ({ pk: `PAY#${paymentId}`, sk: 'PAY' }),
  refund: (paymentId: string, refundId: string): Key => ({ pk: `PAY#${paymentId}`, sk: `REF#${refundId}` }),
  refundPrefix: 'REF#',
  list: (owner: Owner, paymentId: string, shards: number) => ({
    gsi1pk: listShard(paymentListPartition(owner), shardOf(paymentId, shards)),
    gsi1sk: paymentId,
  }),
  /** shard 0 */
  listPartition: paymentListPartition,
  listPartitions: (owner: Owner, shards: number) => everyShard(paymentListPartition(owner), shards),
};

/**
 * Routing statistics are write-sharded: a merchant doing 1,000 payments/s spreads them over ROUTING_STAT_SHARDS
 * partition keys (≤ 100 writes/s each, a tenth of a partition), and a read queries every shard.
 */
export const ROUTING_STAT_SHARDS = 10;
export const routingStatKeys = {
  /** one minute's counts of one provider account in one currency, in one shard */
  bucket: (owner: Owner, shard: number, sortKey: string): Key => ({ pk: `RSTAT#${scopeOf(owner)}#${shard}`, sk: sortKey }),
  /** a bucket's sort key; `connectorId`: the connector account the attempt went to, none for the built-in sandbox */
  sortKey: (bucketStart: number, provider: string, currency: string, connectorId?: string | null) =>
    `${bucketStart}#${provider}#${currency}${connectorId ? `#${connectorId}` : ''}`,
  shard: (owner: Owner, shard: number) => `RSTAT#${scopeOf(owner)}#${shard}`,
  /** the minute bucket's start (ms, as a sort key) from which a read takes buckets */
  since: (bucketStart: number) => String(bucketStart),
  parse: (sk: string) => {
    const [, provider = '', currency = '', connectorId] = sk.split('#');
    return { provider, currency, connectorId };
  },
};

export const velocityKeys = {
  window: (fingerprint: string, windowStart: number): Key => ({ pk: `VEL#${fingerprint}#${windowStart}`, sk: 'VEL' }),
};

/**
 * A saved card's off-session charge retries, one counter item per day (its `pm_` fingerprint, per owner): the last
 * 30 days are one query of one partition (the per-card cap of subscription recovery, card-charge-cap.ts).
 */
export const cardChargeKeys = {
  day: (owner: Owner, fingerprint: string, day: string): Key => ({ pk: `CARDCAP#${scopeOf(owner)}#${fingerprint}`, sk: day }),
  partition: (owner: Owner, fingerprint: string) => `CARDCAP#${scopeOf(owner)}#${fingerprint}`,
};

/**
 * An event lives in the partition of the object it reports (`<object>` = its `data.object.id`), so the table's
 * stream hands one object's events over in the order they were written.
 *
 * A merchant's events are listed over EVENT_LIST_SHARDS index partitions (by a hash of the event id): each event is
 * indexed twice (its put, its first delivery round), a few times per payment, so at 1,000 payments a second one
 * partition would take twice what it can. A page reads every shard and merges them (pagination.ts `listPageAcross`).
 */
export const EVENT_LIST_SHARDS = 20;
const eventListPartition = (owner: Owner, shard: number) => `MER#${scopeOf(owner)}#EVT#${shard}`;
export const eventKeys = {
  item: (eventId: string, objectId: string): Key => ({ pk: `EVT#${objectId}`, sk: `EVT#${eventId}` }),
  list: (owner: Owner, eventId: string) => ({ gsi1pk: eventListPartition(owner, shardOf(eventId, EVENT_LIST_SHARDS)), gsi1sk: eventId }),
  listPartitions: (owner: Owner) => Array.from({ length: EVENT_LIST_SHARDS }, (_, shard) => eventListPartition(owner, shard)),
};

export const webhookKeys = {
  item: (owner: Owner, webhookId: string): Key => ({ pk: `MER#${scopeOf(owner)}`, sk: `WHK#${webhookId}` }),
  listPrefix: (owner: Owner) => ({ pk: `MER#${scopeOf(owner)}`, skPrefix: 'WHK#' }),
};

/** A refund lives in its payment's partition (paymentKeys.refund); the merchant's list of refunds is on gsi1. */
export const refundKeys = {
  list: (owner: Owner, refundId: string) => ({ gsi1pk: `MER#${scopeOf(owner)}#REF`, gsi1sk: refundId }),
  listPartition: (owner: Owner) => `MER#${scopeOf(owner)}#REF`,
};

/**
 * A dispute lives in its payment's partition, next to its refunds, keyed by the provider's id of it (so two reports
 * of one new dispute racing meet on one key); the merchant's list of disputes, by our id, is on gsi1.
 */
export const disputeKeys = {
  item: (paymentId: string, providerReference: string): Key => ({ pk: `PAY#${paymentId}`, sk: `DIS#${providerReference}` }),
  prefix: 'DIS#',
  list: (owner: Owner, disputeId: string) => ({ gsi1pk: `MER#${scopeOf(owner)}#DIS`, gsi1sk: disputeId }),
  listPartition: (owner: Owner) => `MER#${scopeOf(owner)}#DIS`,
};

/**
 * What a provider's notification names (its id of the authorization) → our payment, per connector account; written
 * with the authorization. And each notification seen, by the provider's event id, so none is applied twice.
 */
export const inboundKeys = {
  paymentByReference: (connectorId: string, reference: string): Key => ({ pk: `PREF#${connectorId}#${reference}`, sk: 'PREF' }),
  seen: (connectorId: string, eventId: string): Key => ({ pk: `INWH#${connectorId}#${eventId}`, sk: 'INWH' }),
};

/**
 * Copies of an owner's connector accounts and routing rules, what routing reads for every payment: written with the
 * items themselves (routing-copies.ts), each copy a partition of its own. A payment reads one copy at random with one
 * query, where the items' own partition takes two (the rules and the accounts sort apart, around the API keys), and
 * a merchant paying 1,000 times a second gives each copy a quarter of those reads.
 */
export const ROUTING_COPIES = 4;
const routingCopyPartition = (owner: Owner, copy: number) => `MER#${scopeOf(owner)}#ROUTING#${copy}`;
export const routingCopyKeys = {
  /** the copy of an item of the owner's partition (a connector account or a rule): the same sort key */
  of: (owner: Owner, copy: number, sk: string): Key => ({ pk: routingCopyPartition(owner, copy), sk }),
  partition: routingCopyPartition,
};

/** A merchant's settings in one mode (checkout origins the hosted card fields may be framed by). */
export const settingsKeys = {
  item: (owner: Owner): Key => ({ pk: `MER#${scopeOf(owner)}`, sk: 'SETTINGS' }),
};

export const connectorKeys = {
  item: (owner: Owner, connectorId: string): Key => ({ pk: `MER#${scopeOf(owner)}`, sk: `CON#${connectorId}` }),
  /** the connector without its merchant: what an inbound webhook (`/api/connectors/<con>/webhooks`) names */
  byId: (connectorId: string) => ({ gsi2pk: `CONID#${connectorId}`, gsi2sk: 'CON' }),
  listPrefix: (owner: Owner) => ({ pk: `MER#${scopeOf(owner)}`, skPrefix: 'CON#' }),
};

/**
 * An owner's audit log: one partition per owner, sorted by entry id (a ULID: a time range is a key range), and one
 * index per filter, so every filter is a query of its own partition. Entries are written by people and by keys
 * changing settings-like groups, far below a partition's 1,000 writes a second.
 */
export const auditKeys = {
  item: (owner: Owner, entryId: string): Key => ({ pk: `AUD#${scopeOf(owner)}`, sk: entryId }),
  partition: (owner: Owner) => `AUD#${scopeOf(owner)}`,
  byActor: (owner: Owner, actorId: string) => `AUD#${scopeOf(owner)}#ACTOR#${actorId}`,
  byObject: (owner: Owner, objectId: string) => `AUD#${scopeOf(owner)}#OBJECT#${objectId}`,
  byAction: (owner: Owner, action: string) => `AUD#${scopeOf(owner)}#ACTION#${action}`,
  /** the index keys an entry carries (no object: not in the object index) */
  indexes: (owner: Owner, entry: { id: string; actorId: string; action: string; objectId?: string }) => ({
    gsi1pk: auditKeys.byActor(owner, entry.actorId),
    gsi1sk: entry.id,
    ...(entry.objectId ? { gsi2pk: auditKeys.byObject(owner, entry.objectId), gsi2sk: entry.id } : {}),
    gsi3pk: auditKeys.byAction(owner, entry.action),
    gsi3sk: entry.id,
  }),
};

export const RENEWAL_SHARDS = 10;
export const subscriptionKeys = {
  item: (subscriptionId: string): Key => ({ pk: `SUB#${subscriptionId}`, sk: 'SUB' }),
  list: (owner: Owner, subscriptionId: string) => ({ gsi1pk: `MER#${scopeOf(owner)}#SUB`, gsi1sk: subscriptionId }),
  listPartition: (owner: Owner) => `MER#${scopeOf(owner)}#SUB`,
  /** present only while the subscription renews (sparse): the scanner reads due dates, never the table */
  due: (shard: number, dueDate: string, subscriptionId: string) => ({ gsi2pk: `RENEW#${shard}`, gsi2sk: `${dueDate}#${subscriptionId}` }),
  duePartition: (shard: number) => `RENEW#${shard}`,
  /** a test clock's subscriptions are due on its time, not the schedules': its own partition, which only its advance reads */
  dueOnClock: (clockId: string, dueDate: string, subscriptionId: string) => ({ gsi2pk: `RENEW#${clockId}`, gsi2sk: `${dueDate}#${subscriptionId}` }),
  dueOnClockPartition: (clockId: string) => `RENEW#${clockId}`,
  period: (subscriptionId: string, periodStart: string): Key => ({ pk: `SUB#${subscriptionId}`, sk: `PERIOD#${periodStart}` }),
  /** present only while past_due on expired_card (sparse, never due at once): the card's update finds it */
  awaitingCard: (paymentMethodId: string, subscriptionId: string) => ({ gsi2pk: `CARDWAIT#${paymentMethodId}`, gsi2sk: subscriptionId }),
  awaitingCardPartition: (paymentMethodId: string) => `CARDWAIT#${paymentMethodId}`,
};

export const testClockKeys = {
  item: (clockId: string): Key => ({ pk: `CLK#${clockId}`, sk: 'CLK' }),
  list: (owner: Owner, clockId: string) => ({ gsi1pk: `MER#${scopeOf(owner)}#CLK`, gsi1sk: clockId }),
  listPartition: (owner: Owner) => `MER#${scopeOf(owner)}#CLK`,
  /** sparse: only while the clock advances, by when its advance last moved (the reconciler resumes stalled ones) */
  advancing: (movedAt: string, clockId: string) => ({ gsi2pk: 'CLOCK#ADVANCING', gsi2sk: `${movedAt}#${clockId}` }),
  advancingPartition: 'CLOCK#ADVANCING',
};

/**
 * A payment link in a partition of its own (every visit and payment reads it), with the place each of its payments
 * holds beside it (a link is paid at most a few times a second: far below a partition's writes); listed on gsi1.
 */
export const paymentLinkKeys = {
  item: (linkId: string): Key => ({ pk: `PLINK#${linkId}`, sk: 'PLINK' }),
  list: (owner: Owner, linkId: string) => ({ gsi1pk: `MER#${scopeOf(owner)}#PLINK`, gsi1sk: linkId }),
  listPartition: (owner: Owner) => `MER#${scopeOf(owner)}#PLINK`,
  place: (linkId: string, paymentId: string): Key => ({ pk: `PLINK#${linkId}`, sk: `PAY#${paymentId}` }),
};

export const invoiceKeys = {
  item: (invoiceId: string): Key => ({ pk: `INV#${invoiceId}`, sk: 'INV' }),
  list: (owner: Owner, invoiceId: string) => ({ gsi1pk: `MER#${scopeOf(owner)}#INV`, gsi1sk: invoiceId }),
  listPartition: (owner: Owner) => `MER#${scopeOf(owner)}#INV`,
  numberCounter: (owner: Owner): Key => ({ pk: `MER#${scopeOf(owner)}`, sk: 'INVNUM' }),
};

/**
 * Write-sharded per-merchant counters, summed on read (docs/architecture.md "Balance, settlements and analytics"): over the write shards of the configured
 * PAYMENTS_PER_MINUTE (write-shards.ts `counterShards`), one up to 3,000 a minute.
 */
/** Partitions of the balance cells' index, shared by every merchant (each one's cells spread from its own). */
export const BALANCE_INDEX_SHARDS = 10;
export const counterKeys = {
  cell: (owner: Owner, kind: string, shard: number, sortKey: string): Key => ({ pk: `CNT#${scopeOf(owner)}#${kind}#${shard}`, sk: sortKey }),
  shard: (owner: Owner, kind: string, shard: number) => `CNT#${scopeOf(owner)}#${kind}#${shard}`,
  /**
   * balance cells are also in a sparse index, so the daily job finds every merchant with money without a scan; a
   * merchant's cells are spread over its partitions by their counter shard (each capture rewrites a cell's entry), and
   * the job reads every partition
   */
  balanceIndex: (owner: Owner, sortKey: string, shard: number) => ({
    gsi2pk: `BALANCE#${(indexShardOf(owner.merchant_id) + shard) % BALANCE_INDEX_SHARDS}`,
    gsi2sk: `${scopeOf(owner)}#${sortKey}#${shard}`,
  }),
  balanceIndexPartition: (indexShard: number) => `BALANCE#${indexShard}`,
};

/** The shard of a counter cell, from its partition key. */
export const counterShardOf = (pk: string): number => Number(pk.split('#').at(-1));

/**
 * Where a balance cell's funds are: available, or pending since a capture day (the built-in sandbox's money, which
 * the daily job settles), or held at a connector account until its provider pays them out (reconciliation).
 */
export type BalanceBucket =
  | { currency: string; bucket: 'available' }
  | { currency: string; bucket: 'pending'; captureDay: string }
  | { currency: string; bucket: 'held'; connectorId: string };

/**
 * Sort keys of the ledger's counter cells (see shared/store/ledger.ts), and their parsers:
 * PAY `<day>#<currency>` (with each provider's attempts beside the payments' outcome), REV and RCV `<day>#<currency>`,
 * BAL `<currency>#pending#<capture day>`, `<currency>#available` and `<currency>#held#<connector>`.
 */
export const ledgerSortKeys = {
  daily: (day: string, currency: string) => `${day}#${currency}`,
  pending: (currency: string, captureDay: string) => `${currency}#pending#${captureDay}`,
  available: (currency: string) => `${currency}#available`,
  held: (currency: string, connectorId: string) => `${currency}#held#${connectorId}`,
  balance: (cell: BalanceBucket) =>
    cell.bucket === 'available'
      ? ledgerSortKeys.available(cell.currency)
      : cell.bucket === 'held'
        ? ledgerSortKeys.held(cell.currency, cell.connectorId)
        : ledgerSortKeys.pending(cell.currency, cell.captureDay),
  /** the sort-key range of whole days (daily cells) */
  days: (fromDay: string, toDay: string) => ({ from: fromDay, to: `${toDay}~` }),
  /** the sort-key range of the balance cells in one currency, or in all (currency codes are uppercase letters) */
  balances: (currency?: string) => (currency ? { from: `${currency}#`, to: `${currency}#~` } : { from: 'A', to: 'Z~' }),
  parseDaily: (sk: string) => {
    const [day = '', currency = ''] = sk.split('#');
    return { day, currency };
  },
  parseBalance: (sk: string): BalanceBucket => {
    const [currency = '', bucket, dayOrConnector = ''] = sk.split('#');
    if (bucket === 'available') return { currency, bucket };
    return bucket === 'held' ? { currency, bucket, connectorId: dayOrConnector } : { currency, bucket: 'pending', captureDay: dayOrConnector };
  },
};

/** A stable shard of `shards` for a text (an id, a key): a small string hash. */
export const shardOf = (text: string, shards: number): number => [...text].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % shards;

/** A stable small number per merchant, to spread merchant-wide indexes over BALANCE_INDEX_SHARDS keys. */
export const indexShardOf = (merchantId: string): number => shardOf(merchantId, BALANCE_INDEX_SHARDS);

export const settlementKeys = {
  item: (settlementId: string): Key => ({ pk: `SET#${settlementId}`, sk: 'SET' }),
  list: (owner: Owner, settlementId: string) => ({ gsi1pk: `MER#${scopeOf(owner)}#SET`, gsi1sk: settlementId }),
  listPartition: (owner: Owner) => `MER#${scopeOf(owner)}#SET`,
  daily: (owner: Owner, day: string, currency: string): Key => ({ pk: `MER#${scopeOf(owner)}`, sk: `SETDAY#${day}#${currency}` }),
  /** sparse: only while the settlement waits for its arrival date */
  pendingIndex: (arrivalDate: string, settlementId: string) => ({ gsi2pk: 'SETTLEMENT#PENDING', gsi2sk: `${arrivalDate}#${settlementId}` }),
  pendingPartition: 'SETTLEMENT#PENDING',
  /** the index's upper bound for settlements arriving on or before `arrivalDate` */
  pendingThrough: (arrivalDate: string) => `${arrivalDate}#~`,
};

/**
 * Reconciliation with providers' payouts: exceptions (their ids derived from the payout and what does not match, so a
 * run made twice writes each once), listed per owner on gsi1; each connector account's last run under its owner; and
 * every connector account that has payouts to read, in a sparse gsi1 index of the connector items (the daily job's).
 */
export const RECONCILE_SHARDS = 10;
export const reconciliationKeys = {
  item: (exceptionId: string): Key => ({ pk: `REX#${exceptionId}`, sk: 'REX' }),
  list: (owner: Owner, exceptionId: string) => ({ gsi1pk: `MER#${scopeOf(owner)}#REX`, gsi1sk: exceptionId }),
  listPartition: (owner: Owner) => `MER#${scopeOf(owner)}#REX`,
  lastRun: (owner: Owner, connectorId: string): Key => ({ pk: `MER#${scopeOf(owner)}`, sk: `RECON#${connectorId}` }),
  account: (connectorId: string) => ({ gsi1pk: `RECONCILE#${shardOf(connectorId, RECONCILE_SHARDS)}`, gsi1sk: connectorId }),
  accountPartition: (shard: number) => `RECONCILE#${shard}`,
};

/** The kinds of credential a request may carry (domain/auth.ts `Merchant['credential']`). */
export type CredentialKind = 'api_key' | 'publishable' | 'session';

export const idempotencyKeys = {
  /**
   * Whose keys a key is among: the owner's and the kind of credential, so a publishable key's (a shopper's browser)
   * never meet a secret key's or a session's.
   */
  scope: (owner: Owner, credential: CredentialKind): string => `${credential}:${scopeOf(owner)}`,
  record: (scope: string, key: string): Key => ({ pk: `IDEM#${scope}#${key}`, sk: 'IDEM' }),
};

/** Requests one rate-limit window key may take per minute: 6,000 (100 a second) is a tenth of a partition's writes. */
export const REQUESTS_PER_WINDOW_KEY = 6_000;

/** How many keys a window of `limit` requests is split over: one (an exact count) up to `perKey`. */
export const windowShards = (limit: number, perKey = REQUESTS_PER_WINDOW_KEY): number => Math.max(1, Math.ceil(limit / perKey));

export const rateLimitKeys = {
  /** shard 0 is the window's only key unless the limit is split over several (`windowShards`) */
  window: (limit: string, subject: string, windowStart: number, shard = 0): Key => ({
    pk: `RATE#${limit}#${subject}#${windowStart}${shard ? `#${shard}` : ''}`,
    sk: 'RATE',
  }),
};

/** A form a shopper page served (its id is random): its post is taken once, for that page only. */
export const servedFormKeys = {
  form: (formId: string): Key => ({ pk: `FORM#${formId}`, sk: 'FORM' }),
};

/**
 * An item with an external operation in flight (payment, refund, invoice send, …) is in this sparse index until the
 * operation is finished: the reconciler reads the entries whose lease ended, never the table. Sharded by the item's
 * key over LEASE_SHARDS partitions, which every merchant shares: each operation adds an entry and removes it (two
 * writes), so 1,000 operations a second keep each partition at a tenth of its writes. The reconciler reads them all,
 * so the count may grow (entries already written stay where they are, and are read).
 */
export const LEASE_SHARDS = 20;
export const leaseKeys = {
  entry: (shard: number, leaseUntil: string, key: Key) => ({ gsi2pk: `LEASE#${shard}`, gsi2sk: `${leaseUntil}#${key.pk}#${key.sk}` }),
  partition: (shard: number) => `LEASE#${shard}`,
};

/**
 * Payment count cells (`PAYN` counters): one per currency and provider (`none` before any was chosen), a count per
 * status, so a status change moves one cell.
 */
export const paymentCountKeys = {
  sortKey: (currency: string, provider: string | null) => `${currency}#${provider ?? 'none'}`,
  /** every cell (currencies are upper case) */
  all: { from: 'A', to: 'Z~' },
  parse: (sortKey: string): { currency: string; provider: string } => {
    const [currency = '', provider = ''] = sortKey.split('#');
    return { currency, provider };
  },
};
