import { randomUUID } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { newId } from '../../shared/model/ids.ts';
import { getApiKey, getApiKeyByHash } from '../../shared/store/api-keys.ts';
import { db, TABLE } from '../../shared/store/client.ts';
import { getCustomer } from '../../shared/store/customers.ts';
import { addedEvent, eventPut, getEvent } from '../../shared/store/events.ts';
import { claimIdempotencyKey } from '../../shared/store/idempotency.ts';
import { getInvoiceById } from '../../shared/store/invoices.ts';
import { StoredRecordError } from '../../shared/store/item-schemas.ts';
import { storedFields } from '../../shared/store/stored-form.ts';
import {
  API_KEY_HASH_COPIES,
  apiKeyKeys,
  customerKeys,
  eventKeys,
  idempotencyKeys,
  invoiceKeys,
  otpKeys,
  paymentKeys,
  routingRuleKeys,
  sessionKeys,
  settlementKeys,
  subscriptionKeys,
  webhookKeys,
} from '../../shared/store/keys.ts';
import { getOtpRequest } from '../../shared/store/otp-requests.ts';
import { getRefund, getStoredPayment, newPaymentRecord } from '../../shared/store/payments.ts';
import { listRoutingRules } from '../../shared/store/routing-rules.ts';
import { getSession } from '../../shared/store/sessions.ts';
import { getSettlement } from '../../shared/store/settlements.ts';
import { getPeriod, loadSubscription } from '../../shared/store/subscriptions.ts';
import { listWebhooks } from '../../shared/store/webhooks.ts';
import { testOwner } from '../support/merchant.ts';

/*
 * Records read back from the table are parsed by their repository's schema: a malformed one (written by a bug, a
 * hand edit or a version that stored another shape) is refused with an error naming the record kind and the failing
 * path, never handed on as if it were the record. Items are written raw, with the keys of keys.ts but never into a
 * shared index partition (lease, outbox, renewal, settlement, balance), so no other test file running on the same
 * table ever reads them.
 */

const NOW = '2026-01-15T10:00:00.000Z';

const put = (item: Record<string, unknown>) => db.send(new PutCommand({ TableName: TABLE, Item: item }));
/** An API key's hash item is stored in every copy (a request reads one at random). */
const hashCopies = Array.from({ length: API_KEY_HASH_COPIES }, (_, copy) => copy);

/** What `read` fails with (undefined when it does not fail). */
const failureOf = (read: () => Promise<unknown>): Promise<unknown> =>
  read().then(
    () => undefined,
    (error: unknown) => error,
  );

const payment = (id: string, merchantId: string) =>
  newPaymentRecord({
    id,
    merchant_id: merchantId,
    livemode: false,
    status: 'captured',
    amount: 1000,
    currency: 'EUR',
    amount_captured: 1000,
    provider: 'stripe',
    provider_reference: 'ch_1',
    card: { brand: 'visa', last4: '4242', bin: '424242', exp_month: 12, exp_year: 2030, fingerprint: 'f'.repeat(32) },
    created_at: NOW,
  });

/** A payment's fields as stored (store/stored-form.ts): some packed, the null ones left out. */
const storedPayment = (fields: object) => storedFields('payment', fields as Record<string, unknown>).set;

const invoice = (id: string, merchantId: string) => ({
  id,
  merchant_id: merchantId,
  livemode: false,
  number: 'INV-000001',
  customer_id: newId('customer'),
  merchant_email: null,
  customer_name: null,
  customer_email: 'jane@example.com',
  status: 'draft',
  currency: 'EUR',
  items: [{ name: 'Plan', amount: 1000, quantity: 1 }],
  subtotal: 1000,
  tax: 0,
  tax_rate: 0,
  total: 1000,
  due_date: '2026-01-31',
  created_at: NOW,
  sent_at: null,
  sent_to: null,
  channel: null,
  paid_at: null,
  payment_id: null,
  subscription_id: null,
  period_start: null,
  metadata: {},
  next_retry_at: null,
  retry_reason: null,
  payment_attempts: [],
});

const subscription = (id: string, merchantId: string) => ({
  id,
  merchant_id: merchantId,
  livemode: false,
  customer_id: newId('customer'),
  payment_method: null,
  plan: 'Pro',
  amount: 1000,
  currency: 'EUR',
  interval: 'month',
  interval_count: 1,
  billing_anchor: '2026-01-15',
  status: 'active',
  current_period_start: '2026-01-15',
  next_billing: '2026-02-15',
  retry_attempt: null,
  retry_at: null,
  retry_reason: null,
  awaiting_card: null,
  latest_invoice: null,
  metadata: {},
  cancel_at_period_end: false,
  created_at: NOW,
  updated_at: NOW,
  cancelled_at: null,
});

const period = (subscriptionId: string, periodStart: string) => ({
  subscription_id: subscriptionId,
  period_start: periodStart,
  state: 'open',
  attempt: 0,
  claim: randomUUID(),
  lease_until: Date.parse(NOW),
  created_at: NOW,
  updated_at: NOW,
});

/** An event item as stored before its first round: its keys (in the partition of the payment it reports, the id in the sort key), its payload deflated. */
const event = (id: string, merchantId: string, objectId: string) => ({
  ...eventKeys.item(id, objectId),
  type: 'event',
  event_type: 'payment.captured',
  merchant_id: merchantId,
  livemode: false,
  created_at: NOW,
  data: deflateRawSync(JSON.stringify({ object: { id: objectId, object: 'payment' } })),
});

interface Case {
  kind: string;
  /** the attribute the malformed item gets wrong */
  path: string;
  /** writes the malformed item; answers the read that must refuse it */
  prepare: () => Promise<() => Promise<unknown>>;
}

/** An event whose payload is stored as `payload` (the attribute and its bytes). */
const eventStoring = (payload: Record<string, Uint8Array>): Case => ({
  kind: 'event',
  path: 'data',
  prepare: async () => {
    const [id, objectId] = [newId('event'), newId('payment')];
    await put({ ...event(id, newId('merchant'), objectId), ...payload });
    return () => getEvent({ event_id: id, object_id: objectId });
  },
});

const cases: Record<string, Case> = {
  'a payment with a status of no payment': {
    kind: 'payment',
    path: 'status',
    prepare: async () => {
      const [merchantId, id] = [newId('merchant'), newId('payment')];
      await put({ ...paymentKeys.item(id), type: 'payment', ...storedPayment({ ...payment(id, merchantId), status: 'settled' }) });
      return () => getStoredPayment(testOwner(merchantId), id);
    },
  },
  'a payment whose packed routing decision does not unpack': {
    kind: 'payment',
    path: 'routing_decision',
    prepare: async () => {
      const [merchantId, id] = [newId('merchant'), newId('payment')];
      const item = { ...storedPayment(payment(id, merchantId)), routing_decision: Uint8Array.of(1, 0xff, 0x00, 0x13) };
      await put({ ...paymentKeys.item(id), type: 'payment', ...item });
      return () => getStoredPayment(testOwner(merchantId), id);
    },
  },
  'a refund without its id': {
    kind: 'refund',
    path: 'id',
    prepare: async () => {
      const [paymentId, id] = [newId('payment'), newId('refund')];
      const refund = { payment_id: paymentId, status: 'succeeded', amount: 100, reason: null, provider_reference: 're_1', created_at: NOW };
      await put({ ...paymentKeys.refund(paymentId, id), type: 'refund', ...refund });
      return () => getRefund(paymentId, id);
    },
  },
  'an invoice with a status of no invoice': {
    kind: 'invoice',
    path: 'status',
    prepare: async () => {
      const id = newId('invoice');
      await put({ ...invoiceKeys.item(id), type: 'invoice', ...invoice(id, newId('merchant')), status: 'void' });
      return () => getInvoiceById(id);
    },
  },
  'an invoice whose send operation has no lease': {
    kind: 'invoice',
    path: 'op.lease_until',
    prepare: async () => {
      const id = newId('invoice');
      const op = { id: newId('operation'), kind: 'invoice_send', channel: 'email', to: 'jane@example.com' };
      await put({ ...invoiceKeys.item(id), type: 'invoice', ...invoice(id, newId('merchant')), op });
      return () => getInvoiceById(id);
    },
  },
  'a subscription without its id': {
    kind: 'subscription',
    path: 'id',
    prepare: async () => {
      const id = newId('subscription');
      const { id: _id, ...withoutId } = subscription(id, newId('merchant'));
      await put({ ...subscriptionKeys.item(id), type: 'subscription', ...withoutId });
      return () => loadSubscription(id);
    },
  },
  'a subscription with an interval of no schedule': {
    kind: 'subscription',
    path: 'interval',
    prepare: async () => {
      const id = newId('subscription');
      await put({ ...subscriptionKeys.item(id), type: 'subscription', ...subscription(id, newId('merchant')), interval: 'fortnight' });
      return () => loadSubscription(id);
    },
  },
  'a renewal period in a state of no period': {
    kind: 'subscription period',
    path: 'state',
    prepare: async () => {
      const id = newId('subscription');
      await put({ ...subscriptionKeys.period(id, '2026-02-15'), type: 'subscription_period', ...period(id, '2026-02-15'), state: 'paid' });
      return () => getPeriod(id, '2026-02-15');
    },
  },
  'a customer whose card on file names no provider': {
    kind: 'customer',
    path: 'card_on_file.provider',
    prepare: async () => {
      const [merchantId, id] = [newId('merchant'), newId('customer')];
      const card_on_file = {
        provider: 'paypal',
        connector_id: null,
        provider_token: 'tok_1',
        fingerprint: null,
        brand: 'visa',
        last4: '4242',
        exp_month: 12,
        exp_year: 2030,
      };
      const customer = {
        id,
        merchant_id: merchantId,
        livemode: false,
        test_clock: null,
        email: 'jane@example.com',
        name: null,
        phone: null,
        metadata: {},
        created_at: NOW,
        card_on_file,
      };
      await put({ ...customerKeys.item(id), type: 'customer', ...customer });
      return () => getCustomer(testOwner(merchantId), id);
    },
  },
  'an event of no event type': {
    kind: 'event',
    path: 'event_type',
    prepare: async () => {
      const [id, objectId] = [newId('event'), newId('payment')];
      await put({ ...event(id, newId('merchant'), objectId), event_type: 'payment.exploded' });
      return () => getEvent({ event_id: id, object_id: objectId });
    },
  },
  'an event whose stored payload does not inflate': eventStoring({ data: Buffer.from('not deflated') }),
  'an API key with a status of no key': {
    kind: 'API key',
    path: 'status',
    prepare: async () => {
      const [merchantId, id] = [newId('merchant'), newId('apiKey')];
      const key = {
        id,
        merchant_id: merchantId,
        name: 'CI',
        mode: 'test',
        key_type: 'secret',
        prefix: 'sk_test_',
        last4: 'abcd',
        status: 'expired',
        created_at: NOW,
        last_used: null,
        key_hash: randomUUID(),
      };
      await put({ ...apiKeyKeys.item(merchantId, id), type: 'api_key', ...key });
      return () => getApiKey(merchantId, id);
    },
  },
  'an API key hash item without its merchant': {
    kind: 'API key hash',
    path: 'merchant_id',
    prepare: async () => {
      const [hash, keyId] = [randomUUID(), newId('apiKey')];
      for (const copy of hashCopies)
        await put({
          ...apiKeyKeys.byHash(hash, copy),
          type: 'api_key_hash',
          key_id: keyId,
          mode: 'test',
          key_type: 'secret',
          status: 'active',
          last_used: null,
        });
      return () => getApiKeyByHash(hash);
    },
  },
  'a routing rule naming no provider': {
    kind: 'routing rule',
    path: 'provider',
    prepare: async () => {
      const [merchantId, id] = [newId('merchant'), newId('rule')];
      const rule = {
        id,
        merchant_id: merchantId,
        livemode: false,
        name: 'EUR',
        strategy: 'fixed',
        priority: 100,
        conditions: [],
        provider: 'paypal',
        three_d_secure: 'automatic',
        status: 'active',
        created_at: NOW,
      };
      await put({ ...routingRuleKeys.item(testOwner(merchantId), id), type: 'routing_rule', ...rule });
      return () => listRoutingRules(testOwner(merchantId), { consistent: true });
    },
  },
  'a webhook endpoint without its sealed secret (its secret in clear)': {
    kind: 'webhook endpoint',
    path: 'secret_sealed',
    prepare: async () => {
      const [merchantId, id] = [newId('merchant'), newId('webhook')];
      const webhook = {
        id,
        merchant_id: merchantId,
        livemode: false,
        url: 'https://hooks.example.com/',
        events: ['*'],
        status: 'active',
        secret: 'whsec_x',
        created_at: NOW,
      };
      await put({ ...webhookKeys.item(testOwner(merchantId), id), type: 'webhook', ...webhook });
      return () => listWebhooks(testOwner(merchantId));
    },
  },
  'a settlement with a fractional amount': {
    kind: 'settlement',
    path: 'amount',
    prepare: async () => {
      const [merchantId, id] = [newId('merchant'), newId('settlement')];
      const settlement = {
        id,
        merchant_id: merchantId,
        livemode: false,
        amount: 10.5,
        currency: 'EUR',
        status: 'pending',
        arrival_date: '2026-01-17',
        transactions: 1,
        created_at: NOW,
        paid_at: null,
      };
      await put({ ...settlementKeys.item(id), type: 'settlement', ...settlement });
      return () => getSettlement(testOwner(merchantId), id);
    },
  },
  'a session whose expiry is not a number': {
    kind: 'session',
    path: 'expires_ms',
    prepare: async () => {
      const hash = randomUUID();
      await put({ ...sessionKeys.byTokenHash(hash), type: 'session', merchant_id: newId('merchant'), expires_ms: NOW });
      return () => getSession(hash);
    },
  },
  'an OTP request without its used flag': {
    kind: 'OTP request',
    path: 'used',
    prepare: async () => {
      const id = newId('otpRequest');
      await put({ ...otpKeys.request(id), type: 'otp_request', request_id: id, email: 'a@example.com', otp_hmac: 'h', attempts: 0, expires_ms: 1 });
      return () => getOtpRequest(id);
    },
  },
  'an idempotency record with a status of no record': {
    kind: 'idempotency record',
    path: 'status',
    prepare: async () => {
      const [scope, key] = [newId('merchant'), randomUUID()];
      const hash = '0'.repeat(64); // a hash of the kept form: only its status is wrong
      await put({ ...idempotencyKeys.record(scope, key), type: 'idempotency', request_hash: hash, status: 'done', locked_until: 0, first_at: 0 });
      return () => claimIdempotencyKey(scope, key, hash, Date.now(), 10_000, 60_000);
    },
  },
};

describe('records read from the table are parsed by their schemas at the store boundary', () => {
  it.each(Object.entries(cases))('refuses %s, naming the record kind and the failing path', async (_case, { kind, path, prepare }) => {
    // Prepare
    const read = await prepare();
    // Act
    const error = await failureOf(read);
    // Assess
    expect(error).toBeInstanceOf(StoredRecordError);
    expect(error).toMatchObject({ name: 'StoredRecordError', kind, path });
    expect((error as Error).message).toMatch(new RegExp(`^Stored ${kind}( \\S+)? does not match its schema: ${path.replace('.', '\\.')}: `));
  });

  it('reads the records of fields not yet written: an event before its first round, a period just claimed, a key hash never used', async () => {
    // Prepare
    const [merchantId, eventId, objectId, subscriptionId, hash] = [
      newId('merchant'),
      newId('event'),
      newId('payment'),
      newId('subscription'),
      randomUUID(),
    ];
    const stored = event(eventId, merchantId, objectId);
    await put({ ...stored, expires_at: 1 });
    const justClaimed = period(subscriptionId, '2026-02-15');
    await put({ ...subscriptionKeys.period(subscriptionId, '2026-02-15'), type: 'subscription_period', ...justClaimed });
    const keyId = newId('apiKey');
    for (const copy of hashCopies)
      await put({
        ...apiKeyKeys.byHash(hash, copy),
        type: 'api_key_hash',
        merchant_id: merchantId,
        key_id: keyId,
        mode: 'live',
        key_type: 'secret',
        status: 'active',
        last_used: null,
        last4: 'abcd',
        valid_until: null,
        allowed_ips: null,
      });
    // Act
    const [read, claimed, auth] = await Promise.all([
      getEvent({ event_id: eventId, object_id: objectId }),
      getPeriod(subscriptionId, '2026-02-15'),
      getApiKeyByHash(hash),
    ]);
    // Assess
    const { pk: _pk, sk: _sk, type: _itemType, event_type, data: _data, ...fields } = stored;
    expect(read).toEqual({
      id: eventId,
      ...fields,
      type: event_type,
      data: { object: { id: objectId, object: 'payment' } },
      attempts: 0,
      last_status_code: null,
    });
    expect(claimed).toEqual(justClaimed);
    expect(auth).toMatchObject({ merchant_id: merchantId, mode: 'live', status: 'active', last_used: null });
  });

  it('reads back an event as it was recorded, from the table and from a stream image, its payload stored deflated', async () => {
    // Prepare
    const merchantId = newId('merchant');
    const paymentId = newId('payment');
    const recorded = {
      id: newId('event'),
      type: 'payment.captured' as const,
      merchant_id: merchantId,
      livemode: false,
      created_at: NOW,
      data: {
        object: { id: paymentId, object: 'payment', amount: 2500, metadata: { order: 'ord_1' }, routing_decision: { reason: 'r'.repeat(400) } },
      },
    };
    const ref = { event_id: recorded.id, object_id: paymentId };
    // Act
    await db.send(new TransactWriteCommand({ TransactItems: [eventPut(recorded)] }));
    const read = await getEvent(ref);
    const stored = (await db.send(new GetCommand({ TableName: TABLE, Key: eventKeys.item(recorded.id, paymentId) }))).Item!;
    // what a Lambda stream record carries, unmarshalled: binary as base64
    const image = { ...stored, data: Buffer.from(stored.data as Uint8Array).toString('base64') };
    // Assess
    expect(read).toEqual({ ...recorded, attempts: 0, last_status_code: null });
    expect(stored.data).toBeInstanceOf(Uint8Array);
    expect(JSON.stringify(stored)).not.toContain('rrrr');
    expect(addedEvent(image)).toEqual({ ...ref, merchant_id: merchantId, livemode: false, type: recorded.type });
  });

  it('reads back valid payments, invoices and subscriptions as they were written, without table keys', async () => {
    // Prepare
    const [merchantId, paymentId, invoiceId, subscriptionId] = [newId('merchant'), newId('payment'), newId('invoice'), newId('subscription')];
    const written = {
      payment: { ...payment(paymentId, merchantId), last_operation: 'op_1' },
      invoice: invoice(invoiceId, merchantId),
      subscription: subscription(subscriptionId, merchantId),
    };
    await put({ ...paymentKeys.item(paymentId), type: 'payment', ...storedPayment(written.payment) });
    await put({ ...invoiceKeys.item(invoiceId), ...invoiceKeys.list(testOwner(merchantId), invoiceId), type: 'invoice', ...written.invoice });
    await put({ ...subscriptionKeys.item(subscriptionId), type: 'subscription', ...written.subscription });
    // Act
    const [readPayment, readInvoice, readSubscription] = await Promise.all([
      getStoredPayment(testOwner(merchantId), paymentId),
      getInvoiceById(invoiceId),
      loadSubscription(subscriptionId),
    ]);
    // Assess: a payment's fields not stored (`connector_id` is null) read as null
    expect(readPayment).toEqual({ ...written.payment, connector_id: null });
    expect(readInvoice).toEqual(written.invoice);
    expect(readSubscription).toEqual(written.subscription);
  });
});
