import type * as v from 'valibot';
import type { SimulateRouteBody } from '../schemas/payments.ts';
import * as customers from '../store/customers.ts';
import type { RoutingDecision } from '../store/payments.ts';
import * as routingSetup from '../store/routing-setup.ts';
import { type Merchant, ownerOf } from './auth.ts';
import { redirectAuthenticating } from './authentication-policy.ts';
import { binOf, cardBrand } from '../model/cards.ts';
import { activeConnectors, describeTarget, modeOf, providerFees, type RouteTarget, routeTargets } from './route-targets.ts';
import { BadRequest, ResourceMissing } from '../model/errors.ts';
import { forcedProvider, planRoute, type RoutePlan } from './routing.ts';
import { chance, recentStats, roundRobinTurn } from './routing-context.ts';
import { activeRules, type PaymentFacts } from './routing-rules.ts';

/**
 * A payment's route: the providers the strategy orders, their connector accounts, and the routing decision the
 * payment shows (a simulation shows it without charging).
 */
export type SimulateRouteInput = v.InferOutput<typeof SimulateRouteBody>;

const factsOf = (input: SimulateRouteInput, cardNumber: string | undefined, customerEmail: string | undefined): PaymentFacts => ({
  currency: input.currency,
  amount: input.amount,
  card_brand: cardNumber ? cardBrand(cardNumber) : undefined,
  card_bin: (cardNumber && binOf(cardNumber, 8)) || undefined,
  customer_email_domain: customerEmail?.split('@')[1],
  metadata: input.metadata ?? {},
});

/**
 * The route: providers ordered by the strategy, then each provider's connector accounts of the payment's mode (or,
 * in test mode, its sandbox). Live mode with no eligible account answers 400 `connector_missing`.
 */
export async function routePayment(
  merchant: Merchant,
  input: SimulateRouteInput,
  cardNumber: string | undefined,
  {
    simulation = false,
    customerEmail = Promise.resolve(input.customer?.email),
  }: { simulation?: boolean; customerEmail?: Promise<string | undefined> } = {},
) {
  const owner = ownerOf(merchant);
  // a forced provider consults no rule, so its payment reads none; the customer's e-mail (read beside) feeds the rules
  const [setup, stats, email] = await Promise.all([
    routingSetup.readRoutingSetup(owner, { rules: !forcedProvider(input.routing) }),
    recentStats(owner),
    customerEmail,
  ]);
  const rules = activeRules(setup.rules);
  const accounts = activeConnectors(setup.connectors);
  const providers = planRoute({
    choice: input.routing,
    facts: factsOf(input, cardNumber, email),
    rules,
    stats: stats.providers,
    random: chance.random,
    sequence: input.routing === 'round_robin' ? roundRobinTurn(merchant.id, !simulation) : 0,
    fees: providerFees(accounts, modeOf(merchant), input.amount),
  });
  const targets = routeTargets(accounts, modeOf(merchant), providers.candidates, {
    stats: stats.connectors,
    amount: input.amount,
    cheapestFirst: providers.strategy === 'lowest_cost',
  });
  if (targets.length === 0) {
    const wanted = providers.candidates.join(', ');
    throw new BadRequest(
      'connector_missing',
      'routing',
      `no active ${modeOf(merchant)} connector account for ${wanted}; connect one with POST /api/connectors`,
    );
  }
  return { route: { ...providers, targets }, stats };
}

export type Route = RoutePlan & { targets: RouteTarget[] };

/** The decision a payment would get, charging nothing and counting nothing. */
export async function simulateRoute(merchant: Merchant, input: SimulateRouteInput) {
  const started = performance.now();
  const { route } = await routePayment(merchant, input, input.payment_method?.card?.number, {
    simulation: true,
    customerEmail: linkedCustomer(merchant, input).then((customer) => {
      if (input.customer_id !== undefined && !customer)
        throw new ResourceMissing('customer_id', `no customer ${input.customer_id} in ${modeOf(merchant)} mode`);
      return customer?.email ?? input.customer?.email;
    }),
  });
  const routed = route.authenticationRequiredBy ? redirectAuthenticating(route, route.authenticationRequiredBy) : route;
  return {
    object: 'routing_simulation' as const,
    provider: routed.targets[0]?.provider ?? null,
    routing_decision: decision(routed, routed.targets[0], started),
  };
}

/** An off-session charge of a saved card (a renewal) is routed as a create is (smart), with its decision. */
export async function routeSavedCard(merchant: Merchant, charge: { amount: number; currency: string }, cardNumber: string): Promise<RoutedTargets> {
  const started = performance.now();
  const { route } = await routePayment(merchant, { ...charge, routing: 'smart' }, cardNumber);
  return routed(route, started);
}

/** The targets an authorization tries, in order, and the decision the payment shows for the one that answered. */
export interface RoutedTargets {
  targets: readonly RouteTarget[];
  describe: (target: RouteTarget, softFailures: readonly SoftFailureSeen[]) => RoutingDecision;
}

/** A route as an authorization tries it; the decision's latency counts from `started`. */
export const routed = (route: Route, started: number): RoutedTargets => ({
  targets: route.targets,
  describe: (target, softFailures) => decision(withFailover(route, softFailures, target), target, started),
});

/** A soft failure on the way: the target that answered it, and why (`authenticate`: the shopper must authenticate elsewhere). */
export interface SoftFailureSeen {
  target: RouteTarget;
  reason: string;
  authenticate?: true;
}

/** How a reason names a target: by provider alone when the route has no connector account, else by account. */
const nameIn = (route: Route) => (route.targets.some((t) => t.connectorId) ? describeTarget : (t: RouteTarget) => t.provider);

/** The decision as the payment shows it; with connector accounts, the reason names the one chosen and the order tried. */
function decision(route: Route, chosen: RouteTarget | undefined, started: number): RoutingDecision {
  const accounts = route.targets.some((t) => t.connectorId)
    ? ` Connector accounts in order: ${route.targets.map(describeTarget).join(' → ')}${chosen ? `; sent through ${describeTarget(chosen)}` : ''}.`
    : '';
  return {
    strategy: route.strategy,
    reason: `${route.reason}${accounts}`,
    alternatives_considered: route.candidates.filter((p) => p !== chosen?.provider),
    latency_ms: Math.round(performance.now() - started),
  };
}

/** When the first choices failed softly, the decision says so: the reason names them and why it moved on. */
function withFailover(route: Route, softFailures: readonly SoftFailureSeen[], target: RouteTarget): Route {
  if (softFailures.length === 0) return route;
  const name = nameIn(route);
  const failed = softFailures.map((f) => `${name(f.target)} answered ${f.reason}`).join(' and ');
  const authenticating = softFailures.some((f) => f.authenticate) ? ', with 3-D Secure' : '';
  return { ...route, reason: `${route.reason} Then ${failed}, so the payment failed over to ${name(target)}${authenticating}.` };
}

/** The customer the create links: by `customer_id` (undefined when not the merchant's, of this mode), else by e-mail. */
export async function linkedCustomer(
  merchant: Merchant,
  input: Pick<SimulateRouteInput, 'customer_id' | 'customer'>,
): Promise<(Pick<customers.CustomerRecord, 'id' | 'card_on_file'> & { email?: string }) | undefined> {
  if (input.customer_id !== undefined) return customers.getCustomer(ownerOf(merchant), input.customer_id);
  const email = input.customer?.email;
  return email ? customers.findCustomerByEmail(ownerOf(merchant), email) : undefined;
}
