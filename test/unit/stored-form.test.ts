import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { pack, storedEntries, storedFields, unpack, unpackFields } from '../../shared/store/stored-form.ts';

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

  it('packs each history entry appended', () => {
    // Act
    const first = storedEntries('payment', { history: [{ ...entry, change: 'payment.succeeded' }] });
    const appended = storedEntries('payment', { history: [entry] });
    const read = unpackFields('payment', { history: [...first.history!, ...appended.history!] });
    // Assess
    expect(appended.history![0]).toBeInstanceOf(Uint8Array);
    expect(read.history).toEqual([{ ...entry, change: 'payment.succeeded' }, entry]);
  });

  it('reads a value that does not unpack, or is not packed, as saying so', () => {
    expect(unpackFields('payment', { routing_decision: pack(decision), card: Uint8Array.of(1, 0xff), metadata: {} })).toEqual({
      routing_decision: decision,
      card: 'a packed value that does not unpack',
      metadata: 'a packed value that does not unpack',
    });
  });

  it('is the fields themselves for entities stored as they are', () => {
    const fields = { status: 'draft', paid_at: null, items: [{ name: 'Plan' }] };
    expect(storedFields('invoice', fields)).toEqual({ set: fields, unset: [] });
    expect(storedEntries('invoice', { history: [entry] })).toEqual({ history: [entry] });
  });
});
