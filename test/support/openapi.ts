/**
 * Checks HTTP answers against the OpenAPI document with ajv: the status must be one the operation documents, and a
 * JSON body must match that response's schema. Checked closed-world (no property the document does not name), so
 * a field added to a view without its schema fails too.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenApiDocument } from '../../infra/openapi/document.ts';

type Json = Record<string, unknown>;

const FORMATS = {
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  uri: (s: string) => URL.canParse(s),
};

/** A copy with `additionalProperties: false` on every object schema that names its properties, refs into `$defs`. */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== 'object') return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, closed(v)])) as Json;
  if (typeof out.$ref === 'string') out.$ref = out.$ref.replace('#/components/schemas/', 'components#/$defs/');
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

export type ResponseCheck = (method: string, path: string, status: number, body: unknown) => void;

/** `check(method, '/api/customers/{id}', status, body)` throws when the answer is not what the document says. */
export function responseChecker(document: OpenApiDocument): ResponseCheck {
  const components = document.components as { schemas: Json; responses: Record<string, Json> };
  const ajv = new Ajv2020({ allErrors: true, strict: false, formats: FORMATS });
  ajv.addSchema({ $id: 'components', $defs: closed(components.schemas) as Json });
  const compiled = new Map<string, ValidateFunction | null>();

  return (method, path, status, body) => {
    const operation = document.paths[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${path} is not in the OpenAPI document`);
    const key = `${method} ${path} ${status}`;
    if (!compiled.has(key)) {
      let response = operation.responses[String(status)];
      if (!response) throw new Error(`${key}: status not documented (documented: ${Object.keys(operation.responses).join(', ')})`);
      if (typeof response.$ref === 'string') response = components.responses[response.$ref.split('/').pop()!]!;
      const schema = (response.content as Record<string, { schema?: Json }> | undefined)?.['application/json']?.schema;
      compiled.set(key, schema ? ajv.compile(closed(schema) as Json) : null);
    }
    const validate = compiled.get(key);
    if (validate && !validate(body)) {
      const problems = validate.errors!.map(
        (e) => `${e.instancePath || '/'} ${e.message}${e.params.additionalProperty ? `: ${e.params.additionalProperty}` : ''}`,
      );
      throw new Error(`${key}: the body does not match the document:\n  ${problems.join('\n  ')}\n${JSON.stringify(body)}`);
    }
  };
}
