import type * as v from 'valibot';

/**
 * The reason a developer can act on for a failed validation, as docs/api.md "Answers and errors" shows it after the
 * spec's text: `amount must be an integer from 1 to 99999999`, `email is required`, `mode must be one of: live, test`,
 * `phone must be E.164: + then 8 to 15 digits`. It names the field and the rule in words, never a validator's
 * internals (an expected type such as `never`, a regular expression) nor the value sent (it may be a card number).
 *
 * A schema states a rule in its message argument, written to follow `<field> must be`: `v.regex(…, 'E.164: + then 8
 * to 15 digits')`; a message that starts with its own verb (`must …`, `is …`, `has …`) follows the field alone. A
 * rule without a message is described from the field's schema (type, limits, options).
 */
export function issueReason(schema: v.GenericSchema, issue: v.BaseIssue<unknown>, param: string | undefined): string {
  const field = param ?? 'the body';
  if (issue.received === 'undefined' && issue.kind === 'schema') return `${field} is required`;
  if (isUnknownKey(issue)) {
    const known = Object.keys(schemaAt(schema, (issue.path ?? []).slice(0, -1))?.entries ?? {});
    return `${field} is not a field this takes${known.length ? ` (it takes ${known.join(', ')})` : ''}`;
  }
  if (!isDefaultMessage(issue.message)) return param ? predicate(field, issue.message) : issue.message;
  const at = schemaAt(schema, issue.path ?? []);
  // a format whose schema states no rule in words (every request schema does: test/unit/error-messages.test.ts)
  if (issue.kind === 'validation' && FORMATS.includes(issue.type) && !(at && statedRule(at))) return `${field} has the wrong format`;
  const described = describe(at);
  return described ? predicate(field, described) : `${field} is not valid here`;
}

/** Whether the issue is a field that a strict object does not take (valibot expects `never` there). */
export const isUnknownKey = (issue: v.BaseIssue<unknown>): boolean => issue.kind === 'schema' && issue.expected === 'never';

/** `<field> must be <rule>`, or `<field> <rule>` for a rule with its own verb. */
const hasVerb = (rule: string) => /^(must|is|are|has|have|cannot|may)\b/.test(rule);
const predicate = (field: string, rule: string) => (hasVerb(rule) ? `${field} ${rule}` : `${field} must be ${rule}`);

/** valibot's own messages read `Invalid type: Expected number but received "1"` and the like. */
const isDefaultMessage = (message: string) => /^Invalid [A-Za-z ]+: (Expected|Received) /.test(message);

interface SchemaLike {
  kind?: string;
  type: string;
  message?: unknown;
  entries?: Record<string, SchemaLike>;
  wrapped?: SchemaLike;
  item?: SchemaLike;
  value?: SchemaLike;
  options?: unknown[];
  literal?: unknown;
  pipe?: ReadonlyArray<PipeItem>;
}
type PipeItem = { kind: string; type: string; requirement?: unknown; message?: unknown; pipe?: ReadonlyArray<PipeItem> };

/** The actions of a pipe, those of piped schemas it starts from included (`v.pipe(Name, v.examples(…))`). */
const actionsOf = (pipe: ReadonlyArray<PipeItem> = []): PipeItem[] =>
  pipe.flatMap((item) => (item.kind === 'schema' ? (item.pipe ? actionsOf(item.pipe) : []) : [item]));

const WRAPPERS = new Set(['optional', 'nullable', 'nullish', 'exact_optional', 'undefinedable', 'non_optional', 'non_nullable', 'non_nullish']);

/** The schema of the field at `path`, through objects, arrays, records and optional wrappers; undefined elsewhere. */
function schemaAt(root: v.GenericSchema, path: readonly v.IssuePathItem[]): SchemaLike | undefined {
  let schema: SchemaLike | undefined = unwrap(root as unknown as SchemaLike);
  for (const item of path) {
    if (!schema) return undefined;
    // a union (an id, or an object): the option whose object has the field
    if (schema.type === 'union') schema = (schema.options as SchemaLike[]).map(unwrap).find((option) => option?.entries?.[String(item.key)]);
    if (!schema) return undefined;
    if (schema.entries && item.type === 'object') schema = schema.entries[String(item.key)];
    else if (schema.item && item.type === 'array') schema = schema.item;
    else if (schema.value && item.type === 'object' && item.origin === 'value') schema = schema.value;
    else return undefined;
    schema = unwrap(schema);
  }
  return schema;
}

function unwrap(schema: SchemaLike | undefined): SchemaLike | undefined {
  while (schema && WRAPPERS.has(schema.type) && schema.wrapped) schema = schema.wrapped;
  return schema;
}

const FORMATS = ['regex', 'check', 'custom', 'raw_check', 'iso_timestamp'];

/**
 * The rule a schema's author wrote on the field as what a value must be (a format's or a check's message: `E.164: +
 * then 8 to 15 digits`), if any; a message with its own verb (`must have no spaces`) tells one rule, not the field's.
 */
function statedRule(schema: SchemaLike): string | undefined {
  const stated = [
    schema.message,
    ...actionsOf(schema.pipe)
      .filter((a) => FORMATS.includes(a.type))
      .map((a) => a.message),
  ];
  return stated.find((m): m is string => typeof m === 'string' && !hasVerb(m));
}

/** `an integer from 1 to 99999999`, `a string of 1 to 200 characters`, `one of: live, test`, or undefined. */
function describe(schema: SchemaLike | undefined): string | undefined {
  if (!schema) return undefined;
  const stated = statedRule(schema);
  if (stated) return stated;
  const actions = actionsOf(schema.pipe);
  const requirement = (type: string) => actions.find((a) => a.type === type)?.requirement;
  const range = (units = '') => {
    const unit = (n: unknown) => (n === 1 ? units.replace(/s$/, '') : units);
    const [min, max, exact] = units
      ? [requirement('min_length') ?? (actions.some((a) => a.type === 'non_empty') ? 1 : undefined), requirement('max_length'), requirement('length')]
      : [requirement('min_value'), requirement('max_value'), undefined];
    if (exact !== undefined) return ` of exactly ${String(exact)}${unit(exact)}`;
    if (min !== undefined && max !== undefined)
      return units ? ` of ${String(min)} to ${String(max)}${unit(max)}` : ` from ${String(min)} to ${String(max)}`;
    if (min !== undefined) return ` of at least ${String(min)}${unit(min)}`;
    if (max !== undefined) return ` of at most ${String(max)}${unit(max)}`;
    return '';
  };
  switch (schema.type) {
    case 'number':
      return `${actions.some((a) => a.type === 'integer') ? 'an integer' : 'a number'}${range()}`;
    case 'string':
      if (actions.some((a) => a.type === 'email')) return 'a valid e-mail address';
      return `a string${range(' characters')}`;
    case 'boolean':
      return 'true or false';
    case 'picklist':
      return `one of: ${(schema.options ?? []).map(String).join(', ')}`;
    case 'literal':
      return JSON.stringify(schema.literal);
    case 'array':
      return `an array${range(' items')}`;
    case 'record':
      return 'an object';
    case 'object':
    case 'strict_object':
    case 'loose_object':
      return 'an object';
    default:
      return undefined;
  }
}
