import { authenticated } from '../../shared/http/types.ts';
/**
 * The OpenAPI 3.1 document, generated from the function catalog (method, path, auth, summary) and what each handler
 * declares (`http({ body, query, params, response, … })`). Only prose is written by hand: each operation's description
 * (descriptions.ts), tag descriptions and the shared parts (shared-parts.ts: security, headers, error responses).
 *
 * Importing this module imports the response schemas, and building imports every handler: set the environment
 * shared/config.ts reads first (see write.ts).
 */
import { readdirSync } from 'node:fs';
import { httpFunctions, type HttpFunctionSpec } from '../../functions/catalog.ts';
import { EVENT_TYPES } from '../../shared/model/events.ts';
import { exampleId, idPattern } from '../../shared/model/ids.ts';
import type { HttpHandler } from '../../shared/http/index.ts';
import { EVENTS, eventPayloadSchema } from '../../shared/schemas/responses/events.ts';
import * as responses from '../../shared/schemas/responses/index.ts';
import { type HandlerLoader, loadHandler, projectRoot } from '../local/lambda.ts';
import { ERROR_RESPONSES, HEADERS, PARAMETERS, SECURITY_SCHEMES, SERVERS, TAGS, WEBHOOK_DELIVERY, WEBHOOK_RESPONSES } from './shared-parts.ts';
import { componentsOf, type Definitions, exampleOf, type JsonSchema, jsonSchemaOf } from './json-schema.ts';
import { errorStatuses } from './statuses.ts';
import { DESCRIPTIONS } from './descriptions.ts';

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
};
export type Operation = Record<string, unknown> & { operationId: string; responses: Record<string, JsonSchema> };

export interface BuildOptions {
  /** the servers to list; default: the local runtime and the deployed stage */
  servers?: { url: string; description: string }[];
  loader?: HandlerLoader;
}

const isSchema = (value: unknown): value is Definitions[string] =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'schema';
const schemasOf = (module: Record<string, unknown>): Definitions =>
  Object.fromEntries(Object.entries(module).filter((entry): entry is [string, Definitions[string]] => isSchema(entry[1])));

/** `routing/rules/create` → `routingRulesCreate` */
export const operationIdOf = (name: string): string => name.replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase());

const pascal = (name: string) => name.replace(/(?:^|[._])(\w)/g, (_, c: string) => c.toUpperCase());
/** `payment.capture_failed` → `PaymentCaptureFailedEvent`: the component of the body its webhook delivers. */
export const eventComponentOf = (type: string): string => `${pascal(type)}Event`;

export async function buildOpenApi(options: BuildOptions = {}): Promise<OpenApiDocument> {
  const loader = options.loader ?? loadHandler;
  const functions = await Promise.all(
    httpFunctions().map(async (spec) => ({ spec, options: ((await loader(spec.name)) as unknown as HttpHandler).options })),
  );

  // Request bodies are components named as in shared/schemas (CreatePaymentBody, …); responses as in responses/.
  const requestSchemas = await requestSchemaNames();
  const bodies: Definitions = {};
  for (const { spec, options } of functions) {
    if (!options.body) continue;
    const name = requestSchemas.get(options.body);
    if (!name) throw new Error(`The body schema of ${spec.name} is not an export of shared/schemas/*.ts: it names the component`);
    bodies[name] = options.body;
  }
  const responseDefs = schemasOf(responses);
  // Event bodies (one per type) refer to the `…EventObject` response schemas.
  const eventDefs: Definitions = Object.fromEntries(EVENT_TYPES.map((type) => [eventComponentOf(type), eventPayloadSchema(type)]));
  const schemas = { ...componentsOf(bodies), ...componentsOf({ ...responseDefs, ...eventDefs }) };

  const paths: OpenApiDocument['paths'] = {};
  for (const { spec, options: handler } of functions) {
    (paths[spec.trigger.path] ??= {})[spec.trigger.method.toLowerCase()] = operation(spec, handler, { bodies, responseDefs, schemas });
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment orchestration API',
      version: '1.0.0',
      description:
        'Payments routed across providers, subscriptions, invoices, routing rules, customers, balance, analytics and webhooks. ' +
        'JSON in and out; every success answers 200; errors have one shape (`ErrorBody`). Amounts are integers in minor units.',
    },
    servers: options.servers ?? SERVERS,
    security: [{ bearer: [] }],
    tags: TAGS.map(({ areas: _areas, ...tag }) => tag),
    paths,
    webhooks: webhooks(schemas),
    components: { schemas, securitySchemes: SECURITY_SCHEMES, parameters: PARAMETERS, headers: HEADERS, responses: ERROR_RESPONSES },
  };
}

/**
 * A webhook per event type (shared/schemas/responses/events.ts `EVENTS`): the request the API makes to a merchant's
 * endpoint. Iterates EVENT_TYPES, so a type without its entry in EVENTS fails here as well as in the compiler.
 */
function webhooks(schemas: Record<string, JsonSchema>): OpenApiDocument['webhooks'] {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      if (!Object.hasOwn(EVENTS, type)) throw new Error(`The event ${type} has no entry in shared/schemas/responses/events.ts EVENTS`);
      const schema = { $ref: `#/components/schemas/${eventComponentOf(type)}` };
      const post: Operation = {
        operationId: `event${pascal(type)}`,
        summary: EVENTS[type].trigger.split(/[:.](?:\s|$)/)[0],
        description: `${EVENTS[type].trigger}\n\n${WEBHOOK_DELIVERY}`,
        tags: ['Webhooks'],
        security: [],
        parameters: ['WebhookId', 'WebhookTimestamp', 'WebhookSignature'].map((name) => ({ $ref: `#/components/parameters/${name}` })),
        requestBody: { required: true, content: { 'application/json': { schema, example: exampleOf(schema, schemas) } } },
        responses: WEBHOOK_RESPONSES,
      };
      return [type, { post }];
    }),
  );
}

interface Context {
  bodies: Definitions;
  responseDefs: Definitions;
  schemas: Record<string, JsonSchema>;
}

function operation(spec: HttpFunctionSpec, handler: HttpHandler['options'], ctx: Context): Operation {
  const { auth, summary } = spec.trigger;
  const area = spec.name.split('/')[0]!;
  const tag = TAGS.find((t) => t.areas.includes(area));
  if (!tag) throw new Error(`No tag for the area "${area}" of ${spec.name} (infra/openapi/shared-parts.ts)`);
  const description = DESCRIPTIONS[spec.name];
  if (!description) throw new Error(`No description for ${spec.name} (infra/openapi/descriptions.ts)`);
  const parameters = [
    ...Object.entries(handler.params ?? {}).map(([name, entity]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string', pattern: idPattern(entity).source },
      example: exampleId(entity),
    })),
    ...queryParameters(handler.query),
    ...(handler.idempotent && authenticated(auth) ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
  ];
  const body = handler.body && jsonSchemaOf(handler.body, ctx.bodies);
  return {
    operationId: operationIdOf(spec.name),
    summary,
    description,
    tags: [tag.name],
    ...(auth === 'public' && { security: [] }),
    ...(spec.trigger.permission && { 'x-permission': spec.trigger.permission }),
    ...(parameters.length > 0 && { parameters }),
    ...(body && {
      requestBody: {
        required: hasRequired(body, ctx.schemas),
        content: {
          [handler.form ? 'application/x-www-form-urlencoded' : 'application/json']: {
            schema: body,
            example: exampleOf(body, ctx.schemas, true),
          },
        },
      },
    }),
    responses: {
      '200': success(handler, ctx),
      ...(handler.redirects && {
        '303': { description: 'The shopper sent on', headers: { Location: { description: 'where to', schema: { type: 'string', format: 'uri' } } } },
      }),
      ...Object.fromEntries(errorStatuses(handler).map((status) => [String(status), { $ref: `#/components/responses/${status}` }])),
    },
  };
}

function success(handler: HttpHandler['options'], ctx: Context): JsonSchema {
  const headers = { 'Request-Id': { $ref: '#/components/headers/RequestId' }, ...(handler.rateLimit && rateLimitHeaders) };
  if (handler.file) return { description: 'The file', headers, content: { [handler.file]: { schema: { type: 'string', format: 'binary' } } } };
  if (!handler.response) throw new Error('An HTTP function declares `response` (or `file`) in its http() options');
  const schema = jsonSchemaOf(handler.response, ctx.responseDefs);
  return { description: 'OK', headers, content: { 'application/json': { schema, example: exampleOf(schema, ctx.schemas) } } };
}

const rateLimitHeaders = Object.fromEntries(
  ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'].map((h) => [h, { $ref: `#/components/headers/${h.replace(/-/g, '')}` }]),
);

function queryParameters(query: HttpHandler['options']['query']): JsonSchema[] {
  if (!query) return [];
  const schema = jsonSchemaOf(query);
  const required = (schema.required ?? []) as string[];
  return Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([name, { description, ...prop }]) => ({
    name,
    in: 'query',
    required: required.includes(name),
    ...(typeof description === 'string' && { description }),
    schema: prop,
  }));
}

const hasRequired = (schema: JsonSchema, components: Record<string, JsonSchema>): boolean => {
  const target = typeof schema.$ref === 'string' ? components[schema.$ref.split('/').pop()!]! : schema;
  // one of several bodies (a variant): required when each one is
  if (Array.isArray(target.oneOf)) return target.oneOf.every((s: JsonSchema) => hasRequired(s, components));
  return Array.isArray(target.required) && target.required.length > 0;
};

/** Request schema instance → its export name in shared/schemas/*.ts. */
async function requestSchemaNames(): Promise<Map<unknown, string>> {
  const names = new Map<unknown, string>();
  for (const file of readdirSync(`${projectRoot}shared/schemas`).filter((f) => f.endsWith('.ts'))) {
    const module = (await import(/* @vite-ignore */ `../../shared/schemas/${file}`)) as Record<string, unknown>;
    for (const [name, schema] of Object.entries(schemasOf(module))) names.set(schema, name);
  }
  return names;
}
