import type * as v from 'valibot';

/**
 * The reason a developer can act on for a failed validation, as DECISIONS "Errors" shows it after the spec's text:
 * `amount must be an integer from 1 to 99999999`, `email is required`, `mode must be one of: live, test`.
 *
 * Built from the first valibot issue and the schema of the field it names: a message the schema's author wrote
 * (`v.check(…, 'an ISO 4217 currency code, any case')`) is shown as given; otherwise the field's type and the limits
 * of its pipe are described; and failing that, valibot's expected value. The value sent is never repeated.
 */
export function issueReason(schema: v.GenericSchema, issue: v.BaseIssue<unknown>, param: string | undefined): string {
  const field = param ?? 'the body';
  if (issue.received === 'undefined' && issue.kind === 'schema') return `${field} is required`;
  if (!isDefaultMessage(issue.message)) return param ? `${param} must be valid (${issue.message})` : issue.message;
  const described = describe(schemaAt(schema, issue.path ?? []));
  if (described) return `${field} must be ${described}`;
  // Never the value received: it may be a card number (and 400 answers are kept with idempotency keys).
  return issue.expected ? `${field} is invalid (expected ${issue.expected})` : `${field} is invalid`;
}

/** valibot's own messages read `Invalid type: Expected number but received "1"` and the like. */
const isDefaultMessage = (message: string) => /^Invalid [A-Za-z ]+: (Expected|Received) /.test(message);

interface SchemaLike {
  kind?: string;
  type: string;
  entries?: Record<string, SchemaLike>;
  wrapped?: SchemaLike;
  item?: SchemaLike;
  value?: SchemaLike;
  options?: unknown[];
  literal?: unknown;
  pipe?: ReadonlyArray<PipeItem>;
}
type PipeItem = { kind: string; type: string; requirement?: unknown; pipe?: ReadonlyArray<PipeItem> };

/** The actions of a pipe, those of piped schemas it starts from included (`v.pipe(Name, v.examples(…))`). */
const actionsOf = (pipe: ReadonlyArray<PipeItem> = []): PipeItem[] =>
  pipe.flatMap((item) => (item.kind === 'schema' ? (item.pipe ? actionsOf(item.pipe) : []) : [item]));

const WRAPPERS = new Set(['optional', 'nullable', 'nullish', 'exact_optional', 'undefinedable', 'non_optional', 'non_nullable', 'non_nullish']);

/** The schema of the field at `path`, through objects, arrays, records and optional wrappers; undefined elsewhere. */
function schemaAt(root: v.GenericSchema, path: readonly v.IssuePathItem[]): SchemaLike | undefined {
  let schema: SchemaLike | undefined = unwrap(root as unknown as SchemaLike);
  for (const item of path) {
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

/** `an integer from 1 to 99999999`, `a string of 1 to 200 characters`, `one of: live, test`, or undefined. */
function describe(schema: SchemaLike | undefined): string | undefined {
  if (!schema) return undefined;
  const actions = actionsOf(schema.pipe);
  const requirement = (type: string) => actions.find((a) => a.type === type)?.requirement;
  const range = (unit = '') => {
    const [min, max, exact] = unit
      ? [requirement('min_length'), requirement('max_length'), requirement('length')]
      : [requirement('min_value'), requirement('max_value'), undefined];
    if (exact !== undefined) return ` of exactly ${String(exact)}${unit}`;
    if (min !== undefined && max !== undefined)
      return unit ? ` of ${String(min)} to ${String(max)}${unit}` : ` from ${String(min)} to ${String(max)}`;
    if (min !== undefined) return ` of at least ${String(min)}${unit}`;
    if (max !== undefined) return ` of at most ${String(max)}${unit}`;
    return '';
  };
  switch (schema.type) {
    case 'number':
      return `${actions.some((a) => a.type === 'integer') ? 'an integer' : 'a number'}${range()}`;
    case 'string':
      if (actions.some((a) => a.type === 'email')) return 'a valid e-mail address';
      // a format or check of its own cannot be put in words here (valibot's expected value says it instead)
      if (actions.some((a) => ['regex', 'check', 'custom', 'raw_check'].includes(a.type))) return undefined;
      return `a string${range(' characters')}`;
    case 'boolean':
      return 'true or false';
    case 'picklist':
      return `one of: ${(schema.options ?? []).map(String).join(', ')}`;
    case 'literal':
      return JSON.stringify(schema.literal);
    case 'array':
      return `an array${range(' items')}`;
    case 'object':
    case 'strict_object':
    case 'loose_object':
      return 'an object';
    default:
      return undefined;
  }
}
