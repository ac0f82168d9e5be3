import { existsSync } from 'node:fs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog, type FunctionSpec, handlerFile, httpFunctions } from '../../functions/catalog.ts';
import { createFixtureObjects } from '../../infra/local/fixture-objects.ts';
import { defaultFixturePath, placeholdersFrom, readFixture } from '../../infra/local/fixtures.ts';
import { buildOpenApi } from '../../infra/openapi/document.ts';
import { config } from '../../shared/config.ts';
import type { HttpHandler } from '../../shared/http/index.ts';
import { authenticated } from '../../shared/http/types.ts';
import { ROLE_EXCLUSIONS } from '../../shared/model/permissions.ts';
import { useLocalInvoker } from '../../shared/local-invoker.ts';
import { SECRET_PURPOSES, SECRETS } from '../../shared/secret-purposes.ts';
import { fakeContext, invokeHttp } from '../support/lambda.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { newMerchant } from '../support/merchant.ts';
import { type ResponseCheck, responseChecker } from '../support/openapi.ts';

const allSecrets = new Map(SECRET_PURPOSES.map((p) => [SECRETS[p].variable, config[SECRETS[p].variable]] as const));

/**
 * Runs `act` as the function would in AWS as far as secrets go: the purposes its catalog entry does not name are
 * withheld (locally every function shares one process holding them all), so a missing declaration fails here. A
 * private function it invokes runs with its own entry's secrets (see the invoker below).
 */
async function withItsSecretsOnly<T>(spec: FunctionSpec, act: () => Promise<T>): Promise<T> {
  const before = [...allSecrets.keys()].map((variable) => [variable, config[variable]] as const);
  for (const purpose of SECRET_PURPOSES)
    config[SECRETS[purpose].variable] = spec.secrets?.includes(purpose) ? allSecrets.get(SECRETS[purpose].variable) : undefined;
  try {
    return await act();
  } finally {
    for (const [variable, value] of before) config[variable] = value;
  }
}

/** Fixtures that need the fixture objects without naming one: a test event is sent to the configured endpoint. */
const NEEDS_OBJECTS_UNNAMED = new Set(['webhooks/test']);

const load = async (name: string) => ((await import(/* @vite-ignore */ `../../${handlerFile(name)}`)) as { handler: HttpHandler }).handler;

describe('the function catalog', () => {
  let conformsToDocument: ResponseCheck;
  let fakes: ProviderFakes;
  beforeAll(async () => {
    conformsToDocument = responseChecker(await buildOpenApi());
    // A connector fixture's credentials are verified by a provider: here, its local fake
    fakes = await startProviderFakes();
    Object.assign(config, fakes.env);
    useLocalInvoker(async (name, payload) => {
      const spec = catalog.find((f) => f.name === name)!;
      const handler = (await import(/* @vite-ignore */ `../../${handlerFile(name)}`)) as { handler: (e: unknown, c: unknown) => Promise<unknown> };
      return withItsSecretsOnly(spec, () => handler.handler(payload, fakeContext({ name, timeout: spec.timeout })));
    });
  });
  afterAll(() => fakes.close());

  it.each(catalog.map((f) => [f.name, f] as const))('%s has a handler file and a fixture', (_name, spec) => {
    expect(existsSync(handlerFile(spec.name))).toBe(true);
    expect(existsSync(defaultFixturePath(spec))).toBe(true);
  });

  it('has one function per method and path', () => {
    const routes = httpFunctions().map((f) => `${f.trigger.method} ${f.trigger.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it.each(httpFunctions().map((f) => [f.name, f] as const))('%s declares the auth the catalog says', async (_name, spec) => {
    expect((await load(spec.name)).options.auth).toBe(spec.trigger.auth);
  });

  it.each(httpFunctions().map((f) => [f.name, f] as const))('%s checks the permission the catalog says', async (_name, spec) => {
    expect((await load(spec.name)).options.permission).toBe(spec.trigger.permission);
  });

  it('excludes a role only from routes the catalog has', () => {
    const routes = httpFunctions().map((f) => `${f.trigger.method} ${f.trigger.path}`);
    expect(
      Object.values(ROLE_EXCLUSIONS)
        .flat()
        .filter((route) => !routes.includes(route)),
    ).toEqual([]);
  });

  it.each(httpFunctions().map((f) => [f.name, f] as const))(
    '%s names the idempotency secret exactly when it takes Idempotency-Key',
    async (_name, spec) => {
      const { options } = await load(spec.name);
      expect(spec.secrets?.includes('idempotency') ?? false).toBe(Boolean(options.idempotent) && authenticated(options.auth));
    },
  );

  it.each(httpFunctions().map((f) => [f.name, f] as const))('%s answers its fixture with a 200, as documented', async (_name, spec) => {
    // Prepare: the fixture's placeholders filled with a fresh merchant and, when it names more than the merchant's own
    // objects, the fixture objects too, as `npm run invoke` does (made only then: they are most of this file's time)
    const demo = await newMerchant({ payments: true, publishableKey: true });
    const path = defaultFixturePath(spec);
    let { event, missing } = readFixture<APIGatewayProxyEvent>(path, placeholdersFrom(demo));
    if (missing.length > 0 || NEEDS_OBJECTS_UNNAMED.has(spec.name))
      ({ event, missing } = readFixture<APIGatewayProxyEvent>(path, {
        ...placeholdersFrom(demo),
        ...placeholdersFrom(await createFixtureObjects(demo)),
      }));
    // Act
    const res = await withItsSecretsOnly(spec, async () => invokeHttp(await load(spec.name), event));
    // Assess
    expect(missing).toEqual([]);
    const handler = await load(spec.name);
    expect(res.status, JSON.stringify(res.body)).toBe(handler.options.redirects ? 303 : 200);
    expect(event.resource).toBe(spec.trigger.path);
    expect(event.httpMethod).toBe(spec.trigger.method);
    conformsToDocument(spec.trigger.method, spec.trigger.path, res.status, res.body);
  });

  const workers = catalog.filter((f) => f.trigger.type !== 'http');
  it.each(workers.map((f) => [f.name, f] as const))(
    '%s runs its fixture',
    async (_name, spec) => {
      // Prepare
      // a private function's payload names what a page would have: the fixture objects
      const demo = await newMerchant({ payments: true, publishableKey: true });
      const objects = spec.trigger.type === 'invoke' ? placeholdersFrom(await createFixtureObjects(demo)) : {};
      const placeholders = { ...placeholdersFrom(demo), ...objects };
      const { event, missing } = readFixture(defaultFixturePath(spec), placeholders);
      const handler = (
        (await import(/* @vite-ignore */ `../../${handlerFile(spec.name)}`)) as { handler: (e: unknown, c: unknown) => Promise<unknown> }
      ).handler;
      // Act
      const result = await withItsSecretsOnly(spec, () => handler(event, fakeContext({ name: spec.name, timeout: spec.timeout })));
      // Assess
      expect(missing).toEqual([]);
      if (spec.trigger.type === 'queue' || spec.trigger.type === 'stream') expect(result).toEqual({ batchItemFailures: [] });
      if (spec.trigger.type === 'invoke') expect(result).toMatchObject({ ok: true });
      // a scheduled sweep reads every account of the test database (the daily reconciliation asks each one's provider)
    },
    60_000,
  );
});
