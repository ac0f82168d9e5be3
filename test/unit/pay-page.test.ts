import { describe, expect, it } from 'vitest';
import type { PayPage } from '../../shared/domain/payment-links.ts';
import { payPageAnswer } from '../../shared/hosted/pay-page.ts';

const pageWith = (brand: string, last4: string): PayPage => ({
  invoice: {
    status: 'open',
    number: 'INV-0001',
    total: 2500,
    currency: 'USD',
    merchant_email: 'shop@example.com',
    due_date: '2027-01-31',
  } as unknown as PayPage['invoice'],
  branding: { business_name: 'Acme Tees', brand_color: null, support_email: null },
  savedCard: { brand, last4, exp_month: 12, exp_year: 2034 },
  formId: '1764662400000.abc',
});

describe('the payment link page', () => {
  it.each([
    ['visa', '4242', 'Visa'],
    ['jcb', '0505', 'JCB'],
    ['diners', '0004', 'Diners Club'],
    ['unionpay', '0005', 'UnionPay'],
  ])('names a saved %s card by its brand as the card fields do', (brand, last4, label) => {
    // Act
    const html = Buffer.from(payPageAnswer(pageWith(brand, last4), '/hosted/pay/inv_1').bytes).toString('utf8');
    // Assess
    expect(html).toContain(`with ${label} •••• ${last4}</button>`);
  });
});
