import { type Owner, scopeOf } from '../keys.ts';
import { COMPLETE_MARK_TYPE, rebuildRoutingCopies } from '../routing-copies.ts';
import { scanTable } from './scan.ts';

/**
 * `npm run rebuild:routing-copies`: builds the routing copies (connector accounts and rules, routing-copies.ts) of
 * every owner again from its items. Run once after deploying over a version before the copies, when functions of the
 * previous version may have changed rules or accounts during the deploy; safe to run again. `merchantIds` limits it to
 * those merchants. The owners are found by their accounts, rules and marks, copies included.
 */
export async function rebuildAllRoutingCopies(merchantIds?: readonly string[]): Promise<{ owners: number }> {
  const owners = new Map<string, Owner>();
  const marked = scanTable(
    {
      FilterExpression: '#type IN (:connector, :rule, :mark)',
      ProjectionExpression: '#type, merchant_id, livemode, #mode',
      ExpressionAttributeNames: { '#type': 'type', '#mode': 'mode' },
      ExpressionAttributeValues: { ':connector': 'connector', ':rule': 'routing_rule', ':mark': COMPLETE_MARK_TYPE },
    },
    merchantIds,
  );
  for await (const item of marked) {
    if (typeof item.merchant_id !== 'string') continue;
    // a connector records its mode; a rule or a mark `livemode` (a rule written before modes were separated: live)
    const owner = { merchant_id: item.merchant_id, livemode: item.type === 'connector' ? item.mode === 'live' : item.livemode !== false };
    owners.set(scopeOf(owner), owner);
  }
  for (const owner of owners.values()) await rebuildRoutingCopies(owner);
  return { owners: owners.size };
}
