/**
 * CSV output read by a spreadsheet whose list separator is `;` (Excel in most of continental
 * Europe), which splits our cells at every `;`: no piece may start a formula, and every value —
 * a list item holding `;` or `\` included — comes back unchanged through the bulk reader.
 */
import { describe, expect, it } from 'vitest';
import { CsvParser, splitList, unneutralise } from '../../../src/bulk/input/csv-parse.js';
import { csvCell, csvLine } from '../../../src/output/csv.js';

/** The cells a `;`-separated spreadsheet makes of one of our lines (quotes ignored: the worst case). */
const semicolonCells = (line: string) =>
  line
    .replace(/\n$/, '')
    .split(/[;,]/)
    .map((c) => c.replace(/^"/, ''));
const FORMULA_START = /^[=+\-@\t\r]/;

/** What the bulk reader makes of one cell of a list column. */
function readBack(cell: string): string[] {
  const [rec] = new CsvParser().push(`${cell}\n`);
  return splitList(unneutralise(rec![0]!));
}

const HOSTILE = ["=cmd|' /C calc'!A0", '+1+1', '-2+3', '@SUM(A1)', '\tx', "'quoted", "''=x", '=HYPERLINK("http://x")'];

describe('lists in CSV cells', () => {
  it.each(HOSTILE)('no item %j starts a cell in a ;-separated spreadsheet, first or not', (bad) => {
    for (const items of [
      ['vip', bad],
      [bad, 'vip'],
      ['a', bad, 'b', bad],
    ]) {
      const line = csvLine([items, 'x']);
      expect(
        semicolonCells(line).filter((c) => FORMULA_START.test(c)),
        line,
      ).toEqual([]);
    }
  });

  it('text with ; in a plain cell is neutralised after each ; too', () => {
    const line = csvLine(["note;=cmd|' /C calc'!A0;-5;ok"]);
    expect(semicolonCells(line).filter((c) => FORMULA_START.test(c) && c !== '-5')).toEqual([]);
    expect(unneutralise(new CsvParser().push(line)[0]![0]!)).toBe("note;=cmd|' /C calc'!A0;-5;ok");
  });

  it.each([
    [['vip', "=cmd|' /C calc'!A0"]],
    [['a;b', 'c']],
    [['semi;=colon', "';'", 'x;']],
    [['back\\slash', 'both\\;', '\\\\', 'end\\']],
    [["'quoted", "''=x", '-5', '+33.5', '@a']],
    [['ümlaut, with comma', 'line\nbreak', '"quoted"']],
  ])('round trip of %j: export then import gives every item back unchanged', (items) => {
    expect(readBack(csvCell(items))).toEqual(items);
  });

  it('plain items are written as before: joined by ;, no escapes', () => {
    expect(csvCell(['a', 'b', 'c'])).toBe('a;b;c');
    expect(csvCell(['=x', 'b'])).toBe("'=x;b");
  });
});
