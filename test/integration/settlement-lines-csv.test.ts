import { describe, expect, it } from 'vitest';
import { newId } from '../../shared/model/ids.ts';
import { putPayoutSettlement } from '../../shared/store/settlements.ts';
import { newMerchant } from '../support/merchant.ts';
import { recon } from '../support/reconciliation.ts';

/** `GET /api/settlements/:id/lines`: a provider's text that a spreadsheet would run as a formula is neutralized. */
describe('a settlement’s lines as CSV, opened in a spreadsheet', () => {
  it('prefixes a text cell beginning with = + - @ with a quote; amounts (negative too) stay numbers', async () => {
    // Prepare: a payout whose provider ids are formulas (a provider's reference is text anyone upstream may shape)
    const { apiKey, merchantId } = await newMerchant();
    const id = newId('settlement');
    const lines = [
      { type: 'charge' as const, amount: 2000, fee: 88, net: 1912, source: '=HYPERLINK("https://evil.example","ok")' },
      { type: 'refund' as const, amount: -1500, fee: 0, net: -1500, source: '@SUM(1+1)' },
      { type: 'adjustment' as const, amount: -30, fee: 0, net: -30, source: '+cmd|calc' },
    ].map((line) => ({ ...line, payment_id: null, refund_id: null, dispute_id: null }));
    await putPayoutSettlement(
      {
        id,
        merchant_id: merchantId,
        livemode: false,
        amount: 382,
        currency: 'USD',
        status: 'paid',
        arrival_date: '2026-11-30',
        transactions: 1,
        created_at: new Date().toISOString(),
        paid_at: new Date().toISOString(),
        payout: { connector_id: 'con_01jq7k3v9qf2m7x4b6n5c0t1wz', provider_payout_id: '-po_1', gross: 470, fees: 88, lines },
      },
      [],
      [],
    );
    // Act
    const res = await recon.lines(apiKey, id);
    // Assess
    expect(res.status).toBe(200);
    expect(res.rawBody.trimEnd().split('\r\n').slice(1)).toEqual([
      `${id},'-po_1,charge,"'=HYPERLINK(""https://evil.example"",""ok"")",2000,88,1912,USD,,,`,
      `${id},'-po_1,refund,'@SUM(1+1),-1500,0,-1500,USD,,,`,
      `${id},'-po_1,adjustment,'+cmd|calc,-30,0,-30,USD,,,`,
    ]);
  });
});
