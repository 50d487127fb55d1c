/** Caps on one cell and one record of a bulk input, and the nesting bound of JSON svc reads. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../../src/json-depth.js';
import { CsvParser } from '../../../src/bulk/input/csv-parse.js';
import { MAX_CELL_CHARS, MAX_RECORD_CHARS } from '../../../src/bulk/input/input-limits.js';
import { JsonArraySplitter } from '../../../src/bulk/input/json-stream.js';
import { readRows } from '../../../src/bulk/input/readers.js';
import { tempDir } from '../../helpers/run-svc.js';

/** Feeds `text` in 64 KiB chunks, the way the readers do. */
function feedCsv(text: string): string[][] {
  const p = new CsvParser();
  const out: string[][] = [];
  for (let i = 0; i < text.length; i += 65_536) out.push(...p.push(text.slice(i, i + 65_536)));
  out.push(...p.end());
  return out;
}

describe('CSV caps', () => {
  it('a cell at the cap is read; one character more is refused, quoted or not', () => {
    expect(feedCsv(`a\n${'x'.repeat(MAX_CELL_CHARS)}\n`)[1]![0]).toHaveLength(MAX_CELL_CHARS);
    expect(() => feedCsv(`a\n${'x'.repeat(MAX_CELL_CHARS + 1)}\n`)).toThrow(
      /a cell is longer than 1,000,000 characters, the cap on one cell$/,
    );
    expect(() => feedCsv(`a\n"${'x'.repeat(MAX_CELL_CHARS + 1)}"\n`)).toThrow(/cap on one cell$/);
    // A quote never closed swallows the lines after it: the message suggests it.
    expect(() => feedCsv(`a\n"open\n${'line\n'.repeat(MAX_CELL_CHARS / 4)}`)).toThrow(/cap on one cell \(is a quote left open\?\)$/);
  });

  it('a record of many cells under the cap each is refused past the record cap', () => {
    const cell = 'y'.repeat(MAX_CELL_CHARS);
    const cells = Math.floor(MAX_RECORD_CHARS / MAX_CELL_CHARS) + 1;
    expect(() => feedCsv(`${Array(cells).fill(cell).join(',')}\n`)).toThrow(/a record is longer than 10,000,000 characters/);
    // The count starts again with each record.
    const half = Array(Math.floor(cells / 2))
      .fill(cell)
      .join(',');
    expect(feedCsv(`${half}\n${half}\n`)).toHaveLength(2);
  });
});

describe('a record of delimiters only', () => {
  it('counts its delimiters against the record cap: a line of commas past the cap is refused, however empty its cells', () => {
    // Before, empty cells counted 0 characters: 80 MB of commas became 80 million cells (2.9 GB).
    expect(() => feedCsv(`a,b\n${','.repeat(MAX_RECORD_CHARS + 1)}\n`)).toThrow(
      /a record is longer than 10,000,000 characters, the cap on one record/,
    );
    // Under the cap it is a record (a blank one for the readers).
    expect(feedCsv(`a,b\n${','.repeat(1000)}\n`)[1]).toHaveLength(1001);
  });

  it('readRows names the row and stops the file (a usage error) instead of holding millions of cells', async () => {
    const file = path.join(tempDir('svc-limits-'), 'commas.csv');
    fs.writeFileSync(file, `firstName;lastName\nAda;Lovelace\n${';'.repeat(MAX_RECORD_CHARS + 10)}\n`);
    const rows: unknown[] = [];
    await expect(
      (async () => {
        for await (const r of readRows(file, { format: 'csv' })) rows.push(r.value);
      })(),
    ).rejects.toThrow(/the cap on one record \(in row 2\)$/);
    expect(rows).toEqual([{ firstName: 'Ada', lastName: 'Lovelace' }]);
  });
});

describe('record caps of NDJSON and JSON arrays', () => {
  it('an element of a JSON array past the cap is fatal', () => {
    const s = new JsonArraySplitter();
    const big = `"${'z'.repeat(MAX_RECORD_CHARS)}"`;
    const out = [...s.push('[{"a":1},{"b":'), ...s.push(big)];
    expect(out[0]).toEqual({ text: '{"a":1}' });
    expect(out[1]).toEqual({ fatal: 'a record is longer than 10,000,000 characters, the cap on one record' });
  });

  it('an NDJSON line past the cap stops the file with a usage error naming the row before it', async () => {
    const file = path.join(tempDir('svc-limits-'), 'long.ndjson');
    fs.writeFileSync(file, `{"firstName":"A"}\n{"firstName":"${'w'.repeat(MAX_RECORD_CHARS)}"}\n`);
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const r of readRows(file, { format: 'ndjson' })) seen.push(r.value);
      })(),
    ).rejects.toThrow(/--input .*long\.ndjson: the line after row 1 is longer than 10,000,000 characters/);
    expect(seen).toEqual([{ firstName: 'A' }]);
  });
});

describe('nestedDeeperThan', () => {
  it('counts objects and arrays, not scalars, and never overflows', () => {
    expect(nestedDeeperThan(1)).toBe(false);
    expect(nestedDeeperThan({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(nestedDeeperThan({ a: [1, { b: [] }] }, 3)).toBe(true);
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) deep = [deep];
    expect(nestedDeeperThan(deep)).toBe(false);
    expect(nestedDeeperThan([deep])).toBe(true);
    expect(nestedDeeperThan(JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)))).toBe(true);
  });
});
