import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { EVENT_DATA_VERSION, pack, storedEntries, storedFields, unpack, unpackFields } from '../../shared/store/stored-form.ts';

const decision = {
  strategy: 'smart',
  reason:
    'Smart routing chose adyen: highest score adyen 77.2 (approval 93.1% over 58 recent attempts, 212 ms, fee 3.44%); then stripe ' +
    '76.9 (approval 91.7% over 61 recent attempts, 188 ms, fee 4.12%), braintree 71.3 (approval 88.0% over 12 recent attempts, 340 ms, fee 4.36%).',
  alternatives_considered: ['stripe', 'braintree'],
  latency_ms: 41,
};
const entry = { at: '2026-11-25T03:02:02.189Z', change: 'payment.captured', source: 'api', reference: 'ch_3Qz8m2Lk0aBcDeFg' };

describe('packed values', () => {
  it('unpack to the value packed', () => {
    for (const value of [decision, entry, { order_id: 'ord_1' }, [], 'text', 0]) expect(unpack(pack(value))).toEqual(value);
  });

  it('take a routing decision to a quarter of its JSON, under half of what plain deflate takes (the dictionary of its words)', () => {
    const json = JSON.stringify(decision);
    expect(pack(decision).length).toBeLessThan(deflateRawSync(json).length / 2);
    expect(pack(decision).length).toBeLessThan(json.length / 3);
  });

  it("take a payment's event to under a third of its JSON, under half of what plain deflate takes (the words of the API's views)", () => {
    const data = {
      object: {
        id: 'pay_01kmq7x3p2w8d5c0n4r9t6y1ha',
        object: 'payment',
        status: 'captured',
        amount: 12900,
        currency: 'EUR',
        amount_captured: 12900,
        amount_refunded: 0,
        provider: 'adyen',
        connector_id: 'con_01kmq6b2x9v4h7p3e8s5w0z2ma',
        routing_decision: decision,
        risk_score: 12,
        decline_code: null,
        attempts: [
          {
            id: 'att_01kmq7x3qa5f1g8h2j4k6m9n0p',
            status: 'authorized',
            provider: 'adyen',
            connector_id: null,
            decline_code: null,
            latency_ms: 212,
            created_at: '2026-11-25T03:02:01.977Z',
          },
        ],
        payment_method: { type: 'card', card: { brand: 'mastercard', last4: '4444', exp_month: 3, exp_year: 2029 } },
        customer_id: 'cus_01kmq5r8t2y6u0i4o8p2a6s0dj',
        customer: { email: 'ana@example.org', name: 'Ana Ruiz' },
        description: 'Order #10234',
        metadata: { order_id: 'ord_8812734' },
        livemode: true,
        created_at: '2026-11-25T03:02:01.902Z',
        sequence: 1795553921902000,
      },
    };
    const json = JSON.stringify(data);
    const packed = pack(data, EVENT_DATA_VERSION);
    expect(unpack(packed)).toEqual(data);
    expect(packed.length).toBeLessThan(deflateRawSync(json).length / 2);
    expect(packed.length).toBeLessThan(json.length / 3);
  });

  it('of an unknown version are refused by name, and no value is packed with one', () => {
    expect(() => unpack(Uint8Array.of(9, 1, 2))).toThrow('packed value of unknown version 9');
    expect(() => pack(entry, 9)).toThrow('no dictionary of version 9');
  });

  it('written with each version unpack to what was packed (a dictionary never changes once values are written with it)', () => {
    // bytes written by the version 1 of 9d76f11, and by version 2
    const written = [
      [entry, 'AYPXcUZmuoaGukamIQbGVgZGVgZGeoYWllHYaj54mU+oVDcOrLLINfLJNkh0SnZJdUtXqgUA'],
      [{ object: { id: 'pay_01', object: 'payment', status: 'captured', amount: 2500 } }, 'AiMvcyIV7rC8aWRqYFBbCwA='],
    ] as const;
    for (const [value, base64] of written) expect(unpack(Buffer.from(base64, 'base64'))).toEqual(value);
  });
});

describe("a payment's stored form", () => {
  it('packs its routing decision, attempts, card and metadata, and leaves out its null fields', () => {
    // Act
    const { set, unset } = storedFields('payment', {
      status: 'succeeded',
      routing_decision: decision,
      metadata: {},
      decline_code: null,
      amount: 2500,
    });
    // Assess
    expect(set.routing_decision).toBeInstanceOf(Uint8Array);
    expect(set.metadata).toBeInstanceOf(Uint8Array);
    expect(set).toMatchObject({ status: 'succeeded', amount: 2500 });
    expect(unset).toEqual(['decline_code']);
    expect(unpackFields('payment', set)).toEqual({ status: 'succeeded', routing_decision: decision, metadata: {}, amount: 2500 });
  });

  it('packs each history entry appended, so a list written before keeps its entries as they are', () => {
    // Act
    const appended = storedEntries('payment', { history: [entry] });
    const read = unpackFields('payment', { history: [{ ...entry, change: 'payment.succeeded' }, ...appended.history!] });
    // Assess
    expect(appended.history![0]).toBeInstanceOf(Uint8Array);
    expect(read.history).toEqual([{ ...entry, change: 'payment.succeeded' }, entry]);
  });

  it('reads fields written before they were packed as they are, and a value that does not unpack as saying so', () => {
    expect(unpackFields('payment', { routing_decision: decision, card: Uint8Array.of(1, 0xff) })).toEqual({
      routing_decision: decision,
      card: 'a packed value that does not unpack',
    });
  });

  it('is the fields themselves for entities stored as they are', () => {
    const fields = { status: 'draft', paid_at: null, items: [{ name: 'Plan' }] };
    expect(storedFields('invoice', fields)).toEqual({ set: fields, unset: [] });
    expect(storedEntries('invoice', { history: [entry] })).toEqual({ history: [entry] });
  });
});
