import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { CreateCustomerBody } from '../../shared/schemas/customers.ts';
import { ListCustomersQuery } from '../../shared/schemas/customers.ts';
import { VerifyOtpBody } from '../../shared/schemas/auth.ts';
import { newId } from '../../shared/model/ids.ts';

const ok = (schema: v.GenericSchema, input: unknown) => v.safeParse(schema, input).success;

describe('customer body', () => {
  it('stores e-mail lowercase and trimmed', () => {
    const out = v.parse(CreateCustomerBody, { email: '  Jane.Doe@Example.COM ' });
    expect(out.email).toBe('jane.doe@example.com');
  });

  it.each([
    ['missing e-mail', {}],
    ['e-mail without domain', { email: 'jane@' }],
    ['e-mail as a number', { email: 42 }],
    ['phone without +', { email: 'a@b.co', phone: '14155550123' }],
    ['phone too short', { email: 'a@b.co', phone: '+1234567' }],
    ['phone too long', { email: 'a@b.co', phone: '+1234567890123456' }],
    ['phone with letters', { email: 'a@b.co', phone: '+1415555O123' }],
    ['empty name', { email: 'a@b.co', name: '   ' }],
    ['51 metadata keys', { email: 'a@b.co', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }],
    ['41-char metadata key', { email: 'a@b.co', metadata: { ['k'.repeat(41)]: 'v' } }],
    ['501-char metadata value', { email: 'a@b.co', metadata: { k: 'v'.repeat(501) } }],
    ['non-string metadata value', { email: 'a@b.co', metadata: { k: 1 } }],
    ['metadata as an array', { email: 'a@b.co', metadata: ['x'] }],
  ])('rejects %s', (_case, body) => {
    expect(ok(CreateCustomerBody, body)).toBe(false);
  });

  it('accepts the limits themselves', () => {
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${'k'.repeat(38)}${String(i).padStart(2, '0')}`, 'v'.repeat(500)]));
    expect(ok(CreateCustomerBody, { email: 'a@b.co', phone: '+12345678', metadata })).toBe(true);
    expect(ok(CreateCustomerBody, { email: 'a@b.co', phone: '+123456789012345' })).toBe(true);
  });
});

describe('list query', () => {
  it('defaults limit to 10 and reads it as a number', () => {
    expect(v.parse(ListCustomersQuery, {}).limit).toBe(10);
    expect(v.parse(ListCustomersQuery, { limit: '100' }).limit).toBe(100);
  });

  it.each([{ limit: '0' }, { limit: '101' }, { limit: 'ten' }, { limit: '1.5' }, { limit: '-1' }, { starting_after: 'pay_01jd' }])(
    'rejects %o',
    (query) => expect(ok(ListCustomersQuery, query)).toBe(false),
  );

  it('takes one cursor, not both', () => {
    const id = newId('customer');
    expect(ok(ListCustomersQuery, { starting_after: id })).toBe(true);
    expect(ok(ListCustomersQuery, { starting_after: id, ending_before: id })).toBe(false);
  });
});

describe('verify-otp body', () => {
  it('wants a req_ id and exactly six digits', () => {
    const request_id = newId('otpRequest');
    expect(ok(VerifyOtpBody, { request_id, otp: '012345' })).toBe(true);
    expect(ok(VerifyOtpBody, { request_id, otp: '12345' })).toBe(false);
    expect(ok(VerifyOtpBody, { request_id, otp: 123456 })).toBe(false);
    expect(ok(VerifyOtpBody, { request_id: 'req_123', otp: '123456' })).toBe(false);
  });
});
