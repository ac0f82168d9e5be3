import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/api-keys/create.ts';
import { handler as listRules } from '../../functions/routing/rules/list.ts';
import { activeRules } from '../../shared/domain/routing-rules.ts';
import { readRoutingSetup } from '../../shared/store/routing-setup.ts';
import { apiEvent, invokeHttp, type Json } from '../support/lambda.ts';
import { bearer, newMerchant, sessionOf, testOwner } from '../support/merchant.ts';
import { rules } from '../support/rules.ts';

const { create, update, get, remove } = rules;
const list = (key: string, query?: Record<string, string>) =>
  invokeHttp(listRules, apiEvent({ method: 'GET', path: '/api/routing/rules', headers: bearer(key), query }));

const ids = (res: { body: Json }) => res.body.data.map((r: { id: string }) => r.id);
const eurToAdyen = { name: 'EUR to Adyen', provider: 'adyen', conditions: [{ field: 'currency', operator: 'equals', value: 'EUR' }] };
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('routing rules', () => {
  it('creates a rule with the defaults: strategy fixed, priority 100, three_d_secure automatic, status active', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    // Act
    const res = await create(apiKey, eurToAdyen);
    // Assess
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({
      id: expect.stringMatching(/^rul_[0-9a-z]{26}$/),
      object: 'routing_rule',
      livemode: false,
      name: 'EUR to Adyen',
      strategy: 'fixed',
      priority: 100,
      conditions: [{ field: 'currency', operator: 'equals', value: 'EUR' }],
      provider: 'adyen',
      three_d_secure: 'automatic',
      status: 'active',
      created_at: expect.stringMatching(TIMESTAMP),
    });
  });

  it('stores condition values normalized: uppercase currencies, lowercase brands and domains, trimmed lists', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const conditions = [
      { field: 'currency', operator: 'in', value: ' usd, Eur ,gbp' },
      { field: 'amount', operator: 'greater_than_or_equal', value: '0100' },
      { field: 'card_brand', operator: 'not_in', value: 'AMEX,Diners' },
      { field: 'card_bin', operator: 'equals', value: '42424242' },
      { field: 'customer_email_domain', operator: 'contains', value: ' Example.COM ' },
      { field: 'metadata.Channel', operator: 'equals', value: 'Web Shop' },
    ];
    // Act
    const res = await create(apiKey, { name: '  Big European cards  ', provider: 'stripe', strategy: 'smart', priority: 0, conditions });
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Big European cards', strategy: 'smart', priority: 0, provider: 'stripe' });
    expect(res.body.conditions).toEqual([
      { field: 'currency', operator: 'in', value: 'USD,EUR,GBP' },
      { field: 'amount', operator: 'greater_than_or_equal', value: '100' },
      { field: 'card_brand', operator: 'not_in', value: 'amex,diners' },
      { field: 'card_bin', operator: 'equals', value: '42424242' },
      { field: 'customer_email_domain', operator: 'contains', value: 'example.com' },
      { field: 'metadata.Channel', operator: 'equals', value: 'Web Shop' },
    ]);
  });

  it('accepts a rule without conditions (a catch-all) and 20 conditions', async () => {
    const { apiKey } = await newMerchant();
    const twenty = Array.from({ length: 20 }, (_, i) => ({ field: `metadata.k${i}`, operator: 'equals', value: 'v' }));
    const catchAll = await create(apiKey, { name: 'Everything', provider: 'braintree', conditions: [] });
    const many = await create(apiKey, { name: 'Many', provider: 'braintree', conditions: twenty });
    expect(catchAll.status).toBe(200);
    expect(catchAll.body.conditions).toEqual([]);
    expect(many.status).toBe(200);
    expect(many.body.conditions).toHaveLength(20);
  });

  it('updates the fields sent, keeps the others, and answers the full rule', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const created = await create(apiKey, eurToAdyen);
    const conditions = [{ field: 'amount', operator: 'less_than', value: '5000' }];
    // Act
    const renamed = await update(apiKey, created.body.id, { name: 'Small EUR', priority: 7 });
    const rerouted = await update(apiKey, created.body.id, { provider: 'stripe', strategy: 'smart', conditions });
    const unchanged = await update(apiKey, created.body.id, {});
    const listed = await list(apiKey);
    // Assess
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...created.body, name: 'Small EUR', priority: 7 });
    expect(rerouted.body).toEqual({ ...renamed.body, provider: 'stripe', strategy: 'smart', conditions });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual(rerouted.body);
    expect(listed.body.data).toEqual([rerouted.body]);
  });

  it('lists every rule, active and disabled, newest first with its priority, whatever the priorities', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const late = await create(apiKey, { ...eurToAdyen, name: 'late', priority: 500 });
    const zero = await create(apiKey, { ...eurToAdyen, name: 'zero', priority: 0 });
    const byDefault = await create(apiKey, { ...eurToAdyen, name: 'default' });
    await update(apiKey, zero.body.id, { status: 'disabled' });
    await update(apiKey, late.body.id, { priority: 1 });
    // Act
    const res = await list(apiKey);
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', has_more: false });
    expect(ids(res)).toEqual([byDefault, zero, late].map((r) => r.body.id));
    expect(res.body.data.map((r: { priority: number; status: string }) => [r.priority, r.status])).toEqual([
      [byDefault.body.priority, 'active'],
      [0, 'disabled'],
      [1, 'active'],
    ]);
  });

  it('pages with limit (default 10), starting_after and ending_before', async () => {
    // Prepare: 12 rules, oldest first
    const { apiKey } = await newMerchant();
    const made: string[] = [];
    for (let i = 0; i < 12; i++) made.push((await create(apiKey, { ...eurToAdyen, name: `rule ${i}` })).body.id);
    const newest = [...made].reverse();
    // Act
    const first = await list(apiKey);
    const second = await list(apiKey, { starting_after: newest[9]! });
    const back = await list(apiKey, { ending_before: newest[10]!, limit: '3' });
    const bad = await list(apiKey, { limit: '0' });
    // Assess
    expect(ids(first)).toEqual(newest.slice(0, 10));
    expect(first.body.has_more).toBe(true);
    expect(ids(second)).toEqual(newest.slice(10));
    expect(second.body.has_more).toBe(false);
    expect(ids(back)).toEqual(newest.slice(7, 10));
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('limit');
  });

  it('answers an empty list for a merchant without rules, and lists only the merchant’s own', async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const own = await create(a.apiKey, eurToAdyen);
    const ofB = await list(b.apiKey);
    const ofA = await list(a.apiKey);
    expect(ofB.body).toEqual({ object: 'list', data: [], has_more: false });
    expect(ids(ofA)).toEqual([own.body.id]);
  });

  it('leaves a disabled rule out of the active rules but keeps it listed; enabling brings it back', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const kept = await create(apiKey, { ...eurToAdyen, name: 'kept', priority: 20 });
    const toggled = await create(apiKey, { ...eurToAdyen, name: 'toggled', priority: 10 });
    // Act
    const disabled = await update(apiKey, toggled.body.id, { status: 'disabled' });
    const activeWhileDisabled = activeRules((await readRoutingSetup(testOwner(merchantId), { rules: true })).rules);
    const listed = await list(apiKey);
    await update(apiKey, toggled.body.id, { status: 'active' });
    const activeAgain = activeRules((await readRoutingSetup(testOwner(merchantId), { rules: true })).rules);
    // Assess
    expect(disabled.body).toEqual({ ...toggled.body, status: 'disabled' });
    expect(activeWhileDisabled.map((r) => r.id)).toEqual([kept.body.id]);
    expect(ids(listed)).toEqual([toggled.body.id, kept.body.id]); // newest first
    expect(activeAgain.map((r) => r.id)).toEqual([toggled.body.id, kept.body.id]);
    expect(activeAgain[1]).toEqual(kept.body);
  });

  it("answers 404 for another merchant's rule and leaves it unchanged", async () => {
    const a = await newMerchant();
    const b = await newMerchant();
    const ofB = await create(b.apiKey, eurToAdyen);
    const res = await update(a.apiKey, ofB.body.id, { name: 'Hijacked', status: 'disabled' });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'resource_missing',
      message: `Resource not found: no routing rule ${ofB.body.id} in test mode`,
    });
    expect((await list(b.apiKey)).body.data).toEqual([ofB.body]);
    expect(activeRules((await readRoutingSetup(testOwner(a.merchantId), { rules: true })).rules)).toEqual([]);
  });

  it.each(['rul_123', 'cus_01jdxq3m5n6p7r8s9t0v1w2x3y', 'RUL_01JDXQ3M5N6P7R8S9T0V1W2X3Y', 'rul_01jdxq3m5n6p7r8s9t0v1w2x3y', '%00'])(
    'answers 404 to an update of the id %s',
    async (id) => {
      const { apiKey } = await newMerchant();
      const res = await update(apiKey, id, { name: 'x' });
      expect(res.status).toBe(404);
      expect(res.body.error.message).toBe(`Resource not found: no routing rule ${id === '%00' ? 'with the id given' : id} in test mode`);
    },
  );

  it('answers 401 without a valid API key', async () => {
    const res = await invokeHttp(listRules, apiEvent({ method: 'GET', path: '/api/routing/rules' }));
    const bad = await list('sk_test_nope');
    expect(res.status).toBe(401);
    expect(bad.status).toBe(401);
  });
});

/** A live key of the merchant, made signed in (a test key cannot make one). */
const liveKeyOf = async (merchantId: string): Promise<string> =>
  (
    await invokeHttp(
      createKey,
      apiEvent({ method: 'POST', path: '/api/api-keys', headers: bearer(await sessionOf(merchantId)), body: { name: 'live', mode: 'live' } }),
    )
  ).body.key;

describe('one routing rule: retrieve and delete', () => {
  it('retrieves a rule as created, and as changed', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const made = await create(apiKey, eurToAdyen);
    // Act
    const first = await get(apiKey, made.body.id);
    await update(apiKey, made.body.id, { status: 'disabled', priority: 3 });
    const changed = await get(apiKey, made.body.id);
    // Assess
    expect(first.status).toBe(200);
    expect(first.body).toEqual(made.body);
    expect(changed.body).toEqual({ ...made.body, status: 'disabled', priority: 3 });
  });

  it('deletes a rule: it no longer routes, is no longer listed or found, and frees its place under the cap', async () => {
    // Prepare
    const { apiKey, merchantId } = await newMerchant();
    const kept = await create(apiKey, { ...eurToAdyen, name: 'kept' });
    const gone = await create(apiKey, { ...eurToAdyen, name: 'gone', priority: 1 });
    // Act
    const res = await remove(apiKey, gone.body.id);
    const again = await remove(apiKey, gone.body.id);
    const found = await get(apiKey, gone.body.id);
    const changed = await update(apiKey, gone.body.id, { name: 'back' });
    const active = activeRules((await readRoutingSetup(testOwner(merchantId), { rules: true })).rules);
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: gone.body.id, object: 'routing_rule', deleted: true });
    expect(again.status).toBe(404);
    expect(found.status).toBe(404);
    expect(found.body.error).toMatchObject({ code: 'resource_missing', message: `Resource not found: no routing rule ${gone.body.id} in test mode` });
    expect(changed.status).toBe(404);
    expect(active.map((r) => r.id)).toEqual([kept.body.id]);
    expect(ids(await list(apiKey))).toEqual([kept.body.id]);
  });

  it('counts a deleted rule no more against the 50', async () => {
    // Prepare: 50 rules, then one deleted
    const { apiKey } = await newMerchant();
    const made: string[] = [];
    for (let i = 0; i < 50; i++) made.push((await create(apiKey, { ...eurToAdyen, name: `rule ${i}` })).body.id);
    // Act
    await remove(apiKey, made[7]!);
    const next = await create(apiKey, { ...eurToAdyen, name: 'in its place' });
    const over = await create(apiKey, { ...eurToAdyen, name: 'one too many' });
    // Assess
    expect(next.status).toBe(200);
    expect(over.body.error.code).toBe('too_many_rules');
  });

  it("answers 404 to another merchant's or the other mode's rule, with the text of a missing one, and leaves it", async () => {
    // Prepare
    const a = await newMerchant();
    const b = await newMerchant();
    const ofB = await create(b.apiKey, eurToAdyen);
    const liveKey = await liveKeyOf(b.merchantId);
    // Act
    const answers = [
      await get(a.apiKey, ofB.body.id),
      await remove(a.apiKey, ofB.body.id),
      await get(liveKey, ofB.body.id),
      await remove(liveKey, ofB.body.id),
    ];
    // Assess
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing' });
    }
    expect(answers[0]!.body.error.message).toBe(`Resource not found: no routing rule ${ofB.body.id} in test mode`);
    expect(answers[2]!.body.error.message).toBe(`Resource not found: no routing rule ${ofB.body.id} in live mode`);
    expect((await get(b.apiKey, ofB.body.id)).body).toEqual(ofB.body);
    expect(ids(await list(b.apiKey))).toEqual([ofB.body.id]);
  });

  it.each(['rul_123', 'cus_01jdxq3m5n6p7r8s9t0v1w2x3y', 'RUL_01JDXQ3M5N6P7R8S9T0V1W2X3Y', '%00'])('answers 404 to the id %s', async (id) => {
    const { apiKey } = await newMerchant();
    expect((await get(apiKey, id)).status).toBe(404);
    expect((await remove(apiKey, id)).status).toBe(404);
  });
});

describe('routing rule validation', () => {
  const cond = (field: unknown, operator: unknown, value: unknown) => ({ ...eurToAdyen, conditions: [{ field, operator, value }] });
  const second = (c: Record<string, unknown>) => ({ ...eurToAdyen, conditions: [eurToAdyen.conditions[0], c] });

  it.each([
    ['no name', { provider: 'adyen', conditions: [] }, 'name', 'parameter_missing'],
    ['a blank name', { ...eurToAdyen, name: '   ' }, 'name', 'parameter_invalid'],
    ['a 101-char name', { ...eurToAdyen, name: 'n'.repeat(101) }, 'name', 'parameter_invalid'],
    ['no provider', { name: 'x', conditions: [] }, 'provider', 'parameter_missing'],
    ['an unknown provider', { ...eurToAdyen, provider: 'paypal' }, 'provider', 'parameter_invalid'],
    ['an uppercase provider', { ...eurToAdyen, provider: 'Adyen' }, 'provider', 'parameter_invalid'],
    ['an unknown strategy', { ...eurToAdyen, strategy: 'cheapest' }, 'strategy', 'parameter_invalid'],
    ['an unknown three_d_secure', { ...eurToAdyen, three_d_secure: 'always' }, 'three_d_secure', 'parameter_invalid'],
    ['a priority of -1', { ...eurToAdyen, priority: -1 }, 'priority', 'parameter_invalid'],
    ['a priority of 1001', { ...eurToAdyen, priority: 1001 }, 'priority', 'parameter_invalid'],
    ['a fractional priority', { ...eurToAdyen, priority: 1.5 }, 'priority', 'parameter_invalid'],
    ['a priority as a string', { ...eurToAdyen, priority: '5' }, 'priority', 'parameter_invalid'],
    ['no conditions', { name: 'x', provider: 'adyen' }, 'conditions', 'parameter_missing'],
    ['conditions as an object', { ...eurToAdyen, conditions: { field: 'currency' } }, 'conditions', 'parameter_invalid'],
    ['21 conditions', { ...eurToAdyen, conditions: Array.from({ length: 21 }, () => eurToAdyen.conditions[0]) }, 'conditions', 'parameter_invalid'],
    ['a condition that is not an object', { ...eurToAdyen, conditions: ['currency=EUR'] }, 'conditions.0', 'parameter_invalid'],
    ['a condition without field', { ...eurToAdyen, conditions: [{ operator: 'equals', value: 'EUR' }] }, 'conditions.0.field', 'parameter_missing'],
    ['an unknown field', cond('country', 'equals', 'DE'), 'conditions.0.field', 'parameter_invalid'],
    ['a metadata field without key', cond('metadata.', 'equals', 'x'), 'conditions.0.field', 'parameter_invalid'],
    ['a metadata key of 41 chars', cond(`metadata.${'k'.repeat(41)}`, 'equals', 'x'), 'conditions.0.field', 'parameter_invalid'],
    ['a field in uppercase', cond('Currency', 'equals', 'EUR'), 'conditions.0.field', 'parameter_invalid'],
    ['an unknown operator', cond('currency', 'like', 'EUR'), 'conditions.0.operator', 'parameter_invalid'],
    ['a missing operator', { ...eurToAdyen, conditions: [{ field: 'currency', value: 'EUR' }] }, 'conditions.0.operator', 'parameter_missing'],
    ['a missing value', { ...eurToAdyen, conditions: [{ field: 'currency', operator: 'equals' }] }, 'conditions.0.value', 'parameter_missing'],
    ['a numeric value', cond('amount', 'greater_than', 1000), 'conditions.0.value', 'parameter_invalid'],
    ['an empty value', cond('metadata.k', 'equals', ''), 'conditions.0.value', 'parameter_invalid'],
    ['a blank value', cond('metadata.k', 'equals', '   '), 'conditions.0.value', 'parameter_invalid'],
    ['a 501-char value', cond('metadata.k', 'equals', 'v'.repeat(501)), 'conditions.0.value', 'parameter_invalid'],
    // numeric operators: only amount, only integer strings
    ['greater_than on currency', cond('currency', 'greater_than', 'EUR'), 'conditions.0.operator', 'parameter_invalid'],
    ['less_than on metadata', cond('metadata.score', 'less_than', '5'), 'conditions.0.operator', 'parameter_invalid'],
    ['greater_than_or_equal on card_bin', cond('card_bin', 'greater_than_or_equal', '400000'), 'conditions.0.operator', 'parameter_invalid'],
    ['a decimal amount', cond('amount', 'greater_than', '10.5'), 'conditions.0.value', 'parameter_invalid'],
    ['a negative amount', cond('amount', 'less_than_or_equal', '-1'), 'conditions.0.value', 'parameter_invalid'],
    ['a non-numeric amount', cond('amount', 'equals', 'ten'), 'conditions.0.value', 'parameter_invalid'],
    ['an amount list with a bad item', cond('amount', 'in', '100,abc'), 'conditions.0.value', 'parameter_invalid'],
    ['contains on amount', cond('amount', 'contains', '99'), 'conditions.0.operator', 'parameter_invalid'],
    // per-field values
    ['a 2-letter currency', cond('currency', 'equals', 'EU'), 'conditions.0.value', 'parameter_invalid'],
    ['a currency with digits', cond('currency', 'equals', 'EU1'), 'conditions.0.value', 'parameter_invalid'],
    ['a currency list with a bad item', cond('currency', 'in', 'EUR,EURO'), 'conditions.0.value', 'parameter_invalid'],
    ['contains on currency', cond('currency', 'contains', 'EUR'), 'conditions.0.operator', 'parameter_invalid'],
    ['an unknown card brand', cond('card_brand', 'equals', 'maestro'), 'conditions.0.value', 'parameter_invalid'],
    ['a card brand list with a bad item', cond('card_brand', 'not_in', 'visa,american express'), 'conditions.0.value', 'parameter_invalid'],
    ['contains on card_brand', cond('card_brand', 'contains', 'visa'), 'conditions.0.operator', 'parameter_invalid'],
    ['a 5-digit BIN', cond('card_bin', 'equals', '42424'), 'conditions.0.value', 'parameter_invalid'],
    ['a 9-digit BIN', cond('card_bin', 'equals', '424242424'), 'conditions.0.value', 'parameter_invalid'],
    ['a BIN with letters', cond('card_bin', 'in', '424242,42424x'), 'conditions.0.value', 'parameter_invalid'],
    ['contains on card_bin', cond('card_bin', 'contains', '424242'), 'conditions.0.operator', 'parameter_invalid'],
    ['an e-mail address as domain', cond('customer_email_domain', 'equals', 'jane@example.com'), 'conditions.0.value', 'parameter_invalid'],
    ['a domain with a space', cond('customer_email_domain', 'in', 'example.com,exa mple.org'), 'conditions.0.value', 'parameter_invalid'],
    // lists
    ['an empty list item', cond('currency', 'in', 'USD,,EUR'), 'conditions.0.value', 'parameter_invalid'],
    ['a trailing comma', cond('metadata.tier', 'not_in', 'gold,'), 'conditions.0.value', 'parameter_invalid'],
    ['a list of blanks', cond('metadata.tier', 'in', ' , '), 'conditions.0.value', 'parameter_invalid'],
    // the index of the condition at fault
    ['a bad second condition', second({ field: 'amount', operator: 'greater_than', value: 'lots' }), 'conditions.1.value', 'parameter_invalid'],
  ])('answers 400 to %s, naming the field', async (_case, body, param, code) => {
    const { apiKey } = await newMerchant();
    const res = await create(apiKey, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param, message: expect.stringMatching(/^Invalid request body: ./) });
    expect((await list(apiKey)).body.data).toEqual([]);
  });

  it.each([
    ['a blank name', { name: ' ' }, 'name'],
    ['an unknown status', { status: 'paused' }, 'status'],
    ['a null status', { status: null }, 'status'],
    ['an unknown provider', { provider: 'paypal' }, 'provider'],
    ['an unknown strategy', { strategy: 'round_robin' }, 'strategy'],
    ['a priority of 1001', { priority: 1001 }, 'priority'],
    ['a bad condition', { conditions: [{ field: 'card_bin', operator: 'equals', value: '12' }] }, 'conditions.0.value'],
    ['21 conditions', { conditions: Array.from({ length: 21 }, () => eurToAdyen.conditions[0]) }, 'conditions'],
  ])('answers 400 to an update with %s and changes nothing', async (_case, body, param) => {
    const { apiKey } = await newMerchant();
    const created = await create(apiKey, eurToAdyen);
    const res = await update(apiKey, created.body.id, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'parameter_invalid',
      param,
      message: expect.stringMatching(/^Invalid request body: ./),
    });
    expect((await list(apiKey)).body.data).toEqual([created.body]);
  });

  it('accepts the limits themselves', async () => {
    const { apiKey } = await newMerchant();
    const res = await create(apiKey, {
      name: 'n'.repeat(100),
      provider: 'braintree',
      priority: 1000,
      conditions: [
        { field: `metadata.${'k'.repeat(40)}`, operator: 'contains', value: 'v'.repeat(500) },
        { field: 'card_bin', operator: 'in', value: '424242,42424242' },
        { field: 'amount', operator: 'less_than_or_equal', value: '0' },
        { field: 'card_brand', operator: 'in', value: 'visa,mastercard,amex,discover,jcb,diners,unionpay,unknown' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.priority).toBe(1000);
  });
});

describe('routing rule creation limits and idempotency', () => {
  it('replays a create with the same Idempotency-Key and body, creating one rule', async () => {
    // Prepare
    const { apiKey } = await newMerchant();
    const key = randomUUID();
    // Act
    const first = await create(apiKey, eurToAdyen, { 'Idempotency-Key': key });
    const replay = await create(apiKey, eurToAdyen, { 'Idempotency-Key': key });
    const reused = await create(apiKey, { ...eurToAdyen, name: 'Other' }, { 'Idempotency-Key': key });
    const listed = await list(apiKey);
    // Assess
    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(reused.status).toBe(400);
    expect(reused.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
    expect(ids(listed)).toEqual([first.body.id]);
  });

  it('refuses the 51st rule with 400 too_many_rules, disabled rules counting too', async () => {
    // Prepare: 50 rules, one of them disabled
    const { apiKey } = await newMerchant();
    const made: string[] = [];
    for (let i = 0; i < 50; i++) made.push((await create(apiKey, { ...eurToAdyen, name: `rule ${i}` })).body.id);
    await update(apiKey, made[0]!, { status: 'disabled' });
    // Act
    const res = await create(apiKey, { ...eurToAdyen, name: 'one too many' });
    const listed = await list(apiKey, { limit: '100' });
    // Assess
    expect(made.every((id) => /^rul_/.test(id))).toBe(true);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'too_many_rules', message: 'Invalid request body' });
    expect(listed.body.data).toHaveLength(50);
    expect(listed.body.data.some((r: { name: string }) => r.name === 'one too many')).toBe(false);
  });

  it('never exceeds 50 rules under parallel creates', async () => {
    // Prepare: 45 rules
    const { apiKey } = await newMerchant();
    for (let i = 0; i < 45; i++) await create(apiKey, { ...eurToAdyen, name: `rule ${i}` });
    // Act: 10 more at once
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => create(apiKey, { ...eurToAdyen, name: `parallel ${i}` })));
    const listed = await list(apiKey, { limit: '100' });
    // Assess
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 400 && a.body.error.code === 'too_many_rules')).toHaveLength(5);
    expect(listed.body.data).toHaveLength(50);
  });
});
