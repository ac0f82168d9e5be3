/**
 * valibot → JSON Schema (2020-12, what OpenAPI 3.1 uses) with `@valibot/to-json-schema`, and an example value for
 * any converted schema. Named schemas become `#/components/schemas/<Name>` references.
 *
 * What JSON Schema cannot say is documented rather than dropped: a `check` (Luhn, real calendar date, …) adds its
 * message to the description; transformations (trim, lowercase, `Number(…)`) are documented by what they produce
 * (`typeMode: 'output'`: the last schema of a pipe and its actions).
 */
import { type ConversionConfig, type JsonSchema as Converted, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';

export type JsonSchema = Record<string, unknown>;
export type Definitions = Record<string, v.GenericSchema>;

const note = (schema: Converted, message: unknown): Converted =>
  typeof message === 'string' ? { ...schema, description: [schema.description, message].filter(Boolean).join('; ') } : { ...schema };

const config = (definitions: Definitions): ConversionConfig => ({
  target: 'draft-2020-12',
  typeMode: 'output',
  definitions,
  ignoreActions: ['trim', 'to_lower_case', 'to_upper_case', 'transform'],
  overrideAction: ({ valibotAction, jsonSchema }) => {
    if (valibotAction.type === 'check' || valibotAction.type === 'partial_check')
      return note(jsonSchema, (valibotAction as { message?: unknown }).message);
    // A raw check (metadata's entries) is stated by the `v.metadata` of its pipe.
    if (valibotAction.type === 'raw_check') return { ...jsonSchema };
    return undefined;
  },
  // `v.custom` (e.g. a routing rule's `field`) is described by the metadata of its pipe.
  overrideSchema: ({ valibotSchema, jsonSchema }) => (valibotSchema.type === 'custom' ? { ...jsonSchema } : undefined),
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
});

/** The JSON Schema of `schema`; a schema named in `definitions` (or inside it) becomes a component reference. */
export function jsonSchemaOf(schema: v.GenericSchema, definitions: Definitions = {}): JsonSchema {
  const { $schema: _schema, $defs: _defs, ...rest } = toJsonSchema(schema, config(definitions)) as JsonSchema;
  return integerDefaults(rest);
}

/** The component schemas of `definitions`. */
export const componentsOf = (definitions: Definitions): Record<string, JsonSchema> =>
  Object.fromEntries(Object.entries(toJsonSchemaDefs(definitions, config(definitions))).map(([k, s]) => [k, integerDefaults(s as JsonSchema)]));

/** Query strings read as integers are documented as the integer (`limit`): no digit pattern, a number default. */
function integerDefaults(schema: JsonSchema): JsonSchema {
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  for (const p of Object.values(props ?? {})) {
    if (p.type !== 'integer') continue;
    delete p.pattern;
    if (typeof p.default === 'string') p.default = Number(p.default);
  }
  return schema;
}

const FORMAT_EXAMPLES: Record<string, string> = {
  'date-time': '2026-03-14T09:26:53.589Z',
  date: '2026-04-14',
  email: 'jane@example.com',
  uri: 'https://example.com',
  uuid: '3f0c2b1e-8d4a-4c6b-9a51-2f7e6d1c0b9a',
};

/**
 * A value of `schema` built from its examples, constants, enums and defaults (for the document's examples).
 * `minimal` (a request): only the required properties, and the optional ones that carry an example.
 */
export function exampleOf(schema: JsonSchema, components: Record<string, JsonSchema>, minimal = false): unknown {
  const of = (s: JsonSchema) => exampleOf(s, components, minimal);
  if (typeof schema.$ref === 'string') return of(components[schema.$ref.split('/').pop()!]!);
  if (Array.isArray(schema.examples)) return schema.examples.at(-1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  // one of several bodies (a variant): the last, the fullest
  if (Array.isArray(schema.oneOf)) return of(schema.oneOf.at(-1) as JsonSchema);
  if (Array.isArray(schema.anyOf)) {
    // nullable: the value's example when it has one worth showing, else null
    const value = of(schema.anyOf[0] as JsonSchema);
    return value === 'string' && schema.anyOf.some((s: JsonSchema) => s.type === 'null') ? null : value;
  }
  switch (schema.type) {
    case 'object': {
      const required = (schema.required ?? []) as string[];
      const props = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
      const shown = minimal ? props.filter(([name, prop]) => required.includes(name) || 'examples' in prop) : props;
      return Object.fromEntries(shown.map(([name, prop]) => [name, of(prop)]));
    }
    case 'array':
      return [of(schema.items as JsonSchema)];
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    default:
      return FORMAT_EXAMPLES[schema.format as string] ?? 'string';
  }
}
