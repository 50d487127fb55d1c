/** The streaming readers of bulk inputs: CSV, NDJSON, JSON array, in chunks of any size. */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvParser, unneutralise } from '../../../src/bulk/input/csv-parse.js';
import { JsonArraySplitter } from '../../../src/bulk/input/json-stream.js';
import { detectFormat, readRows, type RawRow } from '../../../src/bulk/input/readers.js';
import { csvLine } from '../../../src/output/csv.js';
import { tempDir } from '../../helpers/run-svc.js';
import { propertyRuns } from '../../helpers/property-runs.js';

function parseCsv(text: string, chunk: number): string[][] {
  const p = new CsvParser();
  const out: string[][] = [];
  for (let i = 0; i < text.length; i += chunk) out.push(...p.push(text.slice(i, i + chunk)));
  out.push(...p.end());
  return out;
}

async function rows(file: string, format: 'csv' | 'ndjson' | 'json', headerless?: (r: string[]) => string | undefined): Promise<RawRow[]> {
  const out: RawRow[] = [];
  for await (const r of readRows(file, { format, headerless })) out.push(r);
  return out;
}

function write(name: string, text: string): string {
  const file = path.join(tempDir('svc-bulk-'), name);
  fs.writeFileSync(file, text);
  return file;
}

describe('CsvParser', () => {
  it('reads quotes, doubled quotes, commas and newlines in cells, CRLF, a BOM, and skips blank lines', () => {
    const text = '\uFEFFid,note\r\n1,"a, ""b""\nc"\r\n\r\n2,plain\n3,\n';
    for (const chunk of [1, 2, 3, 7, 1000]) {
      expect(parseCsv(text, chunk)).toEqual([
        ['id', 'note'],
        ['1', 'a, "b"\nc'],
        ['2', 'plain'],
        ['3', ''],
      ]);
    }
  });

  it('keeps the last record without a final newline and rejects an unclosed quote', () => {
    expect(parseCsv('a,b\n1,2', 3)).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(() => parseCsv('a\n"open', 4)).toThrow(/quoted field is not closed/);
  });

  it("round-trips values that start with ' (the neutralising prefix is reversible)", () => {
    for (const v of ["'=x", "''=x", "'", "''", "'-5", "'abc", "'\tx", '=x', '-5', "'+1"]) {
      const [[back]] = parseCsv(csvLine([v]), 3).map((r) => r.map(unneutralise)) as [[string]];
      expect(back, JSON.stringify(v)).toBe(v);
    }
    // What other tools write keeps its quote unless it is followed by a formula character or '.
    expect(unneutralise("'abc")).toBe("'abc");
  });

  it('reads back what our CSV output writes, for any cells and chunk sizes', () => {
    // Values starting with ' (and a formula character) are drawn often: they used to lose the quote.
    const cell = fc.oneof(
      fc.string(),
      fc.string().map((s) => `'${s}`),
      fc.constantFrom("'=x", "''", "'", "'@a", "''+1"),
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 9 }),
        (records, chunk) => {
          const width = records[0]!.length;
          const table = records.map((r) => [...r, ...Array(width).fill('x')].slice(0, width));
          const text = table.map((r) => csvLine(r)).join('');
          const back = parseCsv(text, chunk).map((r) => r.map(unneutralise));
          // A record of one empty cell is a blank line; our tables have ≥ 2 cells per record.
          expect(back).toEqual(table.map((r) => r.map((c) => c)));
        },
      ),
      { numRuns: propertyRuns(200) },
    );
  });
});

describe('JsonArraySplitter', () => {
  it('splits elements containing brackets, commas and escaped quotes in strings, across chunks', () => {
    const text = ' [ {"a":"x,]}\\"["}, [1,[2]] ,3, "s" ] ';
    for (const chunk of [1, 2, 5, 100]) {
      const s = new JsonArraySplitter();
      const pieces = [];
      for (let i = 0; i < text.length; i += chunk) pieces.push(...s.push(text.slice(i, i + chunk)));
      pieces.push(...s.end());
      expect(pieces).toEqual([{ text: '{"a":"x,]}\\"["}' }, { text: '[1,[2]]' }, { text: '3' }, { text: '"s"' }]);
    }
  });

  it('takes a lone object as one element, and reports what is not an array', () => {
    const one = new JsonArraySplitter();
    expect([...one.push('{"id": 1, "x": {"y": 2}}\n'), ...one.end()]).toEqual([{ text: '{"id": 1, "x": {"y": 2}}' }]);
    const bad = new JsonArraySplitter();
    expect(bad.push('id,name')).toEqual([{ fatal: 'expected a JSON array of records, found "i"' }]);
    const cut = new JsonArraySplitter();
    cut.push('[{"a":1},{"b"');
    expect(cut.end()).toEqual([{ fatal: 'the JSON document ends before its closing bracket' }]);
    const empty = new JsonArraySplitter();
    expect([...empty.push('[ ]'), ...empty.end()]).toEqual([]);
  });
});

describe('readRows', () => {
  it('numbers CSV rows from the first data row and flags rows of the wrong width', async () => {
    const file = write('p.csv', 'id,firstName\n1,Ada\n2\n3,Grace\n');
    expect(await rows(file, 'csv')).toEqual([
      { row: 1, csv: true, value: { id: '1', firstName: 'Ada' }, cells: ['1', 'Ada'], header: ['id', 'firstName'] },
      { row: 2, csv: true, error: 'has 1 cells, the header has 2', cells: ['2'], header: ['id', 'firstName'] },
      { row: 3, csv: true, value: { id: '3', firstName: 'Grace' }, cells: ['3', 'Grace'], header: ['id', 'firstName'] },
    ]);
  });

  it('accepts a header-less single column when asked, and refuses a header with a duplicate name or no names', async () => {
    const ids = write('ids.csv', '10\n11\n');
    const asId = (r: string[]) => (r.length === 1 && /^\d+$/.test(r[0]!) ? 'id' : undefined);
    expect((await rows(ids, 'csv', asId)).map((r) => r.value)).toEqual([{ id: '10' }, { id: '11' }]);
    await expect(rows(write('d.csv', 'id,id\n1,2\n'), 'csv')).rejects.toThrow(/column "id" appears twice/);
    await expect(rows(write('b.csv', ' , \n1,2\n'), 'csv')).rejects.toThrow(/the header row has no column names/);
  });

  it("reads a column without a name as nothing, and refuses a row with a value there (Excel's trailing comma)", async () => {
    const file = write('trail.csv', 'First Name,E-mail,\r\nMia,mia@corp.test,\r\nRon,ron@corp.test, x \r\n');
    const header = ['First Name', 'E-mail', ''];
    expect(await rows(file, 'csv')).toEqual([
      { row: 1, csv: true, value: { 'First Name': 'Mia', 'E-mail': 'mia@corp.test' }, cells: ['Mia', 'mia@corp.test', ''], header },
      {
        row: 2,
        csv: true,
        error: 'has a value in column 3, which has no name in the header row (name it, or clear it)',
        cells: ['Ron', 'ron@corp.test', ' x '],
        header,
      },
    ]);
  });

  it('reads NDJSON line by line (blank lines skipped, bad lines are bad rows) and JSON arrays', async () => {
    const nd = write('p.ndjson', '{"id":1}\n\n{"id":\n{"id":3}');
    expect(await rows(nd, 'ndjson')).toEqual([
      { row: 1, value: { id: 1 } },
      { row: 2, error: expect.stringMatching(/^not valid JSON/) },
      { row: 3, value: { id: 3 } },
    ]);
    const js = write('p.json', '[{"id":1},{"id":2}]');
    expect((await rows(js, 'json')).map((r) => r.value)).toEqual([{ id: 1 }, { id: 2 }]);
    await expect(rows(write('x.json', '{"a":1} junk'), 'json')).rejects.toThrow(/unexpected text after the end/);
  });

  it('detects the format from the extension, else from the first character', async () => {
    expect(await detectFormat(write('a.csv', '[1]'))).toBe('csv');
    expect(await detectFormat(write('a.jsonl', ''))).toBe('ndjson');
    expect(await detectFormat(write('a.txt', '  [1,2]'))).toBe('json');
    expect(await detectFormat(write('b.txt', '{"id":1}\n'))).toBe('ndjson');
    expect(await detectFormat(write('c.txt', 'id\n1\n'))).toBe('csv');
    await expect(detectFormat('/nonexistent/file.txt')).rejects.toThrow(
      /^--input \/nonexistent\/file.txt: no such file \(looked for \/nonexistent\/file.txt\); check the path/,
    );
  });

  it('streams: a 100,000-row CSV is read without holding it (heap stays small)', async () => {
    const dir = tempDir('svc-bulk-big-');
    const file = path.join(dir, 'big.csv');
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, 'firstName,lastName,emails,title\n');
    for (let i = 0; i < 100_000; i += 1000) {
      let chunk = '';
      for (let j = i; j < i + 1000; j++) chunk += `First${j},Last${j},p${j}@example.test;alt${j}@example.test,"Head of ""Things"", ${j}"\n`;
      fs.writeSync(fd, chunk);
    }
    fs.closeSync(fd);
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    let n = 0;
    let peak = 0;
    // Rows with an error are collected and checked once: an expect() per row cost more CPU than
    // reading the file (vitest updates its assertion state on each call).
    const bad: RawRow[] = [];
    for await (const r of readRows(file, { format: 'csv' })) {
      n++;
      if (n % 10_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed - before);
      if (r.error !== undefined) bad.push(r);
    }
    expect(bad).toEqual([]);
    expect(n).toBe(100_000);
    expect(fs.statSync(file).size).toBeGreaterThan(8_000_000);
    // The file is ~9 MB; holding it as rows would cost several times that.
    expect(peak).toBeLessThan(40_000_000);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
