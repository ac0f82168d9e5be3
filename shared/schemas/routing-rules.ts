import * as v from 'valibot';
import { listQuery } from './common.ts';
import { PROVIDERS } from '../providers/types.ts';
import { CARD_BRAND_NAMES } from '../model/card-numbers.ts';
import { LIST_OPERATORS, NUMERIC_OPERATORS, RULE_BASE_FIELDS, RULE_OPERATORS, type RuleField, type RuleOperator } from '../model/routing.ts';

/**
 * Routing rule bodies (docs/api.md "Routing" states what a rule may hold; the rules for users are in
 * docs/providers.md "Routing rules"). `strategy` defaults to `fixed` (a rule names a provider), `priority` (0–1000) to
 * 100, `three_d_secure` to `automatic`; `conditions` is required on create (`[]` on purpose for a catch-all); `status` is `active` on create, and PUT may
 * disable it. Condition values are trimmed and normalized per field (amount without leading zeros, currency uppercase,
 * brand and e-mail domain lowercase). Every failure is a 400 naming the field, e.g. `conditions.0.value`.
 */

export const RULE_STRATEGIES = ['fixed', 'smart'] as const;
export const RULE_STATUSES = ['active', 'disabled'] as const;
/** `required`: a matching payment authenticates (3-D Secure) as if its create said `three_d_secure: "required"` */
export const RULE_THREE_D_SECURE = ['automatic', 'required'] as const;

export const MAX_CONDITIONS = 20;
const METADATA_PREFIX = 'metadata.';
const MAX_METADATA_KEY = 40;

export const metadataKeyOf = (field: string): string | undefined =>
  field.startsWith(METADATA_PREFIX) ? field.slice(METADATA_PREFIX.length) : undefined;

const isRuleField = (field: unknown): field is RuleField => {
  if (typeof field !== 'string') return false;
  if ((RULE_BASE_FIELDS as readonly string[]).includes(field)) return true;
  const key = metadataKeyOf(field);
  return key !== undefined && key.length >= 1 && key.length <= MAX_METADATA_KEY;
};

type Kind = 'amount' | 'currency' | 'card_brand' | 'card_bin' | 'customer_email_domain' | 'metadata';
const kindOf = (field: RuleField): Kind => (metadataKeyOf(field) !== undefined ? 'metadata' : (field as Kind));

const EQUALITY: readonly RuleOperator[] = ['equals', 'not_equals', ...LIST_OPERATORS];
const OPERATORS_BY_KIND: Record<Kind, readonly RuleOperator[]> = {
  amount: [...EQUALITY, ...NUMERIC_OPERATORS],
  currency: EQUALITY,
  card_brand: EQUALITY,
  card_bin: EQUALITY,
  customer_email_domain: [...EQUALITY, 'contains'],
  metadata: [...EQUALITY, 'contains'],
};

/** One value (or list item) of a field, normalized; undefined when it is not a valid value of that field. */
const ITEM: Record<Kind, (item: string) => string | undefined> = {
  amount: (s) => (/^\d{1,15}$/.test(s) ? String(Number(s)) : undefined),
  currency: (s) => (/^[A-Za-z]{3}$/.test(s) ? s.toUpperCase() : undefined),
  card_brand: (s) => ((CARD_BRAND_NAMES as readonly string[]).includes(s.toLowerCase()) ? s.toLowerCase() : undefined),
  card_bin: (s) => (/^\d{6,8}$/.test(s) ? s : undefined),
  customer_email_domain: (s) => (/^[a-z0-9.-]{1,253}$/.test(s.toLowerCase()) ? s.toLowerCase() : undefined),
  metadata: (s) => s,
};

/** The items of an `in`/`not_in` value: split on commas, trimmed. */
export const listItems = (value: string): string[] => value.split(',').map((item) => item.trim());

const operatorFits = (field: RuleField, operator: RuleOperator): boolean => OPERATORS_BY_KIND[kindOf(field)].includes(operator);

/** The stored form of a condition's value, or undefined when the value does not fit the field and operator. */
function normalizeValue(field: RuleField, operator: RuleOperator, value: string): string | undefined {
  const item = ITEM[kindOf(field)];
  if (!(LIST_OPERATORS as readonly string[]).includes(operator)) {
    const trimmed = value.trim();
    return trimmed === '' ? undefined : item(trimmed);
  }
  const items = listItems(value).map((i) => (i === '' ? undefined : item(i)));
  return items.every((i) => i !== undefined) ? items.join(',') : undefined;
}

export const RuleCondition = v.pipe(
  v.object({
    field: v.pipe(
      v.custom<RuleField>(isRuleField, `one of: ${RULE_BASE_FIELDS.join(', ')}, or metadata.<key>`),
      // what JSON Schema (the OpenAPI document) says of it
      v.metadata({
        anyOf: [
          { type: 'string', enum: RULE_BASE_FIELDS },
          { type: 'string', pattern: '^metadata\\..{1,40}$' },
        ],
      }),
    ),
    operator: v.picklist(RULE_OPERATORS),
    value: v.pipe(v.string(), v.minLength(1), v.maxLength(500)),
  }),
  v.forward(
    v.check(
      (c) => operatorFits(c.field, c.operator),
      'an operator that fits the field: the numeric ones for amount only, contains for customer_email_domain and metadata.<key>',
    ),
    ['operator'],
  ),
  v.forward(
    v.check(
      (c) => normalizeValue(c.field, c.operator, c.value) !== undefined,
      'a value that fits the field: amount digits, currency 3 letters, card_bin 6 to 8 digits, a card brand; in and not_in take a comma list',
    ),
    ['value'],
  ),
  v.transform((c) => ({ field: c.field, operator: c.operator, value: normalizeValue(c.field, c.operator, c.value)! })),
);

const RuleName = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100), v.examples(['EUR to Adyen']));
const Priority = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1000));
const Conditions = v.pipe(
  v.array(RuleCondition),
  v.maxLength(MAX_CONDITIONS),
  v.examples([[{ field: 'currency' as RuleField, operator: 'equals' as const, value: 'EUR' }]]),
);
const Provider = v.pipe(v.picklist(PROVIDERS), v.examples(['adyen' as const]));
const Strategy = v.picklist(RULE_STRATEGIES);
const ThreeDSecure = v.pipe(
  v.picklist(RULE_THREE_D_SECURE),
  v.description(
    '`required`: a payment the rule matches authenticates (3-D Secure) as if its create said `three_d_secure: "required"`: it needs `return_url` and is not routed to Braintree',
  ),
);

export const CreateRoutingRuleBody = v.object({
  name: RuleName,
  provider: Provider,
  strategy: v.optional(Strategy, 'fixed'),
  priority: v.optional(Priority, 100),
  conditions: Conditions,
  three_d_secure: v.optional(ThreeDSecure, 'automatic'),
});

export const UpdateRoutingRuleBody = v.object({
  name: v.optional(RuleName),
  provider: v.optional(Provider),
  strategy: v.optional(Strategy),
  priority: v.optional(Priority),
  conditions: v.optional(Conditions),
  three_d_secure: v.optional(ThreeDSecure),
  status: v.optional(v.picklist(RULE_STATUSES)),
});

/** `GET /api/routing/rules`: pagination only. */
export const ListRoutingRulesQuery = listQuery('rule');
