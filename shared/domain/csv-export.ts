/**
 * CSV documents a merchant downloads and opens in a spreadsheet (RFC 4180, CRLF rows). A text cell that begins with
 * `=`, `+`, `-`, `@`, a tab or a carriage return is neutralized with a leading `'`, so a spreadsheet never reads it as
 * a formula (a provider's reference or a name such as `=HYPERLINK(…)` stays text). Numbers are written as numbers:
 * `-1500` in an amount column is a number we wrote, not text anyone sent, and stays usable in sums.
 */
export type CsvCell = string | number | null;

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: empty for null; a text cell neutralized (above); quoted when it holds a comma, quote or line break. */
export function csvCell(value: CsvCell): string {
  if (value === null) return '';
  const text = typeof value === 'number' ? String(value) : FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The document: a header row, then the rows, each line ended by CRLF. */
export const csvDocument = (header: readonly string[], rows: readonly (readonly CsvCell[])[]): string =>
  [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
