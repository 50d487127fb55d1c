/**
 * Input files as spreadsheets write them: delimiters (sniffed or given), encodings (BOMs,
 * Windows-1252 fallback), the failed-rows file, and the circuit breaker of the worker pool.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CsvParser, sniffDelimiter } from '../../../src/bulk/input/csv-parse.js';
import { errorClass, runPool, type Outcome, type WorkItem } from '../../../src/bulk/run/engine.js';
import { FailedRows } from '../../../src/bulk/run/failed-rows.js';
import { decodedChunks, detectEncoding } from '../../../src/bulk/input/input-encoding.js';
import { Progress } from '../../../src/bulk/run/progress.js';
import { describeDialect, inspectInput, parseDelimiter, readRows, type RawRow } from '../../../src/bulk/input/readers.js';
import type { ReportEntry } from '../../../src/bulk/run/report.js';
import { UsageError } from '../../../src/errors.js';
import { tempDir } from '../../helpers/run-svc.js';

function write(name: string, data: string | Buffer): string {
  const file = path.join(tempDir('svc-dialect-'), name);
  fs.writeFileSync(file, data);
  return file;
}

async function rows(file: string, delimiter?: string): Promise<RawRow[]> {
  const dialect = await inspectInput(file, 'csv', delimiter);
  const out: RawRow[] = [];
  for await (const r of readRows(file, { format: 'csv', dialect })) out.push(r);
  return out;
}

describe('delimiters', () => {
  it('sniffs , ; and tab from the header line, ignoring quoted ones and later lines', () => {
    expect(sniffDelimiter('a,b,c\n1;2;3;4;5')).toBe(',');
    expect(sniffDelimiter('\uFEFFfirstName;lastName;"a,b,c,d"\r\nx')).toBe(';');
    expect(sniffDelimiter('a\tb\tc')).toBe('\t');
    expect(sniffDelimiter('email\nx@y')).toBe(',');
    expect(sniffDelimiter('')).toBe(',');
  });

  it('parses with any one-character delimiter, in chunks of any size', () => {
    const text = 'a;b\r\n"x;y";"line\nbreak"\r\n1,5;2\r\n';
    for (const chunk of [1, 2, 5, 100]) {
      const p = new CsvParser(';');
      const out: string[][] = [];
      for (let i = 0; i < text.length; i += chunk) out.push(...p.push(text.slice(i, i + chunk)));
      out.push(...p.end());
      expect(out).toEqual([
        ['a', 'b'],
        ['x;y', 'line\nbreak'],
        ['1,5', '2'],
      ]);
    }
    expect(() => new CsvParser('"')).toThrow();
  });

  it('--delimiter takes one character, tab by name', () => {
    expect(parseDelimiter('tab')).toBe('\t');
    expect(parseDelimiter('\\t')).toBe('\t');
    expect(parseDelimiter('|')).toBe('|');
    expect(() => parseDelimiter(';;')).toThrow(UsageError);
    expect(() => parseDelimiter('"')).toThrow(/expected one character/);
  });

  it('a row wider than a one-column header hints at the delimiter', async () => {
    const r = await rows(write('w.csv', 'a;b\n1,2;3\n'), ';');
    expect(r[0]!.value).toEqual({ a: '1,2', b: '3' });
    const wrong = await rows(write('x.csv', 'name\nA,B\n'));
    expect(wrong[0]!.error).toMatch(/has 2 cells, the header has 1 \(is the delimiter "," right\? --delimiter sets it\)/);
  });
});

describe('encodings', () => {
  const text = 'firstName\tcity\r\nZoë\t東京\r\n';

  it('UTF-8 with and without a BOM, UTF-16 LE and BE by their BOM', async () => {
    const le = Buffer.from(text, 'utf16le');
    const be = Buffer.from(le);
    be.swap16();
    const cases: [Buffer, string, boolean][] = [
      [Buffer.from(text), 'utf-8', false],
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), 'utf-8', true],
      [Buffer.concat([Buffer.from([0xff, 0xfe]), le]), 'utf-16le', true],
      [Buffer.concat([Buffer.from([0xfe, 0xff]), be]), 'utf-16be', true],
    ];
    for (const [bytes, encoding, bom] of cases) {
      const file = write('e.csv', bytes);
      expect(await detectEncoding(file)).toEqual({ encoding, bom });
      const r = await rows(file);
      expect(r.map((x) => x.value)).toEqual([{ firstName: 'Zoë', city: '東京' }]);
    }
  });

  it('UTF-16 LE and BE without a BOM, by their zero bytes; `;`-separated with CJK and accents', async () => {
    const semi = 'firstName;lastName;city\r\nZoë;Müller;東京\r\nJosé;Ñúñez;大阪\r\n';
    const le = Buffer.from(semi, 'utf16le');
    const be = Buffer.from(le);
    be.swap16();
    for (const [bytes, encoding] of [
      [le, 'utf-16le'],
      [be, 'utf-16be'],
    ] as const) {
      const file = write('nobom.csv', bytes);
      expect(await detectEncoding(file)).toEqual({ encoding, bom: false });
      expect(describeDialect(await inspectInput(file, 'csv'), 'csv')).toBe(
        `read as ${encoding === 'utf-16le' ? 'UTF-16 LE' : 'UTF-16 BE'} (no byte order mark; told by its zero bytes), ';'-separated (from the header line; --delimiter to change)`,
      );
      expect((await rows(file)).map((x) => x.value)).toEqual([
        { firstName: 'Zoë', lastName: 'Müller', city: '東京' },
        { firstName: 'José', lastName: 'Ñúñez', city: '大阪' },
      ]);
    }
    // A stray NUL in an 8-bit file is not UTF-16.
    const stray = write('stray.csv', Buffer.concat([Buffer.from('name\nAda\n'), Buffer.from([0]), Buffer.from('\nBob\n')]));
    expect((await detectEncoding(stray)).encoding).toBe('utf-8');
  });

  it('Windows-1252 when the bytes are not valid UTF-8, even far into the file', async () => {
    const ascii = 'name\n' + 'plain\n'.repeat(30_000);
    // Windows-1252: ë is 0xEB, the en dash 0x96, curly quotes 0x93 and 0x94.
    const tail = Buffer.from([0x5a, 0x6f, 0xeb, 0x20, 0x96, 0x20, 0x93, 0x71, 0x94, 0x0a, 0x96, 0x0a]);
    const file = write('w.csv', Buffer.concat([Buffer.from(ascii), tail]));
    expect((await detectEncoding(file)).encoding).toBe('windows-1252');
    const r = await rows(file);
    expect(r).toHaveLength(30_002);
    expect(r.at(-2)!.value).toEqual({ name: 'Zoë – “q”' });
    expect(r.at(-1)!.value).toEqual({ name: '–' });
    expect(describeDialect(await inspectInput(file, 'csv'), 'csv')).toBe('read as Windows-1252 (not valid UTF-8)');
  });

  it('one Windows-1252 byte in a UTF-8 file: stopped, naming the line, never read as Windows-1252', async () => {
    // Row 3 was pasted from a Windows-1252 file: 0xEB is its ë. Every other ë is UTF-8.
    const head = Buffer.from('firstName\nZoë\nZoë\n');
    const stray = Buffer.from([0x4c, 0x6f, 0x75, 0x69, 0x73, 0xeb, 0x0a]);
    const tail = Buffer.from('Zoë\n'.repeat(20_000));
    const file = write('mixed.csv', Buffer.concat([head, stray, tail]));
    const found = await detectEncoding(file);
    expect(found.encoding).not.toBe('windows-1252');
    expect(found.mixed).toMatchObject({ badLine: 4, badByte: 0xeb, bad: 1, goodLine: 2 });
    const err = await inspectInput(file, 'csv').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(
      `--input ${file}: line 4 holds a byte that is not UTF-8 (0xEB, as Windows-1252 writes é, ë, –), while the file is UTF-8 elsewhere (from line 2); read either way, one of them would be garbled; nothing was sent`,
    );
    expect((err as UsageError).hints.join('\n')).toMatch(/--encoding utf-8 .* or --encoding windows-1252/);
    // --encoding decides: UTF-8 keeps every Zoë (the stray byte becomes U+FFFD), 1252 the stray ë.
    const utf8 = await inspectInput(file, 'csv', undefined, 'utf-8');
    const asUtf8: unknown[] = [];
    for await (const r of readRows(file, { format: 'csv', dialect: utf8 })) asUtf8.push(r.value);
    expect(asUtf8.slice(0, 4)).toEqual([{ firstName: 'Zoë' }, { firstName: 'Zoë' }, { firstName: 'Louis\uFFFD' }, { firstName: 'Zoë' }]);
    const w = await inspectInput(file, 'csv', undefined, 'windows-1252');
    expect(describeDialect(w, 'csv')).toBe('read as Windows-1252 (--encoding)');
    const asW: unknown[] = [];
    for await (const r of readRows(file, { format: 'csv', dialect: w })) {
      asW.push(r.value);
      if (asW.length === 3) break;
    }
    expect(asW[2]).toEqual({ firstName: 'Louisë' });
  });

  it('a Windows-1252 file whose text holds a pair that reads as UTF-8 is still Windows-1252', async () => {
    // "Ã©" in Windows-1252 is C3 A9, which is é in UTF-8; the rest of the file is 1252 throughout.
    const bytes = [0x6e, 0x0a, 0xc3, 0xa9, 0x0a];
    for (let i = 0; i < 40; i++) bytes.push(0x5a, 0x6f, 0xeb, 0x0a);
    expect((await detectEncoding(write('w2.csv', Buffer.from(bytes)))).encoding).toBe('windows-1252');
  });

  it('a character split between two chunks is decoded whole', async () => {
    // 64 KiB chunks: put a multi-byte character across the first boundary.
    const head = 'x'.repeat(64 * 1024 - 1);
    const file = write('s.csv', Buffer.from(`${head}ë\n`));
    let out = '';
    for await (const c of decodedChunks(file, 'utf-8')) out += c;
    expect(out).toBe(`${head}ë\n`);
  });
});

describe('FailedRows', () => {
  it('writes failed CSV rows with the input header, delimiter and quoting, plus an error column (replaced when present)', async () => {
    const input = write('in.csv', 'name;note\nA;"x;y"\nB;plain\nC;"multi\nline"\n');
    const dialect = await inspectInput(input, 'csv');
    const out = path.join(path.dirname(input), 'failed.csv');
    const f = new FailedRows(out);
    const report = f.collect({ write() {}, close() {} });
    const entry = (row: number, status: ReportEntry['status'], error: string | null): ReportEntry => ({ row, status, id: null, error });
    await report.write(entry(1, 'failed', 'bad "x"'));
    await report.write(entry(2, 'created', null));
    await report.write(entry(3, 'failed', 'bad; too'));
    await report.write(entry(4, 'unknown', 'maybe'));
    expect(await f.write(input, { format: 'csv', dialect }, 'id')).toBe(2);
    expect(fs.readFileSync(out, 'utf8')).toBe('name;note;error\r\nA;"x;y";"bad ""x"""\r\nC;"multi\nline";"bad; too"\r\n');
    // Fed back in and failing again: the error column is replaced, not doubled.
    const again = new FailedRows(path.join(path.dirname(input), 'again.csv'));
    await again.collect({ write() {}, close() {} }).write(entry(2, 'failed', 'still bad'));
    expect(await again.write(out, { format: 'csv', dialect: await inspectInput(out, 'csv') }, 'id')).toBe(1);
    expect(fs.readFileSync(again.file, 'utf8')).toBe('name;note;error\r\nC;"multi\nline";still bad\r\n');
  });

  it('NDJSON and JSON arrays: objects gain an error member, bare values become the given key', async () => {
    const nd = write('in.ndjson', '{"a":1}\n2\n');
    const f = new FailedRows(`${nd}.failed`);
    const r = f.collect({ write() {}, close() {} });
    await r.write({ row: 1, status: 'failed', id: null, error: 'e1' });
    await r.write({ row: 2, status: 'failed', id: null, error: 'e2' });
    await f.write(nd, { format: 'ndjson' }, 'id');
    expect(fs.readFileSync(f.file, 'utf8')).toBe('{"a":1,"error":"e1"}\n{"id":2,"error":"e2"}\n');
    const js = write('in.json', '[{"a":1},{"a":2}]');
    const g = new FailedRows(`${js}.failed`);
    await g.collect({ write() {}, close() {} }).write({ row: 2, status: 'failed', id: null, error: 'e' });
    await g.write(js, { format: 'json' }, 'id');
    expect(JSON.parse(fs.readFileSync(g.file, 'utf8'))).toEqual([{ a: 2, error: 'e' }]);
  });
});

describe('circuit breaker', () => {
  it('errors of the same class differ only in quoted values and numbers', () => {
    expect(errorClass('HTTP 422 Validation Error: "a@x.org" is taken (field /data/attributes/emails)')).toBe(
      errorClass('HTTP 422 Validation Error: "b@y.org" is taken (field /data/attributes/emails)'),
    );
    expect(errorClass('HTTP 422 Validation Error: No account with id 5.')).toBe(
      errorClass('HTTP 422 Validation Error: No account with id 77.'),
    );
    expect(errorClass('HTTP 422 X')).not.toBe(errorClass('HTTP 409 X'));
  });

  const progress = () =>
    new Progress({ stderr: { write: () => true } as unknown as NodeJS.WritableStream, tty: false, label: 't', columns: 80, now: () => 0 });

  async function run(outcomes: (row: number) => Outcome, n: number, maxFailures?: number) {
    let performed = 0;
    const items = (async function* () {
      for (let row = 1; row <= n; row++) yield { row, key: String(row) } as WorkItem;
    })();
    const result = await runPool({
      items,
      concurrency: 1,
      signal: new AbortController().signal,
      report: { write() {}, close() {} },
      progress: progress(),
      perform: async (item) => {
        performed++;
        return outcomes(item.row);
      },
      ...(maxFailures !== undefined ? { maxFailures } : {}),
    });
    return { result, performed };
  }

  const refused = (row: number): Outcome => ({ status: 'failed', error: `HTTP 422 Validation Error: No account with id ${row}.` });

  it('stops after N consecutive refusals of one class (default 20), reporting the streak', async () => {
    const { result, performed } = await run(refused, 400);
    expect(performed).toBe(20);
    expect(result.tripped).toMatchObject({ count: 20, firstRow: 1 });
    expect(result.interrupted).toBe(false);
    expect((await run(refused, 400, 5)).performed).toBe(5);
    expect((await run(refused, 50, 0)).performed).toBe(50);
  });

  it('a success or another error starts the count again', async () => {
    const mixed = (row: number): Outcome => (row % 10 === 0 ? { status: 'created', id: row } : refused(row));
    const a = await run(mixed, 100);
    expect(a.performed).toBe(100);
    expect(a.result.tripped).toBeUndefined();
    const alternating = (row: number): Outcome => (row % 2 ? refused(row) : { status: 'failed', error: 'HTTP 409 Conflict' });
    expect((await run(alternating, 60, 3)).result.tripped).toBeUndefined();
  });
});
