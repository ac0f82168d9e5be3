import { type Answer, badParam } from './answers.ts';
import type { Form } from './form.ts';
import type { StripeObject } from './objects.ts';

/**
 * Stripe's `expand[]` for the expansions the connector asks for: a PaymentIntent's `latest_charge` (its network
 * transaction id is on the Charge), on a PaymentIntent answer or on every PaymentIntent of a list or search; and a
 * balance transaction's `source` (expanded by the payouts' own read, `payouts.ts`).
 */
const EXPANDABLE = (method: string, path: string): string | undefined => {
  // a payout's balance transactions with the object each one moved money for (a Charge, Refund or Dispute)
  if (method === 'GET' && path === '/v1/balance_transactions') return 'data.source';
  if (method === 'GET' && (path === '/v1/payment_intents' || path === '/v1/payment_intents/search')) return 'data.latest_charge';
  if (/^\/v1\/payment_intents(\/pi_\w+(\/capture|\/cancel)?)?$/.test(path)) return 'latest_charge';
  return undefined;
};

export const expansionsOf = (form: Form): string[] => {
  const expand = form.expand;
  return Array.isArray(expand) ? expand.filter((path): path is string => typeof path === 'string') : [];
};

/** Stripe's refusal of a path it cannot expand here, before the endpoint runs; undefined when every path can be. */
export function expansionProblem(method: string, path: string, form: Form): Answer | undefined {
  const allowed = EXPANDABLE(method, path);
  const wrong = expansionsOf(form).find((asked) => asked !== allowed);
  return wrong === undefined ? undefined : badParam('expand', `This property cannot be expanded (${wrong}).`);
}

/** A copy of an answer's body with each asked `latest_charge` id replaced by the Charge as it stands now. */
export function expanded(body: unknown, paths: string[], charge: (intentId: string) => StripeObject): unknown {
  if (paths.length === 0 || !body || typeof body !== 'object') return body;
  const expandIntent = (intent: StripeObject): StripeObject =>
    typeof intent.latest_charge === 'string' ? { ...intent, latest_charge: charge(String(intent.id)) } : intent;
  const object = body as StripeObject;
  if (object.object === 'payment_intent' && paths.includes('latest_charge')) return expandIntent(object);
  if ((object.object === 'list' || object.object === 'search_result') && paths.includes('data.latest_charge'))
    return { ...object, data: (object.data as StripeObject[]).map(expandIntent) };
  return body;
}
