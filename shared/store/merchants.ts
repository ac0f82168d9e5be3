import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { isoNow } from '../model/clock.ts';
import { newId } from '../model/ids.ts';
import { type Created, db, TABLE } from './client.ts';
import { commit, type Create, keyOf, type Remove, type Update } from './commit.ts';
import type { Target } from '../model/targets.ts';
import { recordReader, Text } from './item-schemas.ts';
import { merchantKeys } from './keys.ts';
import type { Owner } from '../model/targets.ts';

export interface MerchantRecord {
  id: string;
  email: string;
  created_at: string;
}

/** The merchant's sign-in e-mail item (written with its profile) as the table holds it (see item-schemas.ts). */
const MerchantItem = v.object({ id: Text, email: Text, created_at: Text });
const merchantOf: (item: Record<string, unknown>) => MerchantRecord = recordReader('merchant', MerchantItem);

/** The merchant signed in with this e-mail, created on first sign-in. Two racing first sign-ins get the same one. */
export async function findOrCreateMerchant(email: string): Promise<MerchantRecord> {
  const existing = await findMerchantByEmail(email);
  if (existing) return existing;
  const merchant: MerchantRecord = { id: newId('merchant'), email, created_at: isoNow() };
  const created = await commit({
    writes: [
      { create: { entity: 'merchant', id: merchant.id }, item: { ...merchant } },
      { create: { entity: 'merchant_email', email }, item: { ...merchant }, refusal: 'taken' },
    ],
  });
  if (created === 'committed') return merchant;
  const winner = created === 'taken' ? await findMerchantByEmail(email) : undefined;
  if (!winner) throw new Error('Merchant sign-up refused, but no merchant has this e-mail');
  return winner;
}

/** The merchant an e-mail signs in to, if any (read consistently). */
export async function findMerchantByEmail(email: string): Promise<MerchantRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: merchantKeys.byEmail(email), ConsistentRead: true }));
  return out.Item && merchantOf(out.Item);
}

/** Caps count per mode: live keeps the count's name (`rule_count`), test counts in `test_rule_count`. */
export const capCountOf = (owner: Owner, count: string) => (owner.livemode ? count : `test_${count}`);

/**
 * Writes a new item (`create`) the merchant may have at most `max` of (per mode): the item and a count on the
 * merchant's profile (`count`, e.g. `rule_count`) are written in one change, the count conditioned on staying below
 * `max`, so parallel creates can never pass the cap. When the item is already there (a retried request's first run
 * wrote it), nothing is written, so the count is not raised twice, and that item is answered (parsed by `read`).
 * Undefined when the cap is reached. A delete lowers the same count in its own change. `also`: what else the item's
 * change writes (its routing copies, routing-copies.ts).
 */
export async function putWithinMerchantCap<T>(
  cap: { owner: Owner; count: string; max: number },
  create: Create,
  record: T,
  read: (item: Record<string, unknown>) => T,
  also: readonly Create[] = [],
): Promise<Created<T> | undefined> {
  const count = capCountOf(cap.owner, cap.count);
  const result = await commit<'exists' | 'full'>({
    writes: [
      { ...create, refusal: 'exists' },
      { update: { entity: 'merchant', id: cap.owner.merchant_id }, add: { [count]: 1 }, below: { [count]: cap.max }, refusal: 'full' },
      ...also,
    ],
  });
  if (result === 'committed') return { created: true, record };
  if (result !== 'exists') return undefined;
  const out = await db.send(new GetCommand({ TableName: TABLE, Key: keyOf(create.create), ConsistentRead: true }));
  return out.Item && { created: false, record: read(out.Item) };
}

/** Lowers the merchant's count of a capped set by one: for the change that deletes one of its items. */
export const countDown = (owner: Owner, count: string): Update => ({
  update: { entity: 'merchant', id: owner.merchant_id },
  add: { [capCountOf(owner, count)]: -1 },
});

/**
 * Deletes an item of a capped set (`target`) and lowers its count on the profile, in one change; false when there is
 * none. `also`: what else goes with the item (its routing copies, routing-copies.ts).
 */
export async function deleteWithinMerchantCap(owner: Owner, countName: string, target: Target, also: readonly Remove[] = []): Promise<boolean> {
  return (await commit({ writes: [{ remove: target }, ...also, countDown(owner, countName)] })) === 'committed';
}
