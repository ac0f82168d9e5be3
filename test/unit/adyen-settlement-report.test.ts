import { describe, expect, it } from 'vitest';
import { payoutsOfReport } from '../../shared/providers/adyen/settlement-report.ts';

/** A settlement details report as a Customer Area set to CET exports it, with a column this service does not read. */
const HEADER =
  'Company Account,Merchant Account,Psp Reference,Merchant Reference,Payment Method,Creation Date,TimeZone,Type,Modification Reference,' +
  'Gross Currency,Gross Debit (GC),Gross Credit (GC),Exchange Rate,Net Currency,Net Debit (NC),Net Credit (NC),Commission (NC),' +
  'Markup (NC),Scheme Fees (NC),Interchange (NC),Payment Method Variant,Modification Merchant Reference,Batch Number,Reserved4';
const report = (...rows: string[]) => [HEADER, ...rows].join('\r\n');

describe('an Adyen settlement details report', () => {
  it('reads charges, refunds and fees with Interchange++ fees summed, times in the report’s zone, and the payout', () => {
    // Prepare
    const csv = report(
      'Co,ECOM,PSP1,"order, 1",visa,2026-11-23 10:00:00,CET,Settled,CAP1,EUR,,100.00,1,EUR,,97.50,,0.50,0.80,1.20,visa,,3,x',
      'Co,ECOM,PSP1,"order, 1",visa,2026-11-23 11:30:00,CET,Refunded,REF1,EUR,20.00,,1,EUR,20.00,,,,,,visa,ref_01abc,3,x',
      'Co,ECOM,,,,2026-11-23 12:00:00,CET,Fee,FEE1,,,,,EUR,1.00,,,,,,,,3,x',
      'Co,ECOM,,,,2026-11-24 01:00:00,CET,MerchantPayout,PO1,,,,,EUR,76.50,,,,,,,,3,x',
    );
    // Act
    const [payout, ...others] = payoutsOfReport(csv, 3);
    // Assess
    expect(others).toEqual([]);
    expect(payout).toMatchObject({ reference: 'batch_3', currency: 'EUR', amount: 7_650, status: 'paid', created: '2026-11-24T00:00:00.000Z' });
    expect(payout!.lines).toEqual([
      {
        type: 'charge',
        source: 'PSP1',
        amount: 10_000,
        fee: 250,
        net: 9_750,
        currency: 'EUR',
        created: '2026-11-23T09:00:00.000Z',
        paymentReference: 'PSP1',
      },
      {
        type: 'refund',
        source: 'REF1',
        amount: -2_000,
        fee: 0,
        net: -2_000,
        currency: 'EUR',
        created: '2026-11-23T10:30:00.000Z',
        paymentReference: 'PSP1',
        refundId: 'ref_01abc',
      },
      { type: 'fee', source: 'FEE1', amount: 0, fee: 100, net: -100, currency: 'EUR', created: '2026-11-23T11:00:00.000Z' },
    ]);
  });

  it('makes one payout per net currency, and a batch that paid nothing out pending', () => {
    // Prepare
    const csv = report(
      'Co,ECOM,PSP1,o1,visa,2026-11-23 10:00:00,UTC,Settled,CAP1,EUR,,10.00,1,EUR,,9.59,0.41,,,,visa,,4,',
      'Co,ECOM,PSP2,o2,visa,2026-11-23 10:00:00,UTC,Settled,CAP2,USD,,20.00,1,USD,,19.29,0.71,,,,visa,,4,',
      'Co,ECOM,,,,2026-11-24 00:00:00,UTC,MerchantPayout,PO1,,,,,USD,19.29,,,,,,,,4,',
    );
    // Act
    const payouts = payoutsOfReport(csv, 4);
    // Assess
    expect(payouts.map((p) => [p.reference, p.currency, p.amount, p.status])).toEqual([
      ['batch_4_EUR', 'EUR', 959, 'pending'],
      ['batch_4_USD', 'USD', 1_929, 'paid'],
    ]);
  });
});
