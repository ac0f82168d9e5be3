import { connectorOf, type ConnectorRecord, listConnectors } from './connectors.ts';
import type { Owner } from './keys.ts';
import { readRoutingCopy } from './routing-copies.ts';
import { listRoutingRules, routingRuleOf, type RoutingRuleRecord } from './routing-rules.ts';

export interface RoutingSetup {
  connectors: ConnectorRecord[];
  rules: RoutingRuleRecord[];
}

/**
 * What routing a payment reads, eventually consistent: the owner's connector accounts and (unless `rules` is false)
 * its routing rules, from one of their copies in one query. An owner whose copy is not complete yet (made before
 * there were copies, and unchanged since) is read from the items themselves, a query each.
 */
export async function readRoutingSetup(owner: Owner, options: { rules: boolean }): Promise<RoutingSetup> {
  const copy = await readRoutingCopy(owner);
  if (copy) return { connectors: copy.connectors.map(connectorOf), rules: options.rules ? copy.rules.map(routingRuleOf) : [] };
  const [connectors, rules] = await Promise.all([
    listConnectors(owner, { consistent: false }),
    options.rules ? listRoutingRules(owner, { consistent: false }) : [],
  ]);
  return { connectors, rules };
}
