import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/model/errors.ts';
import { formatMoney, formatTaxRate, invoiceTotals, taxRateUnits } from '../../shared/domain/tax.ts';
import { CalendarDate, CreateInvoiceBody } from '../../shared/schemas/invoices.ts';

const item = (amount: number, quantity = 1) => ({ name: 'Item', amount, quantity });

describe('invoice totals', () => {
  // Every expected value below is worked out by hand in the comment beside it.
  it.each([
    // 1999 × 3 = 5997; 5997 × 7.25 % = 434.7825 → 435
    ['7.25 % on 1999 × 3', [item(1999, 3)], 7.25, { subtotal: 5997, tax: 435, total: 6432 }],
    // 5997 + 5000 = 10997; 10997 × 7.25 % = 797.2825 → 797
    ['7.25 % on two lines', [item(1999, 3), item(5000)], 7.25, { subtotal: 10997, tax: 797, total: 11794 }],
    // 333 × 7 = 2331; 2331 × 7.25 % = 168.9975 → 169
    ['7.25 % on 333 × 7', [item(333, 7)], 7.25, { subtotal: 2331, tax: 169, total: 2500 }],
    // 0 % never adds anything
    ['0 %', [item(1999, 3)], 0, { subtotal: 5997, tax: 0, total: 5997 }],
    // 100 % doubles the subtotal
    ['100 %', [item(1999, 3)], 100, { subtotal: 5997, tax: 5997, total: 11994 }],
    // 10000 × 8.875 % = 887.5 exactly → half up → 888
    ['8.8750 % landing on .5', [item(10_000)], 8.875, { subtotal: 10_000, tax: 888, total: 10_888 }],
    // 1999 × 8.875 % = 177.41125 → 177
    ['8.875 % on 1999', [item(1999)], 8.875, { subtotal: 1999, tax: 177, total: 2176 }],
    // 10000 × 1.005 % = 100.5 → 101 (a float computes 100.49999999999999 and would round down)
    ['1.005 %, a float trap', [item(10_000)], 1.005, { subtotal: 10_000, tax: 101, total: 10_101 }],
    // 5500 × 0.7 % = 38.5 → 39 (a float computes 38.49999999999999)
    ['0.7 %, another float trap', [item(5500)], 0.7, { subtotal: 5500, tax: 39, total: 5539 }],
    // 1 × 50 % = 0.5 → 1; 1 × 49.9999 % = 0.499999 → 0
    ['50 % of one minor unit', [item(1)], 50, { subtotal: 1, tax: 1, total: 2 }],
    ['49.9999 % of one minor unit', [item(1)], 49.9999, { subtotal: 1, tax: 0, total: 1 }],
    // 500000 × 0.0001 % = 0.5 → 1; 499999 × 0.0001 % = 0.499999 → 0
    ['the smallest rate at .5', [item(500_000)], 0.0001, { subtotal: 500_000, tax: 1, total: 500_001 }],
    ['the smallest rate below .5', [item(499_999)], 0.0001, { subtotal: 499_999, tax: 0, total: 499_999 }],
    // free items count for nothing
    ['a free item', [item(0, 5), item(1000)], 20, { subtotal: 1000, tax: 200, total: 1200 }],
    // 100 × 99,999,999 × 10,000 = 99,999,999,000,000; × 99.9999 % = 99,999,899,000,001 exactly
    [
      'the largest invoice',
      Array.from({ length: 100 }, () => item(99_999_999, 10_000)),
      99.9999,
      { subtotal: 99_999_999_000_000, tax: 99_999_899_000_001, total: 199_999_898_000_001 },
    ],
  ])('%s', (_case, items, rate, expected) => {
    expect(invoiceTotals(items, rate)).toEqual(expected);
  });

  it.each([
    ['a negative rate', -0.01],
    ['a rate over 100', 100.0001],
    ['5 decimals', 7.12345],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a string', '7.25'],
  ])('refuses %s with a 400 naming tax_rate', (_case, rate) => {
    expect(taxRateUnits(rate)).toBeUndefined();
    const attempt = () => invoiceTotals([item(100)], rate as number);
    expect(attempt).toThrow(AppError);
    try {
      attempt();
    } catch (e) {
      expect(e).toMatchObject({ status: 400, code: 'parameter_invalid', details: { param: 'tax_rate' } });
    }
  });

  it('reads rates exactly as ten-thousandths of a percent', () => {
    expect(taxRateUnits(7.25)).toBe(72_500n);
    expect(taxRateUnits(8.875)).toBe(88_750n);
    expect(taxRateUnits(0.0001)).toBe(1n);
    expect(taxRateUnits(100)).toBe(1_000_000n);
    expect(taxRateUnits(0)).toBe(0n);
  });
});

describe('money on invoices', () => {
  it.each([
    [123_456, 'USD', 'USD 1,234.56'],
    [5, 'usd', 'USD 0.05'],
    [0, 'EUR', 'EUR 0.00'],
    [99_999_999, 'EUR', 'EUR 999,999.99'],
    [1235, 'JPY', 'JPY 1,235'],
    [1_234_567, 'KRW', 'KRW 1,234,567'],
    [1, 'KWD', 'KWD 0.001'],
    [1_234_500, 'BHD', 'BHD 1,234.500'],
    [199_999_898_000_001, 'USD', 'USD 1,999,998,980,000.01'],
  ])('%i %s reads %s', (amount, currency, expected) => {
    expect(formatMoney(amount, currency)).toBe(expected);
  });

  it('writes the rate as given', () => {
    expect(formatTaxRate(7.25)).toBe('7.25%');
    expect(formatTaxRate(8.875)).toBe('8.875%');
    expect(formatTaxRate(0)).toBe('0%');
  });
});

describe('invoice body', () => {
  const body = { customer_id: 'cus_x', items: [item(1999, 3)], currency: 'usd', due_date: '2026-12-31', tax_rate: 7.25 };
  const paramOf = (input: unknown) => {
    const result = v.safeParse(CreateInvoiceBody, input, { abortEarly: true });
    return result.success ? 'ok' : v.getDotPath(result.issues[0]);
  };

  it('accepts a good body, uppercases the currency and defaults the rate to 0', () => {
    expect(v.parse(CreateInvoiceBody, body).currency).toBe('USD');
    expect(v.parse(CreateInvoiceBody, { ...body, tax_rate: undefined }).tax_rate).toBe(0);
  });

  it.each([
    ['no items', { ...body, items: [] }, 'items'],
    ['101 items', { ...body, items: Array.from({ length: 101 }, () => item(1)) }, 'items'],
    ['an empty name', { ...body, items: [{ ...item(1), name: ' ' }] }, 'items.0.name'],
    ['a 201-char name', { ...body, items: [{ ...item(1), name: 'x'.repeat(201) }] }, 'items.0.name'],
    ['a negative amount', { ...body, items: [item(-1)] }, 'items.0.amount'],
    ['a fractional amount', { ...body, items: [item(10.5)] }, 'items.0.amount'],
    ['an amount over 99,999,999', { ...body, items: [item(100_000_000)] }, 'items.0.amount'],
    ['quantity 0', { ...body, items: [item(1, 0)] }, 'items.0.quantity'],
    ['quantity 10,001', { ...body, items: [item(1, 10_001)] }, 'items.0.quantity'],
    ['a fractional quantity', { ...body, items: [item(1, 1.5)] }, 'items.0.quantity'],
    ['5 rate decimals', { ...body, tax_rate: 7.12345 }, 'tax_rate'],
    ['a rate over 100', { ...body, tax_rate: 101 }, 'tax_rate'],
    ['Feb 30', { ...body, due_date: '2026-02-30' }, 'due_date'],
    ['a date-time', { ...body, due_date: '2026-12-31T00:00:00Z' }, 'due_date'],
    ['an unknown currency', { ...body, currency: 'XYZ' }, 'currency'],
  ])('refuses %s, naming the field', (_case, input, param) => {
    expect(paramOf(input)).toBe(param);
  });

  it('knows leap days', () => {
    expect(v.is(CalendarDate, '2028-02-29')).toBe(true);
    expect(v.is(CalendarDate, '2027-02-29')).toBe(false);
    expect(v.is(CalendarDate, '2026-13-01')).toBe(false);
  });
});
