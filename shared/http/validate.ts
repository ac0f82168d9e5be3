import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as v from 'valibot';
import { BadRequest, NotFound } from '../model/errors.ts';
import { type Entity, ENTITY_NAMES, isId } from '../model/ids.ts';
import { isUnknownKey, issueReason } from '../schemas/issue-reason.ts';
import { maybeStateOf, stateOf } from './types.ts';

export type AnySchema = v.GenericSchema;

export interface ValidateOptions {
  body?: AnySchema;
  query?: AnySchema;
  /** unknown query parameters answer 400 (the merchant's API); a public link or a provider's callback ignores them */
  strictQuery?: boolean;
}

/**
 * Path ids: each parameter must be an id of its entity; a malformed id answers 404 like a missing one. Runs before
 * the body is read, so a wrong id is a 404 whatever the body holds. A 404 of the request (here or from its use case)
 * names what was not found, the same for a missing id and another merchant's: `no payment pay_… in test mode`.
 */
export const pathIds = (params: Record<string, Entity>): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: (request) => {
    const state = stateOf(request);
    for (const [name, entity] of Object.entries(params)) {
      const value = request.event.pathParameters?.[name];
      state.pathTarget = { entity, id: value ?? '' };
      if (!isId(entity, value)) throw new NotFound();
      state.params[name] = value;
    }
  },
  onError: (request) => {
    const target = maybeStateOf(request)?.pathTarget;
    if (!target || !(request.error instanceof NotFound) || request.error.reason) return;
    request.error = new NotFound(notFoundReason(target.entity, target.id, maybeStateOf(request)?.merchant?.livemode));
  },
});

/** Objects of the merchant whatever the mode (a key of either mode, the merchant itself): a 404 names no mode. */
const MODELESS: ReadonlySet<Entity> = new Set(['apiKey', 'merchant', 'otpRequest', 'user', 'invitation']);

/**
 * `no payment pay_… in test mode` (without the mode where no merchant is signed in). An id is shown as sent when it
 * is a plain token (`pay_…`, `not-an-id`), not when it holds anything else a client may have put in a path.
 */
export function notFoundReason(entity: Entity, id: string, livemode: boolean | undefined): string {
  const shown = /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : 'with the id given';
  const mode = livemode === undefined || MODELESS.has(entity) ? '' : ` in ${livemode ? 'live' : 'test'} mode`;
  return `no ${ENTITY_NAMES[entity]} ${shown}${mode}`;
}

/**
 * Validates body and query with valibot; the first issue names the offending field in `param` and the message says why.
 * A query parameter the endpoint does not take answers 400 `parameter_unknown` first (docs/api.md "Requests": a
 * typo in a filter must not silently widen a list); an endpoint without a query schema takes none.
 */
export const validate = (options: ValidateOptions): MiddlewareObj<APIGatewayProxyEvent> => {
  const known = queryNames(options.query);
  return {
    before: (request) => {
      const state = stateOf(request);
      const query = request.event.queryStringParameters ?? {};
      if (options.strictQuery) rejectUnknown(Object.keys(query), known);
      if (options.query) state.query = parse(options.query, query);
      if (options.body) state.body = parse(options.body, state.body);
    },
  };
};

/** The parameter names a query schema takes (an object's entries, piped or not); none without a schema. */
export function queryNames(schema: AnySchema | undefined): readonly string[] {
  if (!schema) return [];
  const entries = (schema as { entries?: Record<string, unknown> }).entries;
  if (!entries) throw new Error(`a query schema is an object of named parameters, not ${schema.type}`);
  return Object.keys(entries);
}

function rejectUnknown(names: readonly string[], known: readonly string[]): void {
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length === 0) return;
  const takes = known.length ? `this endpoint takes ${known.join(', ')}` : 'this endpoint takes no query parameters';
  const named = unknown.map((name) => (name === '' ? 'a parameter without a name' : name));
  const what = unknown.length === 1 ? `unknown query parameter ${named[0]!}` : `unknown query parameters ${named.join(', ')}`;
  throw new BadRequest('parameter_unknown', unknown[0], `${what} (${takes})`);
}

function parse(schema: AnySchema, input: unknown): unknown {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  throw invalidParameter(schema, result.issues[0]);
}

/**
 * A union given an object of one option's shape (`payment_method` as a card, not a `pm_` id) answers that option's
 * own issue (`payment_method.card.number`), not the union's.
 */
function chosenOption(issue: v.BaseIssue<unknown>): v.BaseIssue<unknown> {
  const nested = issue.type === 'union' ? issue.issues?.find((i) => i.path?.length) : undefined;
  return nested ? { ...nested, path: [...(issue.path ?? []), ...nested.path!] as typeof nested.path } : issue;
}

/**
 * The 400 of a failed validation: the field in `param`, the code of the fault (`parameter_missing`,
 * `parameter_unknown` for a field a strict object does not take, else `parameter_invalid`) and the reason in words.
 */
export function invalidParameter(schema: AnySchema, given: v.BaseIssue<unknown>): BadRequest {
  const issue = chosenOption(given);
  const param = v.getDotPath(issue) ?? undefined;
  const code = isUnknownKey(issue) ? 'parameter_unknown' : issue.received === 'undefined' ? 'parameter_missing' : 'parameter_invalid';
  return new BadRequest(code, param, issueReason(schema, issue, param));
}
