import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handlerFile, httpFunctions, type HttpFunctionSpec } from '../../functions/catalog.ts';
import { hmac } from '../../shared/model/credentials.ts';
import { authenticated } from '../../shared/http/types.ts';
import type { HttpHandler } from '../../shared/http/index.ts';
import { readSecret } from '../../shared/secrets.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { idempotencyKeys } from '../../shared/store/keys.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { cardBody, paymentMethods } from '../support/payment-methods.ts';
import { freshCard } from '../support/payments.ts';

/*
 * Every endpoint whose body takes card data (found from its schema, so a new one is walked too) keeps, for its
 * Idempotency-Key, nothing of the card: no CVC in any form (not even inside the keyed hash it compares bodies by), no
 * number; and the same request with another CVC is the same request (replayed).
 */

/** Whether a valibot schema takes a card: a field named `cvc`, or a card `number`, at any depth. */
function takesCard(schema: unknown, seen = new Set<unknown>()): boolean {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return false;
  seen.add(schema);
  const entries = (schema as { entries?: Record<string, unknown> }).entries;
  if (entries && ('cvc' in entries || 'number' in entries)) return true;
  return Object.values(schema).some((part) => (Array.isArray(part) ? part.some((p) => takesCard(p, seen)) : takesCard(part, seen)));
}

const load = async (name: string) => ((await import(/* @vite-ignore */ `../../${handlerFile(name)}`)) as { handler: HttpHandler }).handler;

const cardEndpoints = await Promise.all(httpFunctions().map(async (spec) => ({ spec, options: (await load(spec.name)).options }))).then((all) =>
  all.filter(({ options }) => takesCard(options.body)),
);
/** Those that honour an Idempotency-Key: a merchant's (shared/http/index.ts); a shopper's page's form does not. */
const idempotent = cardEndpoints.filter(({ spec, options }) => options.idempotent && authenticated(spec.trigger.auth));

interface Request {
  path: string;
  /** the body, with this CVC wherever a CVC goes (an endpoint that takes none gets one anyway: it must not count) */
  body: (cvc: string) => Record<string, unknown>;
  number: string;
}
type Merchant = Awaited<ReturnType<typeof newMerchant>>;

/** A request each card endpoint answers 200, by name: a new card endpoint fails the walk until it has one here. */
const requests: Record<string, (merchant: Merchant) => Promise<Request>> = {
  'payment-methods/create': async () => {
    const number = freshCard();
    return { path: '/api/payment_methods', number, body: (cvc) => ({ ...cardBody(number), card: { number, exp_month: 12, exp_year: 2034, cvc } }) };
  },
  'payments/create': async () => {
    const number = freshCard();
    return {
      path: '/api/payments/create',
      number,
      body: (cvc) => ({ amount: 1200, currency: 'usd', payment_method: { type: 'card', card: { number, exp_month: 12, exp_year: 2034, cvc } } }),
    };
  },
  'test-helpers/payment-method-update': async ({ apiKey }) => {
    const pm = (await paymentMethods.create(apiKey, cardBody(freshCard()))).body;
    const number = freshCard();
    return { path: `/api/test_helpers/payment_methods/${pm.id}/update`, number, body: (cvc) => ({ exp_month: 3, exp_year: 2035, number, cvc }) };
  },
};

/** JSON with sorted keys: the body as the service compares it. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value && typeof value === 'object'
      ? `{${Object.entries(value)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
          .join(',')}}`
      : JSON.stringify(value);

describe('what an Idempotency-Key keeps of a card', () => {
  it('finds the card endpoints from their schemas', () => {
    expect(idempotent.map(({ spec }) => spec.name).sort()).toEqual(Object.keys(requests).sort());
    // the shopper's invoice and payment-link pages take a card too, in forms that honour no key; a routing simulation
    // stores nothing
    expect(
      cardEndpoints
        .filter((e) => !idempotent.includes(e))
        .map(({ spec }) => spec.name)
        .sort(),
    ).toEqual(['hosted/link-submit', 'hosted/pay-submit', 'routing/simulate']);
  });

  it.each(idempotent.map(({ spec }) => [spec.name, spec] as const))(
    '%s: keeps no CVC in any form and no number; the same request with another CVC is replayed',
    async (name, spec: HttpFunctionSpec) => {
      // Prepare
      const merchant = await newMerchant();
      const request = await requests[name]!(merchant);
      const handler = await load(name);
      const key = `card-${randomUUID()}`;
      const send = (cvc: string) =>
        invokeHttp(
          handler,
          apiEvent({
            method: spec.trigger.method,
            path: request.path,
            headers: { ...bearer(merchant.apiKey), 'Idempotency-Key': key },
            body: request.body(cvc),
          }),
        );

      // Act
      const first = await send('9173');
      const replay = await send('2864');

      // Assess: what the table keeps for the key
      expect(first.status, first.rawBody).toBe(200);
      expect(replay.status, replay.rawBody).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
      const record = (
        await db.send(
          new GetCommand({ TableName: TABLE, Key: idempotencyKeys.record(idempotencyKeys.scope(testOwner(merchant.merchantId), 'api_key'), key) }),
        )
      ).Item!;
      expect(record).toMatchObject({ status: 'completed', response_status: 200 });
      const { request_hash: hash, ...rest } = record;
      expect(JSON.stringify(rest)).not.toContain(request.number);
      expect(JSON.stringify(rest)).not.toMatch(/9173|"cvc"|\\"cvc\\"/);
      // the hash compares bodies without their CVC: not the keyed hash of the request as sent
      const asSent = hmac(await readSecret('idempotency'), `${spec.trigger.method} ${request.path}\n${canonical(request.body('9173'))}`);
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(hash).not.toBe(asSent);
    },
  );
});
