import type { Owner } from '../model/targets.ts';
/** Small builders for DynamoDB expressions, so every repository writes them the same way. */

/**
 * `#fN = :vN` assignments for a SET clause, one per entry; their names and values are added to `names` and
 * `values` (which may already hold the condition's).
 */
export function assignments(entries: Iterable<[string, unknown]>, names: Record<string, string>, values: Record<string, unknown>): string[] {
  return [...entries].map(([field, value], i) => {
    names[`#f${i}`] = field;
    values[`:v${i}`] = value;
    return `#f${i} = :v${i}`;
  });
}

/**
 * The condition that an item's `status` is one of `states` (a transition's from-states, from state-machines.ts), as
 * `#status IN (:from0, …)` with its names and values.
 */
export function statusIn(states: readonly string[]) {
  const values = Object.fromEntries(states.map((state, i) => [`:from${i}`, state]));
  return { expression: `#status IN (${Object.keys(values).join(', ')})`, names: { '#status': 'status' }, values };
}

/** A filter on attributes that must equal the given values (undefined ones ignored); undefined when there is none. */
export function equalityFilter(filters: Record<string, unknown>) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const clauses: string[] = [];
  for (const [field, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    clauses.push(`#${field} = :${field}`);
  }
  return clauses.length ? { FilterExpression: clauses.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values } : undefined;
}

/**
 * The condition that an item belongs to the owner (as `ownedBy` in keys.ts): its merchant and mode. Its names and
 * values are added to `names` and `values`.
 */
export function ownerCondition(owner: Owner, names: Record<string, string>, values: Record<string, unknown>): string {
  names['#merchant'] = 'merchant_id';
  names['#livemode'] = 'livemode';
  values[':merchant'] = owner.merchant_id;
  values[':livemode'] = owner.livemode;
  return '#merchant = :merchant AND #livemode = :livemode';
}
