/**
 * Adyen's published Checkout API v72 (`infra/local/fakes/contracts/adyen-CheckoutService-v72.json`, OpenAPI 3.1) as
 * the fake and the generated client types read it: JSON Schema 2020-12 validators for the request and response
 * bodies of the operations our connector calls, and the slice of the document those operations need.
 *
 * Run directly (`npm run adyen:types`) it prints that slice, which openapi-typescript turns into
 * `shared/providers/adyen/checkout-v72.d.ts`: the eight operations with every schema they reach, descriptions and
 * examples left out (they stay in the contract file).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

type Json = Record<string, unknown>;

export const CONTRACT_FILE =
  process.env.ADYEN_CHECKOUT_CONTRACT ?? fileURLToPath(new URL('../contracts/adyen-CheckoutService-v72.json', import.meta.url));

/** The operations our connector calls, by the contract's path (all POST). */
export const CONTRACT_PATHS = [
  '/paymentMethods',
  '/payments',
  '/payments/details',
  '/cancels',
  '/payments/{paymentPspReference}/captures',
  '/payments/{paymentPspReference}/cancels',
  '/payments/{paymentPspReference}/refunds',
] as const;
export type ContractPath = (typeof CONTRACT_PATHS)[number];

/** The DELETE operations our connector calls (no body; their query parameters are checked). */
export const CONTRACT_DELETE_PATHS = ['/storedPaymentMethods/{storedPaymentMethodId}'] as const;
export type ContractDeletePath = (typeof CONTRACT_DELETE_PATHS)[number];

/** Why a DELETE of `path` with `query` lacks a query parameter the contract requires, or undefined. */
export function deleteProblem(path: ContractDeletePath, query: URLSearchParams): string | undefined {
  const parameters = (contract().paths[path]?.delete?.parameters ?? []) as { name: string; in: string; required?: boolean }[];
  const missing = parameters.filter((p) => p.in === 'query' && p.required && !query.get(p.name)).map((p) => p.name);
  return missing.length ? `DELETE ${path} needs the query parameters ${missing.join(', ')}` : undefined;
}

interface OpenApiDocument {
  openapi: string;
  info: Json;
  servers?: unknown[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; parameters?: Json; securitySchemes?: Json; examples?: Json };
}

let loaded: OpenApiDocument | undefined;
export const contract = (): OpenApiDocument => (loaded ??= JSON.parse(readFileSync(CONTRACT_FILE, 'utf8')) as OpenApiDocument);

/** The contract's `format`s (OpenAPI's int32/int64/double/byte and JSON Schema's dates), checked as Adyen documents them. */
export const FORMATS = {
  int32: { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 },
  int64: { type: 'number', validate: (n: number) => Number.isSafeInteger(n) },
  double: { type: 'number', validate: (n: number) => Number.isFinite(n) },
  byte: /^[A-Za-z0-9+/]*={0,2}$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
} as const;

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

/** A validator of `#/components/schemas/<name>`, compiled once per process (the PaymentRequest one takes a moment). */
function validatorOf(name: string): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    if (!ajv) {
      // strict: false: the document carries OpenAPI's own keywords (x-addedInVersion, x-anyOf, nullable, example).
      ajv = new Ajv2020({ allErrors: false, strict: false, formats: FORMATS });
      ajv.addSchema({ $id: 'adyen-checkout-v72', components: contract().components });
    }
    validate = ajv.compile({ $ref: `adyen-checkout-v72#/components/schemas/${name}` });
    compiled.set(name, validate);
  }
  return validate;
}

const schemaName = (schema: unknown): string => {
  const ref = (schema as { $ref?: string } | undefined)?.$ref;
  if (!ref) throw new Error('the contract names no schema here');
  return ref.split('/').pop()!;
};

const operation = (path: ContractPath) => {
  const post = contract().paths[path]?.post;
  if (!post) throw new Error(`POST ${path} is not in ${CONTRACT_FILE}`);
  return post as {
    requestBody: { content: Record<string, { schema: unknown }> };
    responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  };
};

/** The schema name of the JSON request body of POST `path`, e.g. `PaymentRequest`. */
export const requestSchemaOf = (path: ContractPath): string => schemaName(operation(path).requestBody.content['application/json']?.schema);

/** The schema name of the JSON answer of POST `path` with `status`; undocumented statuses are answered as a `ServiceError`. */
export const responseSchemaOf = (path: ContractPath, status: number): string => {
  const response = operation(path).responses[String(status)];
  return response ? schemaName(response.content?.['application/json']?.schema) : 'ServiceError';
};

const describe = (schema: string, errors: ErrorObject[] | null | undefined): string =>
  (errors ?? [])
    .map(
      (e) =>
        `${schema}${e.instancePath || ''} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
    )
    .join('; ');

/** Why `body` is not a valid request of POST `path` per the contract, or undefined when it is. */
export function requestProblem(path: ContractPath, body: unknown): string | undefined {
  const schema = requestSchemaOf(path);
  const validate = validatorOf(schema);
  if (!validate(body)) return describe(schema, validate.errors);
  // `additionalData` is a free string map whose documented keys are listed (x-anyOf) by the schemas it may follow:
  // a key none of them names (a typo such as `manualcapture`) would be ignored by Adyen, so the fake refuses it.
  const additional = (body as { additionalData?: Record<string, unknown> }).additionalData;
  if (additional) {
    const known = documentedAdditionalDataKeys(schema);
    const unknown = Object.keys(additional).filter((key) => !known.has(key));
    if (unknown.length > 0) return `${schema}/additionalData has keys no AdditionalData* schema documents: ${unknown.join(', ')}`;
  }
  return undefined;
}

/** Why `body` is not what the contract says POST `path` answers with `status`, or undefined when it is. */
export function responseProblem(path: ContractPath, status: number, body: unknown): string | undefined {
  const schema = responseSchemaOf(path, status);
  const validate = validatorOf(schema);
  return validate(body) ? undefined : describe(schema, validate.errors);
}

const additionalDataKeys = new Map<string, Set<string>>();
function documentedAdditionalDataKeys(schema: string): Set<string> {
  let keys = additionalDataKeys.get(schema);
  if (!keys) {
    const { schemas } = contract().components;
    const property = (schemas[schema]?.properties as Record<string, Json> | undefined)?.additionalData;
    const sources = ((property?.['x-anyOf'] as { $ref: string }[] | undefined) ?? []).map((ref) => schemas[schemaName(ref)]);
    keys = new Set(sources.flatMap((source) => Object.keys((source?.properties as Json | undefined) ?? {})));
    additionalDataKeys.set(schema, keys);
  }
  return keys;
}

/** The document cut down to CONTRACT_PATHS and the components they reach, without descriptions, examples or x- keys. */
export function typesSlice(): OpenApiDocument {
  const doc = contract();
  const reached = new Set<string>();
  const copy = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(copy);
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      const prose = (key === 'description' || key === 'summary') && typeof value === 'string';
      if (prose || key === 'examples' || key === 'example' || key.startsWith('x-')) continue;
      if (key === '$ref' && typeof value === 'string') reached.add(value);
      out[key] = copy(value);
    }
    return out;
  };
  const paths = Object.fromEntries([
    ...CONTRACT_PATHS.map((path) => [path, { post: copy(doc.paths[path]?.post) as Json }]),
    ...CONTRACT_DELETE_PATHS.map((path) => [path, { delete: copy(doc.paths[path]?.delete) as Json }]),
  ]);
  const components: Record<string, Json> = {};
  const done = new Set<string>();
  for (let pending = [...reached]; pending.length > 0; pending = [...reached].filter((ref) => !done.has(ref))) {
    for (const ref of pending) {
      done.add(ref);
      const [, , kind, name] = ref.split('/') as [string, string, string, string];
      const source = (doc.components as Record<string, Record<string, unknown>>)[kind]?.[name];
      (components[kind] ??= {})[name] = copy(source);
    }
  }
  return {
    openapi: doc.openapi,
    info: { title: doc.info.title, version: doc.info.version },
    servers: doc.servers,
    paths,
    components: components as OpenApiDocument['components'],
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.stdout.write(JSON.stringify(typesSlice()));
