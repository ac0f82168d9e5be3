/**
 * The routing vocabulary the store keeps and the domain decides with: how a payment's provider was chosen, and what a
 * routing rule's conditions are made of (fields and operators; the request schema checks values against them).
 */

/** How a payment's provider was chosen (`forced`: the create named the provider). */
export type AppliedStrategy = 'smart' | 'rules' | 'lowest_cost' | 'round_robin' | 'forced';

export const RULE_BASE_FIELDS = ['currency', 'amount', 'card_brand', 'card_bin', 'customer_email_domain'] as const;
export type RuleField = (typeof RULE_BASE_FIELDS)[number] | `metadata.${string}`;

export const NUMERIC_OPERATORS = ['greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal'] as const;
export const LIST_OPERATORS = ['in', 'not_in'] as const;
export const RULE_OPERATORS = ['equals', 'not_equals', ...LIST_OPERATORS, ...NUMERIC_OPERATORS, 'contains'] as const;
export type RuleOperator = (typeof RULE_OPERATORS)[number];

/** One condition of a routing rule, as it is stored: its value normalized per field (see the request schema). */
export interface RuleCondition {
  field: RuleField;
  operator: RuleOperator;
  value: string;
}
