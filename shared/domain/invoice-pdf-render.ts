/**
 * An invoice as a PDF (pdf-lib, standard fonts, rendered on request): issuer, customer, number, dates, line items,
 * subtotal, tax with its rate, total in the currency's format, and a PAID mark once paid. Long item lists flow onto
 * further pages; every page carries the invoice number and page count.
 */
import { PageSizes, PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from 'pdf-lib';
import type { InvoiceRecord } from '../store/invoices.ts';
import { formatMoney, formatTaxRate } from './tax.ts';

const [PAGE_WIDTH, PAGE_HEIGHT] = PageSizes.A4;
const MARGIN = 50;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const BOTTOM = MARGIN + 30; // room for the footer
const INK = rgb(0.13, 0.13, 0.13);
const MUTED = rgb(0.42, 0.42, 0.42);
const RULE = rgb(0.8, 0.8, 0.8);
const HEADER_FILL = rgb(0.94, 0.94, 0.94);
const PAID_GREEN = rgb(0.1, 0.55, 0.25);

/** Table columns: description (wraps), quantity, unit price, line total; numbers right-aligned. */
const COLUMNS = {
  name: { x: MARGIN, width: 210 },
  quantity: { right: MARGIN + 270 },
  unit: { right: MARGIN + 375 },
  total: { right: MARGIN + CONTENT_WIDTH },
};
const ROW_SIZE = 9.5;
const LINE_GAP = 13;

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

/** Standard fonts write WinAnsi only: anything else (emoji, CJK, …) is shown as `?` instead of failing the render. */
function encoder(font: PDFFont): (text: string) => string {
  const supported = new Set(font.getCharacterSet());
  return (text) => Array.from(text.replace(/[\r\n\t]+/g, ' '), (ch) => (supported.has(ch.codePointAt(0)!) ? ch : '?')).join('');
}

/** Splits text into lines no wider than `width` (words kept whole unless a single word is wider than a line). */
function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const fits = (s: string) => font.widthOfTextAtSize(s, size) <= width;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    if (fits(candidate)) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    let rest = word;
    while (!fits(rest)) {
      let cut = rest.length - 1;
      while (cut > 1 && !fits(rest.slice(0, cut))) cut--;
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    line = rest;
  }
  if (line) lines.push(line);
  return lines.length ? lines : [''];
}

const dateOf = (iso: string): string => iso.slice(0, 10);

export async function renderInvoicePdf(invoice: InvoiceRecord): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`Invoice ${invoice.number}`);
  doc.setSubject(`Invoice ${invoice.number} (${invoice.id})`);
  doc.setProducer('Payment orchestration API');
  doc.setCreationDate(new Date(invoice.created_at));
  const fonts: Fonts = { regular: await doc.embedFont(StandardFonts.Helvetica), bold: await doc.embedFont(StandardFonts.HelveticaBold) };
  const clean = encoder(fonts.regular);
  const money = (amount: number) => formatMoney(amount, invoice.currency);

  let page = doc.addPage(PageSizes.A4);
  let y = PAGE_HEIGHT - MARGIN;

  const text = (p: PDFPage, s: string, x: number, atY: number, size = 10, font = fonts.regular, color = INK) =>
    p.drawText(clean(s), { x, y: atY, size, font, color });
  const right = (p: PDFPage, s: string, rightX: number, atY: number, size = 10, font = fonts.regular, color = INK) => {
    const value = clean(s);
    p.drawText(value, { x: rightX - font.widthOfTextAtSize(value, size), y: atY, size, font, color });
  };
  const rule = (p: PDFPage, atY: number) =>
    p.drawLine({ start: { x: MARGIN, y: atY }, end: { x: MARGIN + CONTENT_WIDTH, y: atY }, thickness: 0.6, color: RULE });

  // Heading: title and number, then the PAID mark when paid.
  text(page, 'INVOICE', MARGIN, y - 22, 24, fonts.bold);
  right(page, invoice.number, MARGIN + CONTENT_WIDTH, y - 14, 14, fonts.bold);
  right(page, invoice.id, MARGIN + CONTENT_WIDTH, y - 28, 8, fonts.regular, MUTED);
  if (invoice.status === 'paid') {
    const stamp = 'PAID';
    const size = 40;
    const width = fonts.bold.widthOfTextAtSize(stamp, size);
    const x = MARGIN + CONTENT_WIDTH / 2 - width / 2;
    const stampY = y - 40;
    page.drawRectangle({ x: x - 10, y: stampY - 8, width: width + 20, height: size + 6, borderColor: PAID_GREEN, borderWidth: 3 });
    page.drawText(stamp, { x, y: stampY, size, font: fonts.bold, color: PAID_GREEN });
  }
  y -= 70;

  // Parties.
  const half = MARGIN + CONTENT_WIDTH / 2;
  text(page, 'FROM', MARGIN, y, 8, fonts.bold, MUTED);
  text(page, 'BILL TO', half, y, 8, fonts.bold, MUTED);
  y -= 15;
  const from = [invoice.merchant_email ?? '', `Merchant ${invoice.merchant_id}`].filter(Boolean);
  const to = [invoice.customer_name ?? '', invoice.customer_email].filter(Boolean);
  for (let i = 0; i < Math.max(from.length, to.length); i++) {
    if (from[i]) text(page, from[i]!, MARGIN, y, 10, i === 0 ? fonts.bold : fonts.regular, i === 0 ? INK : MUTED);
    if (to[i]) text(page, to[i]!, half, y, 10, i === 0 ? fonts.bold : fonts.regular);
    y -= 14;
  }
  y -= 12;

  // Dates and status.
  const details: Array<[string, string]> = [
    ['Invoice number', invoice.number],
    ['Issue date', dateOf(invoice.created_at)],
    ['Due date', invoice.due_date],
    ['Status', invoice.status.toUpperCase()],
  ];
  if (invoice.paid_at) details.push(['Paid on', dateOf(invoice.paid_at)]);
  for (const [label, value] of details) {
    text(page, label, MARGIN, y, 10, fonts.regular, MUTED);
    text(page, value, MARGIN + 110, y, 10, fonts.bold);
    y -= 14;
  }
  y -= 14;

  // Line items.
  const tableHeader = (p: PDFPage, atY: number) => {
    p.drawRectangle({ x: MARGIN, y: atY - 6, width: CONTENT_WIDTH, height: 20, color: HEADER_FILL });
    text(p, 'Description', COLUMNS.name.x + 4, atY, 9, fonts.bold);
    right(p, 'Qty', COLUMNS.quantity.right, atY, 9, fonts.bold);
    right(p, 'Unit price', COLUMNS.unit.right, atY, 9, fonts.bold);
    right(p, 'Amount', COLUMNS.total.right - 4, atY, 9, fonts.bold);
    return atY - 22;
  };
  const newPage = () => {
    page = doc.addPage(PageSizes.A4);
    return tableHeader(page, PAGE_HEIGHT - MARGIN - 10);
  };
  y = tableHeader(page, y);
  for (const item of invoice.items) {
    const lines = wrap(clean(item.name), fonts.regular, ROW_SIZE, COLUMNS.name.width - 4);
    const height = lines.length * LINE_GAP + 4;
    if (y - height < BOTTOM) y = newPage();
    lines.forEach((line, i) => text(page, line, COLUMNS.name.x + 4, y - i * LINE_GAP, ROW_SIZE));
    right(page, item.quantity.toLocaleString('en-US'), COLUMNS.quantity.right, y, ROW_SIZE);
    right(page, money(item.amount), COLUMNS.unit.right, y, ROW_SIZE);
    right(page, money(item.amount * item.quantity), COLUMNS.total.right - 4, y, ROW_SIZE);
    y -= height;
    rule(page, y + 8);
  }

  // Totals.
  const totals: Array<[string, string, PDFFont, number]> = [
    ['Subtotal', money(invoice.subtotal), fonts.regular, 10],
    [`Tax (${formatTaxRate(invoice.tax_rate)})`, money(invoice.tax), fonts.regular, 10],
    ['Total', money(invoice.total), fonts.bold, 12],
  ];
  if (y - totals.length * 18 - 20 < BOTTOM) {
    page = doc.addPage(PageSizes.A4);
    y = PAGE_HEIGHT - MARGIN - 10;
  }
  y -= 10;
  for (const [label, value, font, size] of totals) {
    text(page, label, COLUMNS.unit.right - 120, y, size, font, font === fonts.bold ? INK : MUTED);
    right(page, value, COLUMNS.total.right - 4, y, size, font);
    y -= size + 8;
  }
  if (invoice.status !== 'paid') {
    y -= 10;
    text(page, `Please pay ${money(invoice.total)} by ${invoice.due_date}.`, MARGIN, y, 10);
  }

  // Footer on every page.
  const pages = doc.getPages();
  pages.forEach((p, i) => {
    p.drawLine({ start: { x: MARGIN, y: MARGIN + 12 }, end: { x: MARGIN + CONTENT_WIDTH, y: MARGIN + 12 }, thickness: 0.6, color: RULE });
    text(p, `Invoice ${invoice.number}`, MARGIN, MARGIN, 8, fonts.regular, MUTED);
    right(p, `Page ${i + 1} of ${pages.length}`, MARGIN + CONTENT_WIDTH, MARGIN, 8, fonts.regular, MUTED);
  });

  return doc.save();
}
