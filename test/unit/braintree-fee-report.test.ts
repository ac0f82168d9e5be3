import { describe, expect, it } from 'vitest';
import { feesOfReport } from '../../shared/providers/braintree/fee-report.ts';

/** The shared columns of Braintree's payment-level fee report, then an interchange-plus report's own. */
const SHARED = 'Merchant Account ID,Transaction ID,Original Transaction ID,Transaction Type,Settlement Currency,Settlement Amount,Order ID';
const IC_PLUS = `${SHARED},Est. Interchange Total Amount,Braintree Total Amount,Est. Total Fee Amount`;

describe('a Braintree payment-level fee report', () => {
  it('reads each row’s total fee by transaction id, rounded half up to the currency’s minor units', () => {
    // Prepare
    const csv = [IC_PLUS, 'acct_usd,tx1,,sale,USD,100.00,"order, 1",1.8245,0.50,2.3245', 'acct_usd,tx2,,sale,USD,10.00,o2,0.20,0.05,0.2449'].join(
      '\r\n',
    );
    // Act
    const fees = feesOfReport(csv);
    // Assess
    expect([...fees]).toEqual([
      ['tx1', 232],
      ['tx2', 24],
    ]);
  });

  it('reads a flat-rate report’s Total Fee Amount, a refund’s credit as a negative fee, and zero-decimal currencies', () => {
    // Prepare
    const csv = [`${SHARED},Total Fee Amount`, 'acct_usd,rf1,tx1,credit,USD,20.00,o1,-0.10', 'acct_jpy,tx3,,sale,JPY,1000,o3,73'].join('\n');
    // Act
    const fees = feesOfReport(csv);
    // Assess
    expect(fees.get('rf1')).toBe(-10);
    expect(fees.get('tx3')).toBe(73);
  });

  it('refuses a file that is not a fee report', () => {
    // Prepare + Act + Assess
    expect(() => feesOfReport('Transaction ID,Amount\r\ntx1,1.00')).toThrow(/no Transaction ID, Settlement Currency and fee columns/);
  });
});
