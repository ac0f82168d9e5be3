/**
 * The merchant's text evidence as the one document Adyen takes for it: the card schemes accept PDF, JPEG and TIFF
 * only, so the fields are written into a small A4 PDF (pdf-lib, loaded on first use: only a defense needs it). Each
 * field is a heading (its name in words, e.g. "Product description") followed by its text, wrapped at spaces.
 */
import { DISPUTE_EVIDENCE_FIELDS, type DisputeEvidence } from '../types.ts';

const PAGE: [number, number] = [595.28, 841.89];
const MARGIN = 50;
const SIZE = 10;
const LINE_GAP = 14;

/** `product_description` → `Product description`: how a field is headed in the document. */
export const evidenceHeading = (field: string) => field.charAt(0).toUpperCase() + field.slice(1).replaceAll('_', ' ');

/** The evidence as a PDF, base64 (Adyen's `DefenseDocument.content`). */
export async function evidencePdf(disputeReference: string, evidence: DisputeEvidence): Promise<string> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  doc.setTitle(`Defense material for dispute ${disputeReference}`);
  const [regular, bold] = await Promise.all([doc.embedFont(StandardFonts.Helvetica), doc.embedFont(StandardFonts.HelveticaBold)]);
  // Standard fonts write WinAnsi only: other characters are shown as `?` instead of failing the render.
  const supported = new Set(regular.getCharacterSet());
  const encodable = (text: string) => Array.from(text, (c) => (supported.has(c.codePointAt(0)!) ? c : '?')).join('');
  const width = PAGE[0] - 2 * MARGIN;
  let page = doc.addPage(PAGE);
  let y = PAGE[1] - MARGIN;
  const line = (text: string, font = regular) => {
    if (y < MARGIN) {
      page = doc.addPage(PAGE);
      y = PAGE[1] - MARGIN;
    }
    page.drawText(text, { x: MARGIN, y, size: SIZE, font });
    y -= LINE_GAP;
  };
  const wrapped = (text: string) => {
    let current = '';
    for (const word of text.split(' ')) {
      const candidate = current ? `${current} ${word}` : word;
      if (current && regular.widthOfTextAtSize(candidate, SIZE) > width) {
        line(current);
        current = word;
      } else current = candidate;
    }
    if (current) line(current);
  };

  line(encodable(`Defense material for dispute ${disputeReference}`), bold);
  for (const field of DISPUTE_EVIDENCE_FIELDS) {
    const text = evidence[field]?.trim();
    if (!text) continue;
    y -= LINE_GAP / 2;
    line(evidenceHeading(field), bold);
    for (const paragraph of text.split(/\r?\n/)) wrapped(encodable(paragraph.replace(/\s+/g, ' ').trim()));
  }
  return Buffer.from(await doc.save()).toString('base64');
}
