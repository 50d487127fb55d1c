/**
 * Input files as spreadsheets write them: delimiters (sniffed or given), encodings (BOMs,
 * Windows-1252 and Shift_JIS fallbacks), the failed-rows file, and the circuit breaker of the worker pool.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CsvParser, sniffDelimiter } from '../../../src/bulk/input/csv-parse.js';
import { errorClass, runPool, type Outcome, type WorkItem } from '../../../src/bulk/run/engine.js';
import { FailedRows } from '../../../src/bulk/run/failed-rows.js';
import { decodedChunks, detectEncoding } from '../../../src/bulk/input/input-encoding.js';
import { Progress } from '../../../src/bulk/run/progress.js';
import { describeDialect, inspectInput, parseDelimiter, parseEncoding, readRows, type RawRow } from '../../../src/bulk/input/readers.js';
import type { ReportEntry } from '../../../src/bulk/run/report.js';
import { UsageError } from '../../../src/errors.js';
import { cp932 } from '../../helpers/bulk.js';
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

  it("Shift_JIS (CP932, Japanese Excel's CSV) when the file reads whole as Shift_JIS with Japanese in it, even far into the file", async () => {
    // Refused as UTF-8 with stray bytes, and the hint offered windows-1252, which wrote mojibake (a trial).
    const text =
      'lastName,firstName,title,emails\r\n山田,太郎,営業部\u3000部長,taro@sjis.test\r\n佐藤,花子,,hanako@sjis.test\r\nヤマダ,カタカナー,,kana@sjis.test\r\n';
    const file = write('sjis.csv', cp932(text));
    expect(await detectEncoding(file)).toEqual({ encoding: 'shift_jis', bom: false });
    expect(describeDialect(await inspectInput(file, 'csv'), 'csv')).toBe('read as Shift_JIS (not valid UTF-8)');
    expect((await rows(file)).map((x) => x.value)).toEqual([
      { lastName: '山田', firstName: '太郎', title: '営業部\u3000部長', emails: 'taro@sjis.test' },
      { lastName: '佐藤', firstName: '花子', title: '', emails: 'hanako@sjis.test' },
      { lastName: 'ヤマダ', firstName: 'カタカナー', title: '', emails: 'kana@sjis.test' },
    ]);
    // Past the first 64 KiB chunk, with a character split between two chunks.
    const head = `name\n${'x'.repeat(64 * 1024 - 7)}\n`;
    const far = write('far.csv', Buffer.concat([Buffer.from(head), cp932('鈴木\n')]));
    expect(head.length).toBe(64 * 1024 - 1);
    expect((await detectEncoding(far)).encoding).toBe('shift_jis');
    expect((await rows(far)).at(-1)!.value).toEqual({ name: '鈴木' });
  });

  it('--encoding shift_jis and the names users type for it', async () => {
    for (const name of ['shift_jis', 'Shift-JIS', 'SJIS', 'cp932', 'Windows-31J', 'MS932']) expect(parseEncoding(name)).toBe('shift_jis');
    expect(() => parseEncoding('euc-jp')).toThrow('--encoding euc-jp: expected utf-8, windows-1252, shift_jis, utf-16le or utf-16be');
    const file = write('forced.csv', cp932('name\n山田\u3000太郎\n'));
    const d = await inspectInput(file, 'csv', undefined, 'shift_jis');
    expect(describeDialect(d, 'csv')).toBe('read as Shift_JIS (--encoding)');
    const out: unknown[] = [];
    for await (const r of readRows(file, { format: 'csv', dialect: d })) out.push(r.value);
    expect(out).toEqual([{ name: '山田\u3000太郎' }]);
  });

  it('Windows-1252 and Mac Roman names that also read as valid Shift_JIS are detected as before', async () => {
    // Windows-1252: ç, é, è before a letter read as kanji in Shift_JIS, Å as a half-width katakana,
    // ö as a user-defined character: François, Hélène, Ångström read whole as Shift_JIS.
    const w1252 = (t: string) => Buffer.from(t, 'latin1');
    const sjisWhole = (b: Buffer) => new TextDecoder('shift_jis', { fatal: true }).decode(b);
    for (const name of ['François', 'Hélène', 'Ångström', 'élève', 'Ñúñez']) {
      const bytes = w1252(`firstName\n${name}\n`);
      expect(() => sjisWhole(bytes), name).not.toThrow();
      const found = await detectEncoding(write('eu.csv', bytes));
      expect(found, name).toEqual({ encoding: 'windows-1252', bom: false });
    }
    const eu = w1252('firstName,lastName\r\nZoë,Brontë\r\nJosé,Núñez\r\nFrançois,Müller\r\nÅsa,Ångström\r\nHélène,Noël\r\n');
    const file = write('eu.csv', eu);
    expect(await detectEncoding(file)).toEqual({ encoding: 'windows-1252', bom: false });
    expect((await rows(file)).map((x) => x.value)).toContainEqual({ firstName: 'François', lastName: 'Müller' });
    // Mac Roman: É (0x83) before a letter reads as a katakana, Å (0x81) as a CJK bracket, é è (0x8E
    // 0x8F) as kanji. Without 0x81 0x8D 0x8F 0x90 0x9D it reads as Windows-1252, as before; with one
    // it is refused naming Mac Roman.
    const mac = (...parts: (string | number)[]) =>
      Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from([p]))));
    const emile = mac('firstName\r', 0x83, 'mile\r');
    expect(() => sjisWhole(emile)).not.toThrow();
    expect(await detectEncoding(write('mac1.csv', emile))).toEqual({ encoding: 'windows-1252', bom: false });
    for (const [bytes, line, byte] of [
      [mac('firstName,lastName\rH', 0x8e, 'l', 0x8f, 'ne,Lef', 0x8f, 'vre\r'), 2, 0x8f],
      [mac('firstName\r', 0x81, 'sa\r', 0x81, 'SA\r'), 2, 0x81],
    ] as const) {
      expect(() => sjisWhole(bytes)).not.toThrow();
      expect(await detectEncoding(write('mac2.csv', bytes))).toEqual({ encoding: 'windows-1252', bom: false, notCp1252: { line, byte } });
    }
  });

  it('a cell of one Japanese character (a one-kanji name) tells Shift_JIS as a run of two does', async () => {
    // 林,健 were read as Windows-1252 ("—Ñ", "Œ’") and sent, exit 0 (a trial): no run of two.
    for (const text of ['Email,First Name,Last Name\r\nken@example.jp,林,健\r\n', 'name;email\n"林";a@example.jp\n', 'name\tx\n森\tx']) {
      const file = write('one.csv', cp932(text));
      expect(await detectEncoding(file), text).toEqual({ encoding: 'shift_jis', bom: false });
    }
    const file = write('one.csv', cp932('First Name,Last Name,Email\r\nKen,林,ken@example.jp\r\nJun,森,jun@example.jp\r\n'));
    expect((await rows(file)).map((x) => x.value)).toEqual([
      { 'First Name': 'Ken', 'Last Name': '林', Email: 'ken@example.jp' },
      { 'First Name': 'Jun', 'Last Name': '森', Email: 'jun@example.jp' },
    ]);
  });

  it('Western cells of two accented letters: Windows-1252 as before, or refused naming both when they read whole as Shift_JIS too', async () => {
    const w1252 = (t: string) => Buffer.from(t, 'latin1');
    // Ñ and Å are half-width katakana in Shift_JIS, never the first byte of a pair: no Japanese cell.
    // José's é before a line end is no Shift_JIS: the file does not read whole as Shift_JIS.
    for (const text of ['firstName,lastName\nÑé,Åö\n', 'firstName,lastName,note\nJosé,Núñez,él\nZoë,Noël,ça\n']) {
      expect(await detectEncoding(write('w.csv', w1252(text))), text).toEqual({ encoding: 'windows-1252', bom: false });
    }
    // "ça" (E7 61) and "——" (97 97) are one kanji each in Shift_JIS, and François reads whole as
    // Shift_JIS too: either reading is plausible, so neither is guessed.
    for (const [cell, kanji] of [
      ['ça', '軋'],
      ['\u2014\u2014', '覧'],
    ] as const) {
      const bytes = Buffer.from(`firstName,note\nFrançois,${cell}\n`.replace(/\u2014/g, '\x97'), 'latin1');
      const file = write('either.csv', bytes);
      expect(await detectEncoding(file)).toEqual({
        encoding: 'windows-1252',
        bom: false,
        eitherWay: { line: 2, cp1252: cell, shiftJis: kanji },
      });
      const err = (await inspectInput(file, 'csv').catch((e: unknown) => e)) as UsageError;
      expect(err).toBeInstanceOf(UsageError);
      expect(err.message).toBe(
        `--input ${file}: not UTF-8, and it reads whole both as Windows-1252 and as Shift_JIS (line 2's cell "${cell}" is "${kanji}" in Shift_JIS); read the wrong way, its names would be garbled; nothing was sent`,
      );
      expect(err.hints).toEqual(['choose --encoding windows-1252 or --encoding shift_jis (or save the file as "CSV UTF-8")']);
    }
    // Mac Roman's "ça" (8D 61) is a kanji too, and 0x8D no Windows-1252: refused naming Mac Roman, as before.
    const mac = Buffer.concat([
      Buffer.from('firstName,note\rFran'),
      Buffer.from([0x8d]),
      Buffer.from('ois,'),
      Buffer.from([0x8d, 0x61]),
      Buffer.from('\r'),
    ]);
    expect(await detectEncoding(write('mac.csv', mac))).toEqual({
      encoding: 'windows-1252',
      bom: false,
      notCp1252: { line: 2, byte: 0x8d },
    });
  });

  it('a byte neither UTF-8 nor Windows-1252 in a file that reads whole as Shift_JIS with Japanese in it: the hint names --encoding shift_jis', async () => {
    // 森 (90 58) beside a Latin name in one cell proves nothing, and 0x90 is Mac Roman's ê: refused
    // naming only "CSV UTF-8", while --encoding shift_jis read it whole and right (a trial).
    const file = write('loose.csv', cp932('name,email\r\nKen,ken@example.jp\r\n森 Jun,jun@example.jp\r\n'));
    expect(await detectEncoding(file)).toEqual({
      encoding: 'windows-1252',
      bom: false,
      notCp1252: { line: 3, byte: 0x90 },
      asShiftJis: { line: 3, text: '森 Jun,jun@example.jp' },
    });
    const err = (await inspectInput(file, 'csv').catch((e: unknown) => e)) as UsageError;
    expect(err.message).toBe(
      `--input ${file}: line 3 holds a byte that is neither UTF-8 nor Windows-1252 (0x90, Mac Roman's ê, as Excel for Mac's plain "CSV" writes it, or part of a Japanese character in Shift_JIS); read as either, its names would be garbled; nothing was sent`,
    );
    expect(err.hints).toEqual([
      'save the file as "CSV UTF-8" (Excel: File › Save As, or Numbers: Export To › CSV, Unicode), or choose --encoding shift_jis (line 3 then reads "森 Jun,jun@example.jp")',
    ]);
  });

  it('a file neither UTF-8 nor wholly Shift_JIS that is Japanese elsewhere: refused naming --encoding shift_jis, not windows-1252', async () => {
    // A Shift_JIS file with one byte that is not (0xA0 is neither a character nor a lead byte).
    const broken = Buffer.concat([cp932('lastName,firstName\r\n山田,太郎\r\n佐藤,花子\r\n'), Buffer.from([0x41, 0xa0, 0x0d, 0x0a])]);
    const file = write('broken.csv', broken);
    expect(await detectEncoding(file)).toMatchObject({ shiftJis: { line: 4, bad: 1 } });
    const err = await inspectInput(file, 'csv').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(
      `--input ${file}: line 4 holds bytes that are not Shift_JIS (1 such sequence in all), while the file is Japanese in Shift_JIS elsewhere; read as Windows-1252 its names would be garbled; nothing was sent`,
    );
    expect((err as UsageError).hints).toEqual([
      'fix line 4 (or save the file as "CSV UTF-8"), or choose --encoding shift_jis (those bytes become �)',
    ]);
    // A UTF-8 file with Shift_JIS rows pasted in: the stray-byte refusal names shift_jis as the other reading.
    const pasted = Buffer.concat([Buffer.from(`name\n${'東京\n大阪\n'.repeat(5)}`), cp932('山田\u3000太郎\n')]);
    const mixed = write('pasted.csv', pasted);
    expect(await detectEncoding(mixed)).toMatchObject({ mixed: { badLine: 12, goodLine: 2 }, shiftJis: {} });
    const err2 = (await inspectInput(mixed, 'csv').catch((e: unknown) => e)) as UsageError;
    expect(err2.message).toMatch(/line 12 holds a byte that is not UTF-8 \(0x8E, as Shift_JIS writes Japanese\)/);
    expect(err2.hints).toEqual([
      'fix line 12 (save the file as UTF-8), or choose: --encoding utf-8 (that byte becomes �) or --encoding shift_jis (UTF-8 text such as 東京 becomes 譚ｱ莠ｬ)',
    ]);
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
