import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as createConnector } from '../../functions/connectors/create.ts';
import { handler as removeConnector } from '../../functions/connectors/delete.ts';
import { handler as updateConnector } from '../../functions/connectors/update.ts';
import { config } from '../../shared/config.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { API_KEY_HASH_COPIES, connectorKeys, ROUTING_COPIES, routingCopyKeys, routingRuleKeys } from '../../shared/store/keys.ts';
import type { Owner } from '../../shared/model/targets.ts';
import { type ProviderFakes, startProviderFakes } from '../../infra/local/fakes/index.ts';
import { type SeenCall, watchingDb } from '../support/db-calls.ts';
import { apiEvent, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testOwner } from '../support/merchant.ts';
import { CARDS, paymentBody, payments } from '../support/payments.ts';
import { rules } from '../support/rules.ts';

/**
 * What routing reads for a payment (the connector accounts and rules) comes from copies of those items (keys.ts
 * `routingCopyKeys`), one query instead of two, spread over copies. Every change writes the items and their copies
 * together, so a payment routes by what the API shows.
 */
let fakes: ProviderFakes;
beforeAll(async () => {
  fakes = await startProviderFakes();
  Object.assign(config, fakes.env);
});
afterAll(() => fakes.close());

const api = {
  connect: (key: string, body: unknown) =>
    invokeHttp(createConnector, apiEvent({ method: 'POST', path: '/api/connectors', headers: bearer(key), body })),
  updateConnector: (key: string, id: string, body: unknown) =>
    invokeHttp(updateConnector, apiEvent({ method: 'PUT', path: `/api/connectors/${id}`, headers: bearer(key), body })),
  removeConnector: (key: string, id: string) =>
    invokeHttp(removeConnector, apiEvent({ method: 'DELETE', path: `/api/connectors/${id}`, headers: bearer(key) })),
  addRule: rules.create,
  updateRule: rules.update,
};
const eurTo = (provider: string, name = `EUR to ${provider}`) => ({
  name,
  provider,
  conditions: [{ field: 'currency', operator: 'equals', value: 'EUR' }],
});

const query = async (pk: string) =>
  (
    await db.send(
      new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true }),
    )
  ).Items ?? [];
/** The owner's connector accounts and rules as stored, by sort key, without their keys (a copy is in no index) */
async function storedItems(owner: Owner): Promise<Record<string, Record<string, unknown>>> {
  const prefixes = [connectorKeys.listPrefix(owner).skPrefix, routingRuleKeys.listPrefix(owner).skPrefix];
  const items = (await query(connectorKeys.listPrefix(owner).pk)).filter((i) => prefixes.some((p) => String(i.sk).startsWith(p)));
  return Object.fromEntries(items.map(({ pk: _pk, sk, gsi1pk: _g1, gsi1sk: _g1s, gsi2pk: _g, gsi2sk: _gs, ...body }) => [String(sk), body]));
}
/** Each copy's items by sort key, without their keys */
async function copies(owner: Owner) {
  return Promise.all(
    Array.from({ length: ROUTING_COPIES }, async (_, copy) =>
      Object.fromEntries((await query(routingCopyKeys.partition(owner, copy))).map(({ pk: _pk, sk, ...body }) => [String(sk), body])),
    ),
  );
}

describe('routing copies', () => {
  it('hold the connector accounts and rules as every change left them, and payments route by them', async () => {
    // Prepare: a new merchant's copies are empty
    const { apiKey, merchantId } = await newMerchant();
    const owner = testOwner(merchantId);
    const fresh = await copies(owner);
    // Act: connect two accounts, disable one, delete the other; add two rules, disable one
    const stripe = (await api.connect(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe })).body;
    const adyen = (await api.connect(apiKey, { provider: 'adyen', credentials: fakes.credentials.adyen })).body;
    await api.updateConnector(apiKey, stripe.id, { label: 'EU', status: 'disabled' });
    await api.removeConnector(apiKey, adyen.id);
    const toBraintree = (await api.addRule(apiKey, eurTo('braintree'))).body;
    const toAdyen = (await api.addRule(apiKey, { ...eurTo('adyen'), priority: 1 })).body;
    await api.updateRule(apiKey, toAdyen.id, { status: 'disabled' });
    const eur = await payments.create(apiKey, paymentBody({ currency: 'eur' }, CARDS.approved));
    const forced = await payments.create(apiKey, paymentBody({ routing: 'stripe' }, CARDS.approved));
    // Assess: every copy equals the items; the payments see the disabled rule and account as disabled
    expect(fresh).toEqual(Array(ROUTING_COPIES).fill({}));
    const stored = await storedItems(owner);
    expect(Object.keys(stored)).toHaveLength(4);
    expect(await copies(owner)).toEqual(Array(ROUTING_COPIES).fill(stored));
    expect(eur.body).toMatchObject({ provider: 'braintree', connector_id: null });
    expect(eur.body.routing_decision.reason).toContain(toBraintree.id);
    expect(forced.body).toMatchObject({ provider: 'stripe', connector_id: null });
  });

  it('stay equal to the items when changes race', async () => {
    // Prepare: two rules and an account
    const { apiKey, merchantId } = await newMerchant();
    const owner = testOwner(merchantId);
    const stripe = (await api.connect(apiKey, { provider: 'stripe', credentials: fakes.credentials.stripe })).body;
    const rules = [(await api.addRule(apiKey, eurTo('adyen', 'a'))).body, (await api.addRule(apiKey, eurTo('braintree', 'b'))).body];
    // Act: changes all at once
    const answers = await Promise.all([
      ...rules.flatMap((rule) => [10, 20, 30].map((priority) => api.updateRule(apiKey, rule.id, { priority, name: `${rule.name} ${priority}` }))),
      ...['x', 'y'].map((name) => api.addRule(apiKey, eurTo('stripe', name))),
      ...['one', 'two'].map((label) => api.updateConnector(apiKey, stripe.id, { label })),
    ]);
    // Assess
    expect(answers.map((a) => a.status)).toEqual(Array(answers.length).fill(200));
    const stored = await storedItems(owner);
    expect(Object.keys(stored)).toHaveLength(5);
    expect(await copies(owner)).toEqual(Array(ROUTING_COPIES).fill(stored));
  });
  it("spread a merchant's reads over every copy: of its API key and of its routing data", async () => {
    // Prepare: the partitions the requests read, recorded
    const { apiKey } = await newMerchant();
    const read = new Set<string>();
    const recordPartition = ({ input }: SeenCall) => {
      const pk = (input.Key as { pk?: unknown } | undefined)?.pk ?? (input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[':pk'];
      if (typeof pk === 'string') read.add(pk);
    };
    // Act: routing decisions (each authenticates, then reads the routing data)
    await watchingDb(recordPartition, () =>
      Promise.all(Array.from({ length: 40 }, () => payments.simulate(apiKey, { amount: 2500, currency: 'usd' }))),
    );
    // Assess: each of the four copies of each was read (all four at random in 40 reads: 1 - 4 × (3/4)^40 > 99.99 %)
    expect([...read].filter((pk) => pk.startsWith('APIKEY#'))).toHaveLength(API_KEY_HASH_COPIES);
    expect([...read].filter((pk) => pk.includes('#ROUTING#'))).toHaveLength(ROUTING_COPIES);
  });
});
