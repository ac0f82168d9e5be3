/**
 * What a human at Adyen reads in a PDF defense document the connector supplied: its lines of text (pdf-lib's content
 * streams, standard fonts: hex strings shown with `Tj`), mapped back to our evidence fields by their headings
 * (`Product description` for `product_description`; the text under a heading is joined with spaces).
 */
import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream } from 'pdf-lib';
import { DISPUTE_EVIDENCE_FIELDS } from '../../../../shared/providers/types.ts';

/** Standard fonts show WinAnsi (Windows-1252) codes. */
const winAnsi = new TextDecoder('windows-1252');
const HEADINGS = new Map(DISPUTE_EVIDENCE_FIELDS.map((field) => [field.charAt(0).toUpperCase() + field.slice(1).replaceAll('_', ' '), field]));

export async function pdfTextLines(content: Buffer): Promise<string[]> {
  const doc = await PDFDocument.load(content);
  const lines: string[] = [];
  for (const page of doc.getPages()) {
    const contents = page.node.Contents();
    const streams = contents instanceof PDFArray ? contents.asArray().map((ref) => doc.context.lookup(ref)) : [contents];
    for (const stream of streams) {
      if (!(stream instanceof PDFRawStream)) continue;
      const text = Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1');
      for (const [, hex] of text.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g)) lines.push(winAnsi.decode(Buffer.from(hex!, 'hex')));
    }
  }
  return lines;
}

/** The evidence a PDF shows, by our field names (lines before the first heading are its title). */
export async function evidenceInPdf(content: Buffer): Promise<Record<string, string>> {
  const evidence: Record<string, string> = {};
  let field: string | undefined;
  for (const line of await pdfTextLines(content)) {
    const heading = HEADINGS.get(line);
    if (heading) field = heading;
    else if (field) evidence[field] = evidence[field] ? `${evidence[field]} ${line}` : line;
  }
  return evidence;
}
