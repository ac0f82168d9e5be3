import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type Created, db, TABLE } from './client.ts';
import { commit, type Create, keyOf, type Remove, type Update } from './commit.ts';
import type { Target } from '../model/targets.ts';
import type { Owner } from '../model/targets.ts';

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
