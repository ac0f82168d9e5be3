/**
 * Checks HTTP answers against the OpenAPI document with ajv: the status must be one the operation documents, and a
 * JSON body must match that response's schema; and webhook bodies against the event's `webhooks` entry. Checked
 * closed-world (no property the document does not name), so a field added to a view without its schema fails too.
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
  const ajv = componentsAjv(document);
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
      throw new Error(`${key}: the body does not match the document:\n  ${problemsOf(validate).join('\n  ')}\n${JSON.stringify(body)}`);
    }
  };
}

/** An ajv that knows the document's component schemas (closed) as `components#/$defs/<Name>`. */
function componentsAjv(document: OpenApiDocument): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, formats: FORMATS });
  ajv.addSchema({ $id: 'components', $defs: closed((document.components as { schemas: Json }).schemas) as Json });
  return ajv;
}

const problemsOf = (validate: ValidateFunction) =>
  validate.errors!.map((e) => `${e.instancePath || '/'} ${e.message}${e.params.additionalProperty ? `: ${e.params.additionalProperty}` : ''}`);

/** `check(body)` throws when a webhook body (the JSON a merchant's endpoint receives) is not what the `webhooks` entry of its type says. */
export function payloadChecker(document: OpenApiDocument): (body: string) => void {
  const ajv = componentsAjv(document);
  const compiled = new Map<string, ValidateFunction>();
  return (body) => {
    const payload = JSON.parse(body) as { type?: unknown };
    const type = String(payload.type);
    if (!compiled.has(type)) {
      const webhook = document.webhooks[type];
      if (!webhook) throw new Error(`The event ${type} has no webhook in the OpenAPI document`);
      const content = (webhook.post.requestBody as { content: Record<string, { schema: Json }> }).content;
      compiled.set(type, ajv.compile(closed(content['application/json']!.schema) as Json));
    }
    const validate = compiled.get(type)!;
    if (!validate(payload)) throw new Error(`${type}: the body does not match the document:\n  ${problemsOf(validate).join('\n  ')}\n${body}`);
  };
}
