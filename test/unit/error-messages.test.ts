import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { httpFunctions } from '../../functions/catalog.ts';
import { loadHandler } from '../../infra/local/lambda.ts';
import type { HttpHandler } from '../../shared/http/index.ts';
import { invalidParameter } from '../../shared/http/validate.ts';
import { CreateCustomerBody } from '../../shared/schemas/customers.ts';
import { DisputeEvidenceBody } from '../../shared/schemas/disputes.ts';
import { CreatePaymentBody, ListPaymentsQuery } from '../../shared/schemas/payments.ts';
import { CreateRoutingRuleBody } from '../../shared/schemas/routing-rules.ts';
import { ConfigureWebhookBody } from '../../shared/schemas/webhooks.ts';
import { DOCUMENTED_400_CODES, VALIDATOR_JARGON } from '../support/error-codes.ts';

/**
 * Errors written for people (docs/api.md "Answers and errors"): a 400 of bad input names the field in `param` and says the
 * rule in words, never a validator's internals, with one of the codes docs/api.md names. First a table of rules and the
 * sentences they produce; then every field of every request schema of the catalog, given bad input of each kind.
 */

/** The 400 the chain answers for `input` (the same function the validation step throws with). */
function answer(schema: v.GenericSchema, input: unknown) {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) throw new Error(`accepted: ${JSON.stringify(input)}`);
  const error = invalidParameter(schema, result.issues[0]);
  return { code: error.code, param: error.details.param, message: error.message };
}

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };
const payment = { amount: 4999, currency: 'eur', payment_method: { type: 'card', card } };
const rule = { name: 'EUR to Adyen', provider: 'adyen', conditions: [{ field: 'currency', operator: 'equals', value: 'EUR' }] };
const condition = (c: Record<string, string>) => ({ ...rule, conditions: [{ ...rule.conditions[0], ...c }] });

describe('the sentence of each rule', () => {
  it.each([
    [CreatePaymentBody, { ...payment, amount: 0 }, 'parameter_invalid', 'amount', 'amount must be an integer from 1 to 99999999'],
    [CreatePaymentBody, { ...payment, amount: '10' }, 'parameter_invalid', 'amount', 'amount must be an integer from 1 to 99999999'],
    [CreatePaymentBody, { ...payment, currency: 'XXY' }, 'parameter_invalid', 'currency', 'currency must be an ISO 4217 currency code, any case'],
    [CreatePaymentBody, { amount: 5 }, 'parameter_missing', 'currency', 'currency is required'],
    [
      CreatePaymentBody,
      { ...payment, routing: 'fastest' },
      'parameter_invalid',
      'routing',
      'routing must be one of: smart, rules, lowest_cost, round_robin, stripe, adyen, braintree',
    ],
    [
      CreatePaymentBody,
      { ...payment, payment_method: { type: 'card', card: { ...card, number: '4242 4242' } } },
      'parameter_invalid',
      'payment_method.card.number',
      'payment_method.card.number must be a card number of 13 to 19 digits',
    ],
    [
      CreatePaymentBody,
      { ...payment, payment_method: { type: 'card', card: { ...card, number: '4242424242424241' } } },
      'parameter_invalid',
      'payment_method.card.number',
      'payment_method.card.number must be a card number that passes the Luhn check',
    ],
    [
      CreatePaymentBody,
      { ...payment, payment_method: { type: 'card', card: { ...card, exp_year: 2001 } } },
      'parameter_invalid',
      'payment_method.card.exp_year',
      'payment_method.card.exp_year must not be past: the card has expired',
    ],
    [
      CreatePaymentBody,
      { ...payment, payment_method: { type: 'card', card: { ...card, cvc: '12' } } },
      'parameter_invalid',
      'payment_method.card.cvc',
      'payment_method.card.cvc must be 3 or 4 digits',
    ],
    [
      CreatePaymentBody,
      { ...payment, payment_method: { type: 'bank', card } },
      'parameter_invalid',
      'payment_method.type',
      'payment_method.type must be "card"',
    ],
    [CreateCustomerBody, { email: 'a@b.co', phone: '14155550123' }, 'parameter_invalid', 'phone', 'phone must be E.164: + then 8 to 15 digits'],
    [CreateCustomerBody, { email: 'jane@' }, 'parameter_invalid', 'email', 'email must be a valid e-mail address'],
    [CreateCustomerBody, { email: 'a@b.co', name: ' ' }, 'parameter_invalid', 'name', 'name must be a string of 1 to 200 characters'],
    [CreateCustomerBody, { email: 'a@b.co', metadata: ['x'] }, 'parameter_invalid', 'metadata', 'metadata must be an object of string values'],
    [
      CreateCustomerBody,
      { email: 'a@b.co', metadata: { k: 'v'.repeat(501) } },
      'parameter_invalid',
      'metadata.k',
      'metadata.k must be a string of at most 500 characters',
    ],
    [ListPaymentsQuery, { limit: '1000' }, 'parameter_invalid', 'limit', 'limit must be an integer from 1 to 100'],
    [ListPaymentsQuery, { limit: '0' }, 'parameter_invalid', 'limit', 'limit must be an integer from 1 to 100'],
    [ListPaymentsQuery, { starting_after: 'cus_1' }, 'parameter_invalid', 'starting_after', 'starting_after must be the id of a payment'],
    [ListPaymentsQuery, { 'created[gte]': 'yesterday' }, 'parameter_invalid', 'created[gte]', 'created[gte] must be an ISO date or date-time'],
    [ListPaymentsQuery, { 'created[gte]': '2026-02-30' }, 'parameter_invalid', 'created[gte]', 'created[gte] must be a real date'],
    [
      DisputeEvidenceBody,
      { bogus_field: 'x' },
      'parameter_unknown',
      'bogus_field',
      expect.stringMatching(/^Invalid request body: bogus_field is not a field this takes \(it takes [a-z_, ]+\)$/),
    ],
    [
      CreateRoutingRuleBody,
      condition({ field: 'colour' }),
      'parameter_invalid',
      'conditions.0.field',
      'conditions.0.field must be one of: currency, amount, card_brand, card_bin, customer_email_domain, or metadata.<key>',
    ],
    [
      CreateRoutingRuleBody,
      condition({ operator: 'greater_than' }),
      'parameter_invalid',
      'conditions.0.operator',
      'conditions.0.operator must be an operator that fits the field: the numeric ones for amount only, contains for customer_email_domain and metadata.<key>',
    ],
    [
      ConfigureWebhookBody,
      { url: 'https://example.com', events: ['payment.exploded'] },
      'parameter_invalid',
      'events.0',
      expect.stringMatching(/^Invalid request body: events\.0 must be one of: payment\.succeeded, .+, or \*$/),
    ],
  ] as const)('%#: %o answers its field and rule', (schema, input, code, param, reason) => {
    const expected = typeof reason === 'string' ? `Invalid request body: ${reason}` : reason;
    expect(answer(schema as v.GenericSchema, input)).toEqual({ code, param, message: expected });
  });
});

interface Node {
  type: string;
  entries?: Record<string, Node>;
  wrapped?: Node;
  item?: Node;
  pipe?: ReadonlyArray<{ kind: string; type: string; requirement?: unknown; pipe?: unknown }>;
}
type Path = (string | number)[];

const OPTIONAL = new Set(['optional', 'nullish', 'exact_optional', 'undefinedable']);
const unwrap = (node: Node): { node: Node; optional: boolean } => {
  let optional = false;
  while (node.wrapped) {
    if (OPTIONAL.has(node.type)) optional = true;
    node = node.wrapped;
  }
  return { node, optional };
};
const actionsOf = (node: Node) => (node.pipe ?? []).filter((a) => a.kind !== 'schema');
const requirement = (node: Node, type: string) => actionsOf(node).find((a) => a.type === type)?.requirement as number | undefined;

/** Every field of a request schema, nested objects and the objects of arrays (as item 0) included. */
function fieldsOf(schema: Node, path: Path = []): { path: Path; node: Node; optional: boolean }[] {
  const { node } = unwrap(schema);
  if (node.entries) {
    return Object.entries(node.entries).flatMap(([key, entry]) => {
      const field = unwrap(entry);
      return [{ path: [...path, key], node: field.node, optional: field.optional }, ...fieldsOf(field.node, [...path, key])];
    });
  }
  if (node.type === 'array' && node.item) return fieldsOf(node.item, [...path, 0]);
  return [];
}

/** Bad values of each kind a field can be given: wrong type, out of range, bad format, unknown choice. */
function badValues(node: Node, inQuery: boolean): [string, unknown][] {
  const bad: [string, unknown][] = [];
  const wrongType = (value: unknown) => !inQuery && bad.push(['wrong type', value]);
  const formats = actionsOf(node).some((a) => ['regex', 'check', 'email', 'iso_timestamp', 'custom'].includes(a.type));
  switch (node.type) {
    case 'string': {
      wrongType(12345);
      const min = requirement(node, 'min_length') ?? requirement(node, 'length');
      const max = requirement(node, 'max_length') ?? requirement(node, 'length');
      if (min !== undefined && min > 0) bad.push(['too short', '']);
      if (max !== undefined) bad.push(['too long', 'x'.repeat(max + 1)]);
      if (formats) bad.push(['bad format', 'not valid!']);
      break;
    }
    case 'number': {
      wrongType('ten');
      const min = requirement(node, 'min_value');
      const max = requirement(node, 'max_value');
      if (min !== undefined) bad.push(['below range', min - 1]);
      if (max !== undefined) bad.push(['above range', max + 1]);
      if (actionsOf(node).some((a) => a.type === 'integer')) bad.push(['not an integer', 1.5]);
      break;
    }
    case 'picklist':
    case 'literal':
      bad.push(['unknown value', 'not_a_choice']);
      wrongType(42);
      break;
    case 'boolean':
      wrongType('yes');
      break;
    default:
      wrongType(node.type === 'array' ? 'x' : 42);
      if (node.type === 'custom' || formats) bad.push(['bad format', 'not valid!']);
  }
  return bad;
}

/** `input` with `value` at `path` (objects and arrays made on the way); a leaf `undefined` is left out. */
function withValue(path: Path, value: unknown): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at: Record<string | number, unknown> = root;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      if (value !== undefined) at[key] = value;
      return;
    }
    at = (at[key] = typeof path[i + 1] === 'number' ? [] : {}) as Record<string | number, unknown>;
  });
  return root;
}

const cases = await Promise.all(
  httpFunctions().map(async (spec) => {
    const { options } = (await loadHandler(spec.name)) as unknown as HttpHandler;
    const schemas = [
      ['body', options.body],
      ['query', options.query],
    ] as const;
    return schemas.flatMap(([where, schema]) => {
      if (!schema) return [];
      return fieldsOf(schema as unknown as Node).flatMap(({ path, node, optional }) => {
        const name = path.join('.');
        const kinds: [string, unknown][] = [
          ...badValues(node, where === 'query'),
          ...(optional ? [] : ([['missing', undefined]] as [string, unknown][])),
        ];
        if (unwrap(schema as unknown as Node).node.type === 'strict_object' && path.length === 1) kinds.push(['unknown field', undefined]);
        return kinds.map(([kind, value]) => ({
          route: `${spec.name} ${where}`,
          name,
          kind,
          schema,
          input: kind === 'unknown field' ? { bogus_field: 'x' } : withValue(path, value),
        }));
      });
    });
  }),
).then((all) => all.flat());

describe('every request schema of the catalog, given bad input', () => {
  it('walks a field of every kind', () => {
    expect(new Set(cases.map((c) => c.kind))).toEqual(
      new Set([
        'wrong type',
        'missing',
        'too short',
        'too long',
        'bad format',
        'below range',
        'above range',
        'not an integer',
        'unknown value',
        'unknown field',
      ]),
    );
    expect(cases.length).toBeGreaterThan(300);
  });

  it.each(cases.map((c) => [c.route, c.name, c.kind, c] as const))('%s %s (%s): names the field and the rule in words', (_r, name, kind, c) => {
    const result = v.safeParse(c.schema as v.GenericSchema, c.input);
    if (result.success) return; // a value some field accepts (a trim, a default): nothing to say
    // the issue of the field given, else the first (the chain answers the first; others may come before it)
    const issue = result.issues.find((i) => v.getDotPath(i) === (kind === 'unknown field' ? 'bogus_field' : name)) ?? result.issues[0];
    const error = invalidParameter(c.schema as v.GenericSchema, issue);
    const param = error.details.param;
    expect(error.status).toBe(400);
    expect(DOCUMENTED_400_CODES.has(error.code), error.code).toBe(true);
    expect(error.message).not.toMatch(VALIDATOR_JARGON);
    expect(error.message).not.toMatch(/ (has the wrong format|is not valid here)$/); // a rule not put in words
    expect(param, error.message).toBeTruthy();
    expect(error.message.startsWith(`Invalid request body: ${param} `), error.message).toBe(true);
    if (v.getDotPath(issue) === name) expect(param).toBe(name);
    if (kind === 'missing' && param === name) expect(error.code).toBe('parameter_missing');
    if (kind === 'unknown field') expect(error).toMatchObject({ code: 'parameter_unknown', details: { param: 'bogus_field' } });
  });
});
