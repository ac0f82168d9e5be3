import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSchema, type GraphQLScalarType, GraphQLError, type GraphQLSchema, validateSchema } from 'graphql';

/** Braintree's published GraphQL schema (braintree/graphql-api `schema.graphql`), copied into `infra/local/fakes/contracts/`. */
export const BRAINTREE_SCHEMA_PATH = fileURLToPath(new URL('../contracts/braintree-schema.graphql', import.meta.url));

/**
 * graphql 17 checks a rule Braintree's schema breaks: three `InStoreContext` fields are deprecated while the interface
 * fields they implement are not. It concerns in-store terminals only (nothing we send touches them), so the schema is
 * used as published; any other problem in it still fails the fake at start.
 */
const TOLERATED_SCHEMA_PROBLEM = /^Interface field \w+\.\w+ is not deprecated, so implementation field InStoreContext\.\w+ must not be deprecated\.$/;

/** "A monetary amount, either a whole number or a number with exactly two or three decimal places." (scalar Amount) */
const AMOUNT = /^\d+(\.\d{2,3})?$/;

function coerceAmount(value: unknown): string {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string' || !AMOUNT.test(text)) {
    throw new GraphQLError(`Amount is an invalid format: ${JSON.stringify(value)}`, {
      extensions: { errorClass: 'VALIDATION', legacyCode: '81503' },
    });
  }
  return text;
}

let cached: GraphQLSchema | undefined;

/** The schema the fake validates and executes every request against (built once per process). */
export function braintreeSchema(): GraphQLSchema {
  if (cached) return cached;
  const sdl = readFileSync(BRAINTREE_SCHEMA_PATH, 'utf8');
  const problems = validateSchema(buildSchema(sdl)).filter((error) => !TOLERATED_SCHEMA_PROBLEM.test(error.message));
  if (problems.length > 0) throw new Error(`braintree-schema.graphql is not a valid schema:\n${problems.map((e) => e.message).join('\n')}`);
  const schema = buildSchema(sdl, { assumeValid: true });
  // The Amount scalar checks its format the way Braintree documents it (an SDL scalar accepts anything by default).
  const amount = schema.getType('Amount') as GraphQLScalarType;
  Object.assign(amount, { parseValue: coerceAmount, coerceInputValue: coerceAmount });
  cached = schema;
  return schema;
}
