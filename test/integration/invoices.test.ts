import { randomUUID } from 'node:crypto';
import { PinpointSMSVoiceV2Client, SendTextMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SendWhatsAppMessageCommand, SocialMessagingClient } from '@aws-sdk/client-socialmessaging';
import { describe, expect, it, vi } from 'vitest';
// The reconciler's query of expired leases reads across every merchant: this file's own table holds only its own items.
await vi.hoisted(async () => (await import('../support/own-table.ts')).useOwnTable('invoices'));
import { handler as create } from '../../functions/invoices/create.ts';
import { handler as get } from '../../functions/invoices/get.ts';
import { handler as list } from '../../functions/invoices/list.ts';
import { handler as markPaid } from '../../functions/invoices/mark-paid.ts';
import { handler as send } from '../../functions/invoices/send.ts';
import { clock } from '../../shared/model/clock.ts';
import { createCustomer } from '../../shared/domain/customers.ts';
import { config } from '../../shared/config.ts';
import { sendInvoice } from '../../shared/domain/invoice-delivery.ts';
import { LEASE_MS } from '../../shared/domain/operations.ts';
import { reconcileLeased } from '../../shared/domain/reconciler.ts';
import { emailSender } from '../../shared/messaging/email.ts';
import { expiredOperations } from '../../shared/store/leases.ts';
import { createInvoice, markInvoicePaid } from '../../shared/domain/invoices.ts';
import { newId } from '../../shared/model/ids.ts';
import { listDeliveries } from '../../shared/domain/webhooks.ts';
import { listLocalOutbox } from '../../shared/messaging/local-outbox.ts';
import { ChannelNotConfigured, cloudMessageSender, type MessagingSettings } from '../../shared/messaging/messages.ts';

const messagingSettings = (over: Partial<MessagingSettings>): MessagingSettings => ({
  WHATSAPP_TEMPLATE_NAME: 'invoice_ready',
  WHATSAPP_TEMPLATE_LANGUAGE: 'en',
  WHATSAPP_META_API_VERSION: 'v20.0',
  ...over,
});
import { db } from '../../shared/store/client.ts';
import { getEvent } from '../../shared/store/events.ts';
import { apiEvent, fakeContext, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant, testActor } from '../support/merchant.ts';
import { BAD_METADATA, FULL_METADATA } from '../support/metadata.ts';

const BASE_URL = 'http://localhost:3000';

const invoices = {
  create: (key: string, body: unknown, headers: Record<string, string> = {}, context = fakeContext()) =>
    invokeHttp(create, apiEvent({ method: 'POST', path: '/api/invoices', headers: { ...bearer(key), ...headers }, body }), context),
  list: (key: string, query: Record<string, string> = {}) =>
    invokeHttp(list, apiEvent({ method: 'GET', path: '/api/invoices', headers: bearer(key), query })),
  get: (key: string, id: string) => invokeHttp(get, apiEvent({ method: 'GET', path: `/api/invoices/${id}`, headers: bearer(key) })),
  send: (key: string, id: string, body?: unknown) =>
    invokeHttp(send, apiEvent({ method: 'PUT', path: `/api/invoices/${id}/send`, headers: bearer(key), body })),
  markPaid: (key: string, id: string) =>
    invokeHttp(markPaid, apiEvent({ method: 'PUT', path: `/api/invoices/${id}/mark-paid`, headers: bearer(key) })),
};

const invoiceBody = (customerId: string, overrides: Record<string, unknown> = {}) => ({
  customer_id: customerId,
  items: [{ name: 'Consulting (hours)', amount: 1999, quantity: 3 }],
  currency: 'usd',
  due_date: '2026-12-31',
  tax_rate: 7.25,
  ...overrides,
});

const PDF_URL = (id: string) => new RegExp(`^http://localhost:3000/api/invoices/${id}/pdf\\?expires=(\\d+)&signature=[0-9a-f]{64}$`);

/** Runs `fn` with the clock moved forward by `ms`. */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const realNow = clock.now;
  clock.now = () => realNow() + ms;
  try {
    return await fn();
  } finally {
    clock.now = realNow;
  }
}

describe('creating an invoice', () => {
  it('answers a draft with its number, tax math and a signed pdf_url', async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    // Act
    const res = await invoices.create(
      apiKey,
      invoiceBody(customerId, {
        items: [
          { name: 'Consulting', amount: 1999, quantity: 3 },
          { name: 'Setup', amount: 5000, quantity: 1 },
        ],
      }),
    );
    // Assess: 1999 × 3 + 5000 = 10997; 7.25 % of it = 797.2825 → 797
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^inv_[0-9a-z]{26}$/),
      object: 'invoice',
      number: 'INV-000001',
      customer_id: customerId,
      status: 'draft',
      currency: 'USD',
      items: [
        { name: 'Consulting', amount: 1999, quantity: 3 },
        { name: 'Setup', amount: 5000, quantity: 1 },
      ],
      subtotal: 10_997,
      tax: 797,
      tax_rate: 7.25,
      total: 11_794,
      due_date: '2026-12-31',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      sent_at: null,
      sent_to: null,
      paid_at: null,
      subscription_id: null,
      metadata: {},
    });
    const [, expires] = PDF_URL(res.body.id).exec(res.body.pdf_url)!;
    const inSevenDays = Math.floor(clock.now() / 1000) + 7 * 86_400;
    expect(Number(expires)).toBeGreaterThanOrEqual(inSevenDays - 5);
    expect(Number(expires)).toBeLessThanOrEqual(inSevenDays);
    expect(res.headers['content-type']).toBe('application/json');
  });

  it('reads back the same invoice with a new link on every read', async () => {
    const { apiKey, customerId } = await newMerchant();
    const created = (await invoices.create(apiKey, invoiceBody(customerId))).body;
    const read = await later(5_000, () => invoices.get(apiKey, created.id));
    expect(read.status).toBe(200);
    expect({ ...read.body, pdf_url: undefined }).toEqual({ ...created, pdf_url: undefined });
    expect(read.body.pdf_url).toMatch(PDF_URL(created.id));
    expect(read.body.pdf_url).not.toBe(created.pdf_url);
  });

  it.each([
    ['no items', { items: [] }, 'items'],
    ['101 items', { items: Array.from({ length: 101 }, () => ({ name: 'x', amount: 1, quantity: 1 })) }, 'items'],
    ['an item without a name', { items: [{ amount: 100, quantity: 1 }] }, 'items.0.name'],
    ['a 201-char item name', { items: [{ name: 'x'.repeat(201), amount: 100, quantity: 1 }] }, 'items.0.name'],
    ['a negative amount', { items: [{ name: 'x', amount: -1, quantity: 1 }] }, 'items.0.amount'],
    ['a fractional amount', { items: [{ name: 'x', amount: 1.5, quantity: 1 }] }, 'items.0.amount'],
    ['an amount over 99,999,999', { items: [{ name: 'x', amount: 100_000_000, quantity: 1 }] }, 'items.0.amount'],
    ['quantity 0', { items: [{ name: 'x', amount: 1, quantity: 0 }] }, 'items.0.quantity'],
    ['quantity 10,001', { items: [{ name: 'x', amount: 1, quantity: 10_001 }] }, 'items.0.quantity'],
    ['a tax rate with 5 decimals', { tax_rate: 7.12345 }, 'tax_rate'],
    ['a negative tax rate', { tax_rate: -1 }, 'tax_rate'],
    ['a tax rate over 100', { tax_rate: 100.5 }, 'tax_rate'],
    ['a tax rate as a string', { tax_rate: '7.25' }, 'tax_rate'],
    ['Feb 30', { due_date: '2026-02-30' }, 'due_date'],
    ['a due date in another format', { due_date: '12/31/2026' }, 'due_date'],
    ['no due date', { due_date: undefined }, 'due_date'],
    ['an unknown currency', { currency: 'XYZ' }, 'currency'],
    ['no customer', { customer_id: undefined }, 'customer_id'],
  ])('answers 400 to %s, naming the field', async (_case, overrides, param) => {
    const { apiKey, customerId } = await newMerchant();
    const res = await invoices.create(apiKey, invoiceBody(customerId, overrides));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringMatching(/^Invalid request body: ./), param });
  });

  it('keeps its metadata, shown by get and list; none given reads {}', async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    // Act
    const small = (await invoices.create(apiKey, invoiceBody(customerId, { metadata: { order_id: '1042' } }))).body;
    const full = (await invoices.create(apiKey, invoiceBody(customerId, { metadata: FULL_METADATA }))).body;
    const none = (await invoices.create(apiKey, invoiceBody(customerId))).body;
    // Assess
    expect([small.metadata, full.metadata, none.metadata]).toEqual([{ order_id: '1042' }, FULL_METADATA, {}]);
    expect((await invoices.get(apiKey, small.id)).body.metadata).toEqual({ order_id: '1042' });
    expect((await invoices.get(apiKey, full.id)).body.metadata).toEqual(FULL_METADATA);
    expect((await invoices.get(apiKey, none.id)).body.metadata).toEqual({});
    const listed = (await invoices.list(apiKey)).body.data.map((i: { id: string; metadata: object }) => [i.id, i.metadata]);
    expect(listed).toEqual([
      [none.id, {}],
      [full.id, FULL_METADATA],
      [small.id, { order_id: '1042' }],
    ]);
  });

  it.each(BAD_METADATA)('answers metadata of %s with 400 parameter_invalid naming metadata, and creates nothing', async (_case, metadata) => {
    const { apiKey, customerId } = await newMerchant();
    const res = await invoices.create(apiKey, invoiceBody(customerId, { metadata }));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid' });
    expect(res.body.error.param.split('.')[0]).toBe('metadata');
    expect((await invoices.list(apiKey)).body.data).toEqual([]);
  });

  it('accepts free items and the limits themselves', async () => {
    const { apiKey, customerId } = await newMerchant();
    const items = [
      { name: 'x'.repeat(200), amount: 99_999_999, quantity: 10_000 },
      { name: 'Free sample', amount: 0, quantity: 1 },
    ];
    const res = await invoices.create(apiKey, invoiceBody(customerId, { items, tax_rate: 100 }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subtotal: 999_999_990_000, tax: 999_999_990_000, total: 1_999_999_980_000 });
  });

  it.each([
    ['another merchant’s customer', async () => (await newMerchant()).customerId],
    ['an unknown customer', async () => newId('customer')],
    ['a malformed customer id', async () => 'cus_nope'],
  ])('answers 400 resource_missing for %s', async (_case, customer) => {
    const { apiKey } = await newMerchant();
    const res = await invoices.create(apiKey, invoiceBody(await customer()));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'resource_missing', param: 'customer_id', message: 'Invalid request body' });
  });

  it('gives 50 parallel creates 50 distinct consecutive numbers', async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    // Act: with the function's timeout far away (racing 50 at once on a loaded machine takes a while)
    const long = () => fakeContext({ timeout: 300 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => invoices.create(apiKey, invoiceBody(customerId), {}, long())));
    // Assess
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    const numbers = answers.map((a) => a.body.number as string).sort();
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`));
    const listed = await invoices.list(apiKey, { limit: '100' });
    expect(listed.body.data).toHaveLength(50);
  }, 180_000);

  it('numbers creates racing on a slow store without failing any: each attempt takes long, none gives up for time', async () => {
    // Prepare: every read and transaction answered 1 s late, as on a loaded machine; 8 creates take 16 s or more in
    // turns (the function's timeout set far away: what is checked is that the sequence itself never gives up on time)
    const { apiKey, customerId } = await newMerchant();
    const name = `slow-store-${randomUUID()}`;
    db.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        return result;
      },
      { step: 'initialize', name },
    );
    try {
      // Act
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => invoices.create(apiKey, invoiceBody(customerId), {}, fakeContext({ timeout: 300 }))),
      );
      // Assess
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      expect(answers.map((a) => a.body.number as string).sort()).toEqual(
        Array.from({ length: 8 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`),
      );
    } finally {
      db.middlewareStack.remove(name);
    }
  }, 300_000);

  it('numbers each merchant on its own', async () => {
    const first = await newMerchant();
    const second = await newMerchant();
    await invoices.create(first.apiKey, invoiceBody(first.customerId));
    await invoices.create(first.apiKey, invoiceBody(first.customerId));
    const res = await invoices.create(second.apiKey, invoiceBody(second.customerId));
    expect(res.body.number).toBe('INV-000001');
  });

  it('replays an idempotent create without using up a number', async () => {
    const { apiKey, customerId } = await newMerchant();
    const key = { 'Idempotency-Key': randomUUID() };
    const first = await invoices.create(apiKey, invoiceBody(customerId), key);
    const replay = await invoices.create(apiKey, invoiceBody(customerId), key);
    const next = await invoices.create(apiKey, invoiceBody(customerId));
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(next.body.number).toBe('INV-000002');
  });

  it('answers the invoice its first run stored to a request run again after a crash, using no second number', async () => {
    // Prepare: the first run of a keyed request stored the invoice, then died before answering
    const { apiKey, merchantId, customerId } = await newMerchant();
    const origin = { at: clock.now() - 30_000, seed: `test#${randomUUID()}` };
    const input = {
      customer_id: customerId,
      items: [{ name: 'Consulting', amount: 1999, quantity: 3 }],
      currency: 'USD',
      due_date: '2026-12-31',
      tax_rate: 7.25,
    };
    const first = await createInvoice(testActor(merchantId), input, BASE_URL, origin);
    // Act: the retry runs the create again under the same origin, a minute later; then a new invoice
    const again = await later(60_000, () => createInvoice(testActor(merchantId), input, BASE_URL, origin));
    const next = await invoices.create(apiKey, invoiceBody(customerId));
    // Assess: the same invoice and number, created when the request first ran; the numbers stay gapless
    expect({ ...again, pdf_url: null }).toEqual({ ...first, pdf_url: null });
    expect(first).toMatchObject({ number: 'INV-000001', created_at: new Date(origin.at).toISOString() });
    expect(next.body.number).toBe('INV-000002');
    expect((await invoices.list(apiKey)).body.data.map((i: { id: string }) => i.id)).toEqual([next.body.id, first.id]);
    const created = (await listDeliveries(testActor(merchantId), { limit: 10 })).data.filter((e) => e.event === 'invoice.created');
    expect(created).toHaveLength(2);
  });

  it('keeps the subscription and period given by the domain API', async () => {
    const { merchantId, customerId } = await newMerchant();
    const subscriptionId = newId('subscription');
    const view = await createInvoice(
      testActor(merchantId),
      {
        customer_id: customerId,
        items: [{ name: 'Pro plan', amount: 2900, quantity: 1 }],
        currency: 'EUR',
        due_date: '2026-12-01',
        tax_rate: 19,
        subscription_id: subscriptionId,
        period_start: '2026-11-01',
      },
      BASE_URL,
    );
    expect(view).toMatchObject({
      number: 'INV-000001',
      subscription_id: subscriptionId,
      period_start: '2026-11-01',
      subtotal: 2900,
      tax: 551,
      total: 3451,
    });
    expect(view.pdf_url).toMatch(PDF_URL(view.id));
    const stranger = (await newMerchant()).customerId;
    await expect(
      createInvoice(
        testActor(merchantId),
        { customer_id: stranger, items: view.items, currency: 'EUR', due_date: '2026-12-01', tax_rate: 19 },
        BASE_URL,
      ),
    ).rejects.toMatchObject({
      code: 'resource_missing',
      details: { param: 'customer_id' },
    });
    await expect(
      createInvoice(
        testActor(merchantId),
        { customer_id: customerId, items: view.items, currency: 'EUR', due_date: '2026-12-01', tax_rate: 7.12345 },
        BASE_URL,
      ),
    ).rejects.toMatchObject({
      status: 400,
      details: { param: 'tax_rate' },
    });
  });
});

describe('reading invoices', () => {
  it('answers 404 for another merchant’s invoice, an unknown one and a malformed id', async () => {
    const owner = await newMerchant();
    const other = await newMerchant();
    const created = (await invoices.create(owner.apiKey, invoiceBody(owner.customerId))).body;
    for (const res of [
      await invoices.get(other.apiKey, created.id),
      await invoices.send(other.apiKey, created.id, { channel: 'email' }),
      await invoices.markPaid(other.apiKey, created.id),
      await invoices.get(owner.apiKey, newId('invoice')),
      await invoices.get(owner.apiKey, 'inv_123'),
      await invoices.get(owner.apiKey, newId('payment')),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request_error',
        message: expect.stringMatching(/^Resource not found: no invoice \S+ in test mode$/),
      });
    }
    expect((await invoices.get(owner.apiKey, created.id)).body.status).toBe('draft');
  });

  it('lists newest first with filters and cursors', async () => {
    // Prepare: three invoices for Jane, one for another customer, one of Jane's paid
    const { apiKey, merchantId, customerId } = await newMerchant();
    const other = await createCustomer(testActor(merchantId), { email: 'max@example.com', name: 'Max' });
    const made = [];
    for (const customer of [customerId, customerId, other.id, customerId]) made.push((await invoices.create(apiKey, invoiceBody(customer))).body);
    await invoices.markPaid(apiKey, made[1].id);
    const ids = made.map((m) => m.id as string).reverse();
    // Act
    const all = await invoices.list(apiKey);
    const firstPage = await invoices.list(apiKey, { limit: '2' });
    const secondPage = await invoices.list(apiKey, { limit: '2', starting_after: firstPage.body.data[1].id });
    const before = await invoices.list(apiKey, { limit: '2', ending_before: ids[3]! });
    const drafts = await invoices.list(apiKey, { status: 'draft' });
    const paid = await invoices.list(apiKey, { status: 'paid' });
    const janes = await invoices.list(apiKey, { customer_id: customerId });
    const janesDrafts = await invoices.list(apiKey, { customer_id: customerId, status: 'draft' });
    // Assess
    expect(all.body).toMatchObject({ object: 'list', has_more: false });
    expect(all.body.data.map((i: { id: string }) => i.id)).toEqual(ids);
    expect(all.body.data[0]).toMatchObject({ object: 'invoice', number: 'INV-000004', pdf_url: expect.stringMatching(PDF_URL(ids[0]!)) });
    expect(firstPage.body.has_more).toBe(true);
    expect(secondPage.body.data.map((i: { id: string }) => i.id)).toEqual(ids.slice(2));
    expect(secondPage.body.has_more).toBe(false);
    expect(before.body.data.map((i: { id: string }) => i.id)).toEqual(ids.slice(1, 3));
    expect(drafts.body.data).toHaveLength(3);
    expect(paid.body.data.map((i: { id: string }) => i.id)).toEqual([made[1].id]);
    expect(janes.body.data).toHaveLength(3);
    expect(janesDrafts.body.data.map((i: { id: string }) => i.id)).toEqual([made[3].id, made[0].id]);
  });

  it.each([
    ['an unknown status', { status: 'void' }, 'status'],
    ['a malformed customer_id', { customer_id: 'cus_1' }, 'customer_id'],
    ['limit 0', { limit: '0' }, 'limit'],
    ['limit 101', { limit: '101' }, 'limit'],
    ['a cursor of another kind', { starting_after: newId('payment') }, 'starting_after'],
  ])('answers 400 to %s', async (_case, query, param) => {
    const { apiKey } = await newMerchant();
    const res = await invoices.list(apiKey, query);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });
});

describe('sending an invoice', () => {
  const outboxFor = (to: string, channel: string, link: string) =>
    listLocalOutbox().find((m) => m.to === to && m.channel === channel && m.text.includes(link.split('?')[0]!));

  it('e-mails the customer the amount and a signed link', async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    const created = (await invoices.create(apiKey, invoiceBody(customerId))).body;
    // Act
    const res = await invoices.send(apiKey, created.id, { channel: 'email' });
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      status: 'sent',
      sent_to: 'jane@example.com',
      channel: 'email',
      sent_at: expect.stringMatching(/Z$/),
    });
    const mail = outboxFor('jane@example.com', 'email', res.body.pdf_url);
    expect(mail?.subject).toBe('Invoice INV-000001 for USD 64.32, due 2026-12-31');
    expect(mail?.text).toContain('USD 64.32');
    expect(mail?.text).toContain(res.body.pdf_url);
  });

  it('sends by e-mail when no channel is named', async () => {
    const { apiKey, customerId } = await newMerchant();
    const created = (await invoices.create(apiKey, invoiceBody(customerId))).body;
    const res = await invoices.send(apiKey, created.id);
    expect(res.body).toMatchObject({ status: 'sent', channel: 'email', sent_to: 'jane@example.com' });
  });

  it.each(['sms', 'whatsapp'])('sends over %s to the customer’s phone', async (channel) => {
    const { apiKey, merchantId } = await newMerchant();
    const phone = `+1415${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const customer = await createCustomer(testActor(merchantId), { email: 'kim@example.com', name: 'Kim', phone });
    const created = (
      await invoices.create(apiKey, invoiceBody(customer.id, { currency: 'jpy', items: [{ name: 'Tea', amount: 1235, quantity: 1 }], tax_rate: 0 }))
    ).body;
    const res = await invoices.send(apiKey, created.id, { channel });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'sent', sent_to: phone, channel });
    const message = outboxFor(phone, channel, res.body.pdf_url);
    // JPY has no decimals
    expect(message?.text).toContain('JPY 1,235');
    expect(message?.text).toContain(res.body.pdf_url);
  });

  it('answers 400 customer_has_no_phone when the customer has no phone, and stays a draft', async () => {
    const { apiKey, merchantId } = await newMerchant();
    const customer = await createCustomer(testActor(merchantId), { email: 'nophone@example.com' });
    const created = (await invoices.create(apiKey, invoiceBody(customer.id))).body;
    for (const channel of ['sms', 'whatsapp']) {
      const res = await invoices.send(apiKey, created.id, { channel });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'customer_has_no_phone', param: 'channel' });
    }
    expect((await invoices.get(apiKey, created.id)).body.status).toBe('draft');
  });

  it('answers 400 to an unknown channel', async () => {
    const { apiKey, customerId } = await newMerchant();
    const created = (await invoices.create(apiKey, invoiceBody(customerId))).body;
    const res = await invoices.send(apiKey, created.id, { channel: 'fax' });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('channel');
  });

  it('re-sends a sent invoice over another channel', async () => {
    const { apiKey, customerId } = await newMerchant();
    const created = (await invoices.create(apiKey, invoiceBody(customerId))).body;
    const first = await invoices.send(apiKey, created.id, { channel: 'email' });
    const again = await later(1_000, () => invoices.send(apiKey, created.id, { channel: 'sms' }));
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'sent', channel: 'sms', sent_to: '+14155550123' });
    expect(Date.parse(again.body.sent_at)).toBeGreaterThan(Date.parse(first.body.sent_at));
  });
});

describe('invoice states', () => {
  it('marks a draft paid once; paying again or sending then answers invalid_state', async () => {
    const { apiKey, customerId } = await newMerchant();
    const created = (await invoices.create(apiKey, invoiceBody(customerId))).body;
    const paid = await invoices.markPaid(apiKey, created.id);
    const again = await invoices.markPaid(apiKey, created.id);
    const sendAfter = await invoices.send(apiKey, created.id, { channel: 'email' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({
      id: created.id,
      status: 'paid',
      paid_at: expect.stringMatching(/Z$/),
      pdf_url: expect.stringMatching(PDF_URL(created.id)),
    });
    // The reason names the invoice's state and the refused move.
    for (const [res, reason] of [
      [again, 'a paid invoice cannot be marked paid'],
      [sendAfter, 'a paid invoice cannot be sent'],
    ] as const) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_state', message: `Invalid request body: ${reason}` });
    }
    expect((await invoices.get(apiKey, created.id)).body).toMatchObject({ status: 'paid', paid_at: paid.body.paid_at });
  });

  it('marks a sent invoice paid, keeping where it was sent', async () => {
    const { apiKey, customerId } = await newMerchant();
    const created = (await invoices.create(apiKey, invoiceBody(customerId))).body;
    await invoices.send(apiKey, created.id, { channel: 'email' });
    const paid = await invoices.markPaid(apiKey, created.id);
    expect(paid.body).toMatchObject({ status: 'paid', sent_to: 'jane@example.com', paid_at: expect.any(String) });
  });

  it('lets only one of several racing mark-paid calls win', async () => {
    const { apiKey, customerId } = await newMerchant();
    const created = (await invoices.create(apiKey, invoiceBody(customerId))).body;
    const answers = await Promise.all(Array.from({ length: 5 }, () => invoices.markPaid(apiKey, created.id)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400 && a.body.error.code === 'invalid_state')).toHaveLength(4);
  });

  it('never messages the customer for a send it refuses while mark-paid races it', async () => {
    // Prepare: ten drafts
    const { apiKey, customerId } = await newMerchant();
    const drafts = await Promise.all(Array.from({ length: 10 }, async () => (await invoices.create(apiKey, invoiceBody(customerId))).body));
    // Act: send and mark-paid each at the same moment
    const races = await Promise.all(
      drafts.map(async (d) => [d.id, ...(await Promise.all([invoices.send(apiKey, d.id), invoices.markPaid(apiKey, d.id)]))] as const),
    );
    // Assess: one message exactly when the send answered 200, none when it answered invalid_state; paid exactly when mark-paid won
    for (const [id, sent, paid] of races) {
      const messages = listLocalOutbox().filter((m) => m.text.includes(`/api/invoices/${id}/pdf`));
      expect([sent.status, paid.status]).toContain(200);
      for (const res of [sent, paid].filter((r) => r.status !== 200)) expect(res.body.error.code).toBe('invalid_state');
      expect(messages).toHaveLength(sent.status === 200 ? 1 : 0);
      expect((await invoices.get(apiKey, id)).body.status).toBe(paid.status === 200 ? 'paid' : 'sent');
    }
  });

  it('records invoice.created, invoice.sent and invoice.paid in the webhook event log', async () => {
    // Prepare
    const { apiKey, merchantId, customerId } = await newMerchant();
    const created = (await invoices.create(apiKey, invoiceBody(customerId))).body;
    // Act
    await invoices.send(apiKey, created.id, { channel: 'email' });
    await invoices.markPaid(apiKey, created.id);
    // Assess
    const log = await listDeliveries(testActor(merchantId), { limit: 10 });
    const invoiceEvents = log.data.filter((e) => e.event.startsWith('invoice.'));
    expect(invoiceEvents.map((e) => e.event)).toEqual(['invoice.paid', 'invoice.sent', 'invoice.created']);
    const objects = await Promise.all(invoiceEvents.map(async (e) => (await getEvent({ event_id: e.id, object_id: created.id }))?.data.object));
    expect(objects).toEqual([
      expect.objectContaining({ id: created.id, number: 'INV-000001', status: 'paid' }),
      expect.objectContaining({ id: created.id, status: 'sent', sent_to: 'jane@example.com' }),
      expect.objectContaining({ id: created.id, status: 'draft', total: 6432 }),
    ]);
  });

  it('serves the subscription helper’s domain calls: send, then mark paid by a payment', async () => {
    const { merchantId, customerId } = await newMerchant();
    const created = await createInvoice(
      testActor(merchantId),
      { customer_id: customerId, items: [{ name: 'Plan', amount: 1000, quantity: 1 }], currency: 'USD', due_date: '2026-12-01', tax_rate: 0 },
      BASE_URL,
    );
    const sent = await sendInvoice(testActor(merchantId), created.id, 'email', BASE_URL);
    const paymentId = newId('payment');
    const paid = await markInvoicePaid(testActor(merchantId), created.id, paymentId);
    expect(sent).toMatchObject({ status: 'sent', sent_to: 'jane@example.com' });
    expect(paid).toMatchObject({ status: 'paid', payment_id: paymentId, paid_at: expect.any(String) });
    await expect(markInvoicePaid(testActor(merchantId), created.id)).rejects.toMatchObject({ code: 'invalid_state' });
  });
});

describe('a send whose run died', () => {
  const realPublicUrl = config.PUBLIC_API_URL;
  /** Starts a send that takes the invoice and then dies before its message leaves (the e-mail call never returns). */
  async function sendThatDies(apiKey: string, invoiceId: string) {
    let reached!: () => void;
    const stuck = new Promise<void>((resolve) => (reached = resolve));
    const send = vi.spyOn(emailSender, 'send').mockImplementationOnce(() => {
      reached();
      return new Promise<never>(() => {});
    });
    void invoices.send(apiKey, invoiceId, { channel: 'email' });
    await stuck;
    send.mockRestore();
  }
  /** The reconciler's run once the send's lease ended, on this invoice's operation. */
  async function reconcileAfterLease(invoiceId: string) {
    return later(LEASE_MS + 1_000, async () => {
      const leased = (await expiredOperations(clock.now(), 1_000)).filter((l) => l.entity === 'invoice' && l.invoice.id === invoiceId);
      return Promise.all(leased.map(reconcileLeased));
    });
  }
  const messagesOf = (invoiceId: string) => listLocalOutbox().filter((m) => m.text.includes(`/api/invoices/${invoiceId}/pdf`));

  it('holds the invoice while its lease runs, then the reconciler sends it again and records it sent', async () => {
    // Prepare
    const { apiKey, merchantId, customerId } = await newMerchant();
    const created = (await invoices.create(apiKey, invoiceBody(customerId))).body;
    config.PUBLIC_API_URL = BASE_URL;
    try {
      await sendThatDies(apiKey, created.id);
      // Act
      const markPaidWhileHeld = await invoices.markPaid(apiKey, created.id);
      const sendWhileHeld = await invoices.send(apiKey, created.id, { channel: 'sms' });
      const finished = await reconcileAfterLease(created.id);
      const leftOver = await reconcileAfterLease(created.id);
      // Assess: refused while held; sent once by the reconciler (at least once: the dead run's message never left)
      for (const res of [markPaidWhileHeld, sendWhileHeld]) {
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({
          code: 'invalid_state',
          message: 'Invalid request body: the draft invoice is being sent at this moment',
        });
      }
      expect(finished).toEqual([true]);
      expect(leftOver).toEqual([]);
      expect((await invoices.get(apiKey, created.id)).body).toMatchObject({ status: 'sent', channel: 'email', sent_to: 'jane@example.com' });
      expect(messagesOf(created.id)).toEqual([expect.objectContaining({ to: 'jane@example.com', channel: 'email' })]);
      const sent = (await listDeliveries(testActor(merchantId), { limit: 10 })).data.filter((e) => e.event === 'invoice.sent');
      expect(sent).toHaveLength(1);
      expect((await invoices.markPaid(apiKey, created.id)).status).toBe(200);
    } finally {
      config.PUBLIC_API_URL = realPublicUrl;
    }
  });

  it('does not send again an invoice marked paid after the dead send’s lease ended', async () => {
    // Prepare
    const { apiKey, customerId } = await newMerchant();
    const created = (await invoices.create(apiKey, invoiceBody(customerId))).body;
    config.PUBLIC_API_URL = BASE_URL;
    try {
      await sendThatDies(apiKey, created.id);
      // Act
      const paid = await later(LEASE_MS + 1_000, () => invoices.markPaid(apiKey, created.id));
      const finished = await reconcileAfterLease(created.id);
      // Assess
      expect(paid.status).toBe(200);
      expect(finished).toEqual([true]);
      expect(messagesOf(created.id)).toEqual([]);
      expect((await invoices.get(apiKey, created.id)).body).toMatchObject({ status: 'paid', sent_at: null });
      expect(await reconcileAfterLease(created.id)).toEqual([]);
    } finally {
      config.PUBLIC_API_URL = realPublicUrl;
    }
  });
});

describe('the cloud messaging adapters', () => {
  const message = {
    to: '+14155550123',
    text: 'Invoice INV-000001: USD 64.32 due 2026-12-31. PDF: https://x/pdf',
    params: ['INV-000001', 'USD 64.32', '2026-12-31', 'https://x/pdf'],
  };

  it('sends SMS through End User Messaging SMS as a transactional text', async () => {
    const send = vi.spyOn(PinpointSMSVoiceV2Client.prototype, 'send').mockResolvedValue({ MessageId: 'm-1' } as never);
    try {
      await cloudMessageSender(messagingSettings({ SMS_ORIGINATION_IDENTITY: 'pool-123' })).send({ channel: 'sms', ...message });
      const command = send.mock.calls[0]![0] as SendTextMessageCommand;
      expect(command).toBeInstanceOf(SendTextMessageCommand);
      expect(command.input).toMatchObject({
        DestinationPhoneNumber: message.to,
        MessageBody: message.text,
        OriginationIdentity: 'pool-123',
        MessageType: 'TRANSACTIONAL',
      });
    } finally {
      send.mockRestore();
    }
  });

  it('sends WhatsApp as the configured template with the message’s parameters', async () => {
    const send = vi.spyOn(SocialMessagingClient.prototype, 'send').mockResolvedValue({ messageId: 'w-1' } as never);
    try {
      await cloudMessageSender(messagingSettings({ WHATSAPP_PHONE_NUMBER_ID: 'phone-number-id-abc', WHATSAPP_TEMPLATE_NAME: 'invoice_ready' })).send({
        channel: 'whatsapp',
        ...message,
      });
      const command = send.mock.calls[0]![0] as SendWhatsAppMessageCommand;
      expect(command).toBeInstanceOf(SendWhatsAppMessageCommand);
      expect(command.input).toMatchObject({ originationPhoneNumberId: 'phone-number-id-abc', metaApiVersion: 'v20.0' });
      expect(JSON.parse(new TextDecoder().decode(command.input.message))).toEqual({
        messaging_product: 'whatsapp',
        to: message.to,
        type: 'template',
        template: {
          name: 'invoice_ready',
          language: { code: 'en' },
          components: [{ type: 'body', parameters: message.params.map((text) => ({ type: 'text', text })) }],
        },
      });
    } finally {
      send.mockRestore();
    }
  });

  it('refuses WhatsApp with a typed 400 when no WhatsApp number is configured', async () => {
    const sender = cloudMessageSender(messagingSettings({}));
    await expect(sender.send({ channel: 'whatsapp', ...message })).rejects.toBeInstanceOf(ChannelNotConfigured);
    await expect(sender.send({ channel: 'whatsapp', ...message })).rejects.toMatchObject({
      status: 400,
      code: 'parameter_invalid',
      message: 'Invalid request body: channel is not available in this deployment: choose another channel',
      details: { param: 'channel' },
    });
  });
});
