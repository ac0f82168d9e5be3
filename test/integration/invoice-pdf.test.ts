import { describe, expect, it } from 'vitest';
import { extractText, getDocumentProxy } from 'unpdf';
import { handler as create } from '../../functions/invoices/create.ts';
import { handler as get } from '../../functions/invoices/get.ts';
import { handler as markPaid } from '../../functions/invoices/mark-paid.ts';
import { handler as pdf } from '../../functions/invoices/pdf.ts';
import { normalizeProxyResult } from '../../infra/local/lambda.ts';
import { clock } from '../../shared/model/clock.ts';
import { newId } from '../../shared/model/ids.ts';
import { PDF_LINK_TTL_SECONDS, signedPdfUrl } from '../../shared/domain/signed-links.ts';
import { apiEvent, fakeContext, invokeHttp } from '../support/lambda.ts';
import { bearer, newMerchant } from '../support/merchant.ts';

const invoiceBody = (customerId: string, overrides: Record<string, unknown> = {}) => ({
  customer_id: customerId,
  items: [
    { name: 'Consulting (hours)', amount: 1999, quantity: 3 },
    { name: 'Setup fee', amount: 123_456, quantity: 1 },
  ],
  currency: 'usd',
  due_date: '2026-12-31',
  tax_rate: 7.25,
  ...overrides,
});

async function createInvoice(overrides: Record<string, unknown> = {}) {
  const merchant = await newMerchant();
  const res = await invokeHttp(
    create,
    apiEvent({ method: 'POST', path: '/api/invoices', headers: bearer(merchant.apiKey), body: invoiceBody(merchant.customerId, overrides) }),
  );
  expect(res.status).toBe(200);
  return { ...merchant, invoice: res.body };
}

/** Opens a link the way a customer's browser would: no API key, just the URL. */
async function open(url: string) {
  const { pathname, search } = new URL(url);
  const result = normalizeProxyResult(await pdf(apiEvent({ method: 'GET', path: pathname + search }), fakeContext()));
  const header = (name: string) =>
    Object.entries(result.headers)
      .find(([k]) => k.toLowerCase() === name)?.[1]
      .join(', ');
  return { status: result.statusCode, contentType: header('content-type'), bytes: result.body };
}

async function textOf(bytes: Buffer): Promise<string> {
  const document = await getDocumentProxy(new Uint8Array(bytes));
  const { text } = await extractText(document, { mergePages: true });
  return text;
}

async function expectNotFound(url: string) {
  const res = await open(url);
  expect(res.status).toBe(404);
  expect(res.contentType).toBe('application/json');
  expect(JSON.parse(res.bytes.toString('utf8')).error).toMatchObject({
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: expect.stringMatching(/^Resource not found: no invoice \S+$/),
  });
}

describe('the invoice PDF', () => {
  it('renders a real PDF at pdf_url with number, parties, lines, tax and total', async () => {
    // Prepare: 1999 × 3 + 123456 = 129453; 7.25 % = 9385.3425 → 9385; total 138838
    const { invoice, merchantId } = await createInvoice();
    // Act
    const res = await open(invoice.pdf_url);
    // Assess
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/pdf');
    expect(res.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = await textOf(res.bytes);
    for (const expected of [
      'INV-000001',
      merchantId,
      'Jane Doe',
      'jane@example.com',
      'Consulting (hours)',
      'Setup fee',
      'USD 19.99',
      'USD 59.97',
      'USD 1,234.56',
      'USD 1,294.53',
      'Tax (7.25%)',
      'USD 93.85',
      'USD 1,388.38',
      '2026-12-31',
      invoice.created_at.slice(0, 10),
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('PAID');
  });

  it('shows PAID once the invoice is paid, at a new link and the old one alike', async () => {
    const { invoice, apiKey } = await createInvoice();
    await invokeHttp(markPaid, apiEvent({ method: 'PUT', path: `/api/invoices/${invoice.id}/mark-paid`, headers: bearer(apiKey) }));
    const read = await invokeHttp(get, apiEvent({ method: 'GET', path: `/api/invoices/${invoice.id}`, headers: bearer(apiKey) }));
    for (const url of [read.body.pdf_url, invoice.pdf_url]) {
      const res = await open(url);
      expect(res.status).toBe(200);
      expect(await textOf(res.bytes)).toContain('PAID');
    }
  });

  it('writes amounts with the currency’s exponent (JPY has none)', async () => {
    const { invoice } = await createInvoice({ currency: 'jpy', items: [{ name: 'Matcha', amount: 1150, quantity: 1 }], tax_rate: 7.3913 });
    // 1150 × 7.3913 % = 84.99995 → 85; total 1235
    const text = await textOf((await open(invoice.pdf_url)).bytes);
    expect(text).toContain('JPY 1,150');
    expect(text).toContain('JPY 85');
    expect(text).toContain('JPY 1,235');
  });

  it('flows 100 long lines onto further pages and survives characters the standard fonts lack', async () => {
    const items = Array.from({ length: 100 }, (_, i) => ({
      name: `Line ${i + 1} ${'with a rather long description '.repeat(5)}🙂 請求書`,
      amount: 100,
      quantity: 1,
    }));
    const { invoice } = await createInvoice({ items, tax_rate: 0 });
    const res = await open(invoice.pdf_url);
    expect(res.status).toBe(200);
    const text = await textOf(res.bytes);
    expect(text).toContain('Line 100');
    expect(text).toMatch(/Page 2 of \d+/);
    expect(text).toContain('USD 100.00');
  });

  it('answers 404 to a tampered signature, a changed id, a missing signature and a malformed link', async () => {
    const { invoice } = await createInvoice();
    const other = (await createInvoice()).invoice;
    const url = new URL(invoice.pdf_url);
    const signature = url.searchParams.get('signature')!;
    const tampered = new URL(url);
    tampered.searchParams.set('signature', `${signature[0] === 'a' ? 'b' : 'a'}${signature.slice(1)}`);
    const longer = new URL(url);
    longer.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const unsigned = new URL(url);
    unsigned.searchParams.delete('signature');
    const changedId = invoice.pdf_url.replace(invoice.id, other.id);

    for (const bad of [tampered.href, longer.href, unsigned.href, changedId, invoice.pdf_url.replace(invoice.id, 'inv_nope')])
      await expectNotFound(bad);
    expect((await open(invoice.pdf_url)).status).toBe(200);
  });

  it('answers 404 once the link has expired', async () => {
    const { invoice } = await createInvoice();
    const realNow = clock.now;
    clock.now = () => realNow() + (PDF_LINK_TTL_SECONDS + 1) * 1000;
    try {
      await expectNotFound(invoice.pdf_url);
    } finally {
      clock.now = realNow;
    }
    expect((await open(invoice.pdf_url)).status).toBe(200);
  });

  it('answers 404 to a correctly signed link of an invoice that does not exist', async () => {
    await expectNotFound(await signedPdfUrl('http://localhost:3000', newId('invoice')));
  });
});
