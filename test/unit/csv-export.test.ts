import { describe, expect, it } from 'vitest';
import { csvCell, csvDocument } from '../../shared/domain/csv-export.ts';

/* CSV exports (shared/domain/csv-export.ts): a text cell a spreadsheet would read as a formula is neutralized. */

describe('csvCell', () => {
  it.each([
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ['+1+1', "'+1+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\tcmd', "'\tcmd"],
    ['\r=1', `"'\r=1"`],
  ])('neutralizes the text %j with a leading quote', (text, cell) => {
    expect(csvCell(text)).toBe(cell);
  });

  it('writes numbers (negative amounts too), plain text and null as they are', () => {
    expect([csvCell(-1500), csvCell(2000), csvCell(0), csvCell('ch_3Px'), csvCell('a=b'), csvCell(null)]).toEqual([
      '-1500',
      '2000',
      '0',
      'ch_3Px',
      'a=b',
      '',
    ]);
  });

  it('quotes a cell with a comma, a quote or a line break (RFC 4180)', () => {
    expect([csvCell('a,b'), csvCell('say "hi"'), csvCell('two\nlines')]).toEqual(['"a,b"', '"say ""hi"""', '"two\nlines"']);
  });
});

describe('csvDocument', () => {
  it('ends every row with CRLF', () => {
    expect(csvDocument(['a', 'b'], [[1, '=x']])).toBe("a,b\r\n1,'=x\r\n");
  });
});
