/** Payments and routing as the API returns them (shared/domain/payment-view.ts `paymentView`, routing-rules.ts). */
import * as v from 'valibot';
import { CARD_BRAND_NAMES } from '../../model/card-numbers.ts';
import { PROVIDERS } from '../../providers/types.ts';
import { RULE_STATUSES, RULE_STRATEGIES, RULE_THREE_D_SECURE } from '../routing-rules.ts';
import { RULE_OPERATORS } from '../../model/routing.ts';
import { Amount, Count, Currency, Email, Id, list, Livemode, Metadata, Phone, Timestamp } from './common.ts';

const Provider = v.pipe(v.picklist(PROVIDERS), v.description('lowercase provider name'));

export const RoutingDecision = v.object({
  strategy: v.picklist(['smart', 'rules', 'lowest_cost', 'round_robin', 'forced', 'card_on_file']),
  reason: v.pipe(
    v.string(),
    v.examples(['Smart routing chose stripe: highest score stripe 84.0 (approval 91.7% over 12 recent attempts, 125 ms, fee 2.90%).']),
  ),
  alternatives_considered: v.pipe(v.array(Provider), v.description('the other eligible providers, best first'), v.examples([['adyen', 'braintree']])),
  latency_ms: v.pipe(Count, v.description('routing plus authorization'), v.examples([19])),
});

const paymentEntries = {
  id: Id('payment'),
  object: v.literal('payment'),
  status: v.picklist(['requires_action', 'succeeded', 'captured', 'voided', 'refunded', 'failed']),
  amount: Amount,
  currency: Currency,
  amount_captured: v.pipe(Amount, v.examples([0])),
  amount_refunded: v.pipe(Amount, v.examples([0])),
  provider: v.nullable(Provider),
  connector_id: v.pipe(
    v.nullable(Id('connector')),
    v.description("the merchant's connector account that holds the authorization; null for the built-in sandbox (test mode)"),
  ),
  routing_decision: v.nullable(RoutingDecision),
  risk_score: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100), v.examples([15])),
  decline_code: v.nullable(v.pipe(v.string(), v.description('why a `failed` payment was declined'))),
  attempts: v.pipe(
    v.array(
      v.object({
        id: Id('attempt'),
        status: v.picklist(['pending', 'requires_action', 'authorized', 'declined', 'failed', 'unknown', 'reversed']),
        provider: Provider,
        connector_id: v.nullable(Id('connector')),
        decline_code: v.nullable(v.string()),
        latency_ms: v.nullable(v.pipe(v.number(), v.minValue(0))),
        created_at: Timestamp,
      }),
    ),
    v.description('every authorization attempt, oldest first; its id is the idempotency key the provider received'),
  ),
  payment_method: v.object({
    id: v.pipe(v.nullable(Id('paymentMethod')), v.description('the saved payment method charged; null for a card sent with the create')),
    type: v.literal('card'),
    card: v.object({
      brand: v.picklist(CARD_BRAND_NAMES),
      last4: v.pipe(v.string(), v.regex(/^\d{4}$/), v.examples(['4242'])),
      exp_month: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(12), v.examples([12])),
      exp_year: v.pipe(v.number(), v.integer(), v.examples([2030])),
    }),
  }),
  customer_id: v.nullable(Id('customer')),
  next_action: v.pipe(
    v.nullable(v.object({ type: v.literal('redirect_to_url'), redirect_to_url: v.object({ url: v.string(), return_url: v.string() }) })),
    v.description('while `requires_action`: send the shopper to `redirect_to_url.url`; they come back to `return_url` with `payment_id`'),
  ),
  three_d_secure: v.pipe(
    v.nullable(
      v.object({
        version: v.nullable(v.string()),
        flow: v.picklist(['challenge', 'frictionless']),
        result: v.picklist(['authenticated', 'attempted', 'failed', 'exempted', 'not_supported']),
        eci: v.nullable(v.string()),
        liability_shift: v.boolean(),
      }),
    ),
    v.description("the shopper's 3-D Secure authentication, once there was one"),
  ),
  capture_method: v.pipe(v.picklist(['manual', 'automatic']), v.description('`automatic`: captured by its create')),
  customer: v.nullable(v.object({ email: v.optional(Email), name: v.optional(v.string()), phone: v.optional(Phone) })),
  description: v.nullable(v.string()),
  payment_link_id: v.pipe(v.nullable(Id('paymentLink')), v.description('the payment link it was paid on (null: none)')),
  metadata: Metadata,
  livemode: Livemode,
  created_at: Timestamp,
};

export const Payment = v.object(paymentEntries);

/** `total`: how many payments match the filters. */
export const PaymentList = v.object({ ...list(Payment).entries, total: Count });

/** The refunded payment; `amount` is this refund's amount, `amount_refunded` the sum of all refunds. */
export const Refund = v.object({
  ...paymentEntries,
  status: v.pipe(paymentEntries.status, v.examples(['refunded'])),
  amount_captured: v.pipe(Amount, v.examples([4999])),
  amount_refunded: v.pipe(Amount, v.examples([1500])),
  refund_id: Id('refund'),
  amount: v.pipe(Amount, v.examples([1500])),
});

/** A refund as an object (`GET /api/refunds/:id`, `GET /api/refunds`). */
export const RefundObject = v.object({
  id: Id('refund'),
  object: v.literal('refund'),
  payment_id: Id('payment'),
  amount: v.pipe(Amount, v.examples([1500])),
  currency: v.nullable(Currency),
  reason: v.pipe(
    v.nullable(v.string()),
    v.description('requested_by_customer, duplicate or fraudulent, as the refund request gave it'),
    v.examples(['requested_by_customer']),
  ),
  status: v.pipe(
    v.picklist(['pending', 'succeeded', 'failed']),
    v.description('pending holds its amount on the payment until the provider confirms'),
  ),
  failure_reason: v.nullable(v.string()),
  created_at: Timestamp,
  livemode: Livemode,
  metadata: Metadata,
});

export const RefundList = list(RefundObject);

export const RouteSimulation = v.object({
  object: v.literal('routing_simulation'),
  provider: v.nullable(Provider),
  routing_decision: RoutingDecision,
});

export const RoutingRule = v.object({
  id: Id('rule'),
  object: v.literal('routing_rule'),
  livemode: Livemode,
  name: v.pipe(v.string(), v.examples(['EUR to Adyen'])),
  strategy: v.picklist(RULE_STRATEGIES),
  priority: v.pipe(v.number(), v.integer(), v.examples([100])),
  conditions: v.array(
    v.object({
      field: v.pipe(v.string(), v.examples(['currency'])),
      operator: v.picklist(RULE_OPERATORS),
      value: v.pipe(v.string(), v.examples(['EUR'])),
    }),
  ),
  provider: Provider,
  three_d_secure: v.picklist(RULE_THREE_D_SECURE),
  status: v.picklist(RULE_STATUSES),
  created_at: Timestamp,
});

export const RoutingRuleList = list(RoutingRule);
export const DeletedRoutingRule = v.object({ id: Id('rule'), object: v.literal('routing_rule'), deleted: v.literal(true) });
