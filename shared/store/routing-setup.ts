import { connectorOf, type ConnectorRecord } from './connectors.ts';
import type { Owner } from '../model/targets.ts';
import { readRoutingCopy } from './routing-copies.ts';
import { routingRuleOf, type RoutingRuleRecord } from './routing-rules.ts';

export interface RoutingSetup {
  connectors: ConnectorRecord[];
  rules: RoutingRuleRecord[];
}

/**
 * What routing a payment reads, eventually consistent: the owner's connector accounts and (unless `rules` is false)
 * its routing rules, from one of their copies in one query.
 */
export async function readRoutingSetup(owner: Owner, options: { rules: boolean }): Promise<RoutingSetup> {
  const copy = await readRoutingCopy(owner);
  return { connectors: copy.connectors.map(connectorOf), rules: options.rules ? copy.rules.map(routingRuleOf) : [] };
}
