/**
 * Input files of bulk runs, read as streams: CSV (header row), NDJSON (one JSON value per line)
 * and a JSON array. Rows are numbered from 1 in the order they appear, the CSV header and blank
 * lines not counted, so the numbers in reports match `sed -n` on NDJSON and a spreadsheet's
 * record number on CSV. A CSV record of empty cells (`;;;;`, a spreadsheet's empty row) keeps its
 * number but is not yielded: it is counted as blank (`onBlank`), never as a failed row. A row that cannot be parsed is one bad row; a file that cannot be read
 * at all is a usage error.
 */
import fs from 'node:fs';
import path from 'node:path';
import { nestedDeeperThan, tooDeepMessage } from '../../json-depth.js';
import { UsageError } from '../../errors.js';
import { unreadableFile } from '../../unreadable-file.js';
import { CsvParser, sniffDelimiter } from './csv-parse.js';
import {
  decodedChunks,
  detectEncoding,
  ENCODING_NAMES,
  encodingByBom,
  encodingName,
  type DetectedEncoding,
  type InputEncoding,
  type MixedEncoding,
} from './input-encoding.js';
import { chars, MAX_RECORD_CHARS } from './input-limits.js';
import { JsonArraySplitter } from './json-stream.js';
import { parseJson } from '../../lossless-json.js';

/** Formats of `--input`. */
export type InputFormat = 'csv' | 'ndjson' | 'json';

/** One input row: a parsed value (CSV rows are header → cell text), or why it is unreadable. */
export interface RawRow {
  /** 1-based position among the records of the file. */
  row: number;
  value?: unknown;
  /** True for CSV rows: every value is text and needs coercion by attribute type. */
  csv?: boolean;
  /** A CSV row shorter than the header, its missing last cells read as empty (said by the scan). */
  padded?: boolean;
  /** CSV rows: the cells as read, in the header's order (the same array as `header` for none). */
  cells?: string[];
  /** CSV rows: the header's names (one array shared by every row). */
  header?: string[];
  /**
   * CSV rows of a `;`-separated file: a number may be written with a decimal comma (`4,5`), as
   * spreadsheets write them where the comma is the decimal separator (and `;` the list separator).
   */
  decimalComma?: boolean;
  error?: string;
}

/** How a file is read: its encoding and, for CSV, the delimiter. */
export interface InputDialect extends DetectedEncoding {
  /** CSV delimiter: forced by `--delimiter`, else sniffed from the header line. */
  delimiter: string;
  /** The delimiter was sniffed, not given. */
  sniffed: boolean;
}

/** Options of {@link readRows}. */
export interface ReadOptions {
  format: InputFormat;
  /**
   * For files that may lack a header (a single column of ids or e-mail addresses): given the
   * first CSV record, returns the column name to use when that record is data, not a header.
   */
  headerless?: (firstRecord: string[]) => string | undefined;
  /** Encoding and delimiter, found once by {@link inspectInput}; found here when not given. */
  dialect?: InputDialect;
  /**
   * Told of each blank CSV row (every cell empty: `;;;;;;;`, as spreadsheets write an empty row),
   * which is not yielded: it asks for nothing, so it is neither done nor failed.
   */
  onBlank?: (row: number) => void;
}

/** `--delimiter` values: one character; `tab` and `\t` name the tab. */
export function parseDelimiter(v: string): string {
  const d = v === 'tab' || v === '\\t' ? '\t' : v;
  if (d.length !== 1 || d === '"' || d === '\n' || d === '\r') {
    throw new UsageError(`--delimiter ${JSON.stringify(v)}: expected one character such as , ; or tab`);
  }
  return d;
}

/** `--encoding` values: one of {@link ENCODING_NAMES}. */
export function parseEncoding(v: string): InputEncoding {
  const e = ENCODING_NAMES[v.trim().toLowerCase()];
  if (!e) throw new UsageError(`--encoding ${v}: expected utf-8, windows-1252, shift_jis, utf-16le or utf-16be`);
  return e;
}

/**
 * The encoding of a file and, for CSV, its delimiter (`delimiter` and `encoding` force them).
 * @throws UsageError when the file cannot be read, or mixes UTF-8 with bytes that are not
 */
export async function inspectInput(file: string, format: InputFormat, delimiter?: string, encoding?: InputEncoding): Promise<InputDialect> {
  await checkReadable(file);
  const enc: DetectedEncoding = encoding ? { encoding, bom: await hasBom(file, encoding), forced: true } : await detectEncoding(file);
  if (enc.mixed) throw mixedEncoding(file, enc.mixed, !!enc.shiftJis, enc.kana);
  if (enc.shiftJis) {
    const { line, bad } = enc.shiftJis;
    throw new UsageError(
      `--input ${file}: line ${line} holds bytes that are not Shift_JIS (${bad} such sequence${bad > 1 ? 's' : ''} in all), while the file is Japanese in Shift_JIS elsewhere; read as Windows-1252 its names would be garbled; nothing was sent`,
    ).hint(`fix line ${line} (or save the file as "CSV UTF-8"), or choose --encoding shift_jis (those bytes become �)`);
  }
  if (enc.notCp1252) throw notCp1252(file, enc.notCp1252, enc.asShiftJis);
  if (enc.eitherWay) {
    const { line, cp1252, shiftJis } = enc.eitherWay;
    throw new UsageError(
      `--input ${file}: not UTF-8, and it reads whole both as Windows-1252 and as Shift_JIS (line ${line}'s cell ${JSON.stringify(cp1252)} is ${JSON.stringify(shiftJis)} in Shift_JIS); read the wrong way, its names would be garbled; nothing was sent`,
    ).hint('choose --encoding windows-1252 or --encoding shift_jis (or save the file as "CSV UTF-8")');
  }
  if (format !== 'csv') return { ...enc, delimiter: ',', sniffed: false };
  if (delimiter !== undefined) return { ...enc, delimiter, sniffed: false };
  let head = '';
  for await (const chunk of decodedChunks(file, enc.encoding)) {
    head += chunk;
    if (/[\r\n]/.test(head) || head.length > 64 * 1024) break;
  }
  // Excel's own first line naming the delimiter (many tools write it for Excel): readCsv skips it.
  const declared = SEP_LINE.exec(head.split(/\r\n|\r|\n/, 1)[0]!);
  if (declared) return { ...enc, delimiter: declared[1]!, sniffed: false };
  return { ...enc, delimiter: sniffDelimiter(head), sniffed: true };
}

/**
 * A byte that is neither UTF-8 nor Windows-1252: the fix is "CSV UTF-8", and `--encoding
 * shift_jis` too when the file reads whole as Shift_JIS with Japanese in it (`asShiftJis`), with
 * the line as it would then read, for the user to judge (Mac Roman reads as Shift_JIS too).
 */
function notCp1252(file: string, at: { line: number; byte: number }, asShiftJis?: { line: number; text: string }): UsageError {
  const byte = `0x${at.byte.toString(16).toUpperCase()}`;
  const letter = MAC_ROMAN[at.byte];
  const writers = [
    letter && `Mac Roman's ${letter}, as Excel for Mac's plain "CSV" writes it`,
    asShiftJis && 'or part of a Japanese character in Shift_JIS',
  ]
    .filter(Boolean)
    .join(', ');
  const utf8 = 'save the file as "CSV UTF-8" (Excel: File › Save As, or Numbers: Export To › CSV, Unicode)';
  return new UsageError(
    `--input ${file}: line ${at.line} holds a byte that is neither UTF-8 nor Windows-1252 (${byte}${writers ? `, ${writers}` : ''}); read as either, its names would be garbled; nothing was sent`,
  ).hint(
    asShiftJis ? `${utf8}, or choose --encoding shift_jis (line ${asShiftJis.line} then reads ${JSON.stringify(asShiftJis.text)})` : utf8,
  );
}

/** The Mac Roman letters of the bytes Windows-1252 leaves undefined (input-encoding.ts). */
const MAC_ROMAN: Record<number, string> = { 0x81: 'Å', 0x8d: 'ç', 0x8f: 'è', 0x90: 'ê', 0x9d: 'ù' };

/** `sep=;`: a first line that tells Excel the delimiter (it was taken as the header: `--map "sep==FIELD"`). */
const SEP_LINE = /^"?sep=([^\w\s"]|\t)"?$/i;

/** The file starts with the byte order mark of `encoding` (which the decoder then drops). */
async function hasBom(file: string, encoding: InputEncoding): Promise<boolean> {
  const fh = await openOrThrow(file);
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await fh.read(head, 0, 4, 0);
    return encodingByBom(head.subarray(0, bytesRead)) === encoding;
  } finally {
    await fh.close();
  }
}

/**
 * A UTF-8 file with a few bytes that are not: the line to fix, and the flag that decides.
 * `shiftJis`: those bytes read as Japanese in Shift_JIS, which is then the other choice named.
 * `kana`: the file reads whole as Shift_JIS with half-width katakana: named as a third choice,
 * with the line as it would read (half-width katakana alone cannot be told from Windows-1252's
 * capitals, input-encoding.ts: the user judges, svc does not guess).
 */
function mixedEncoding(file: string, m: MixedEncoding, shiftJis: boolean, kana?: { line: number; text: string }): UsageError {
  const byte = `0x${m.badByte.toString(16).toUpperCase().padStart(2, '0')}`;
  const more = m.bad > 1 ? ` (and ${m.bad - 1} more such byte${m.bad > 2 ? 's' : ''})` : '';
  const cp1252 = '--encoding windows-1252 (UTF-8 text such as Zoë becomes ZoÃ«)';
  const other = shiftJis
    ? { writes: 'Shift_JIS writes Japanese', choices: ['--encoding shift_jis (UTF-8 text such as 東京 becomes 譚ｱ莠ｬ)'] }
    : kana
      ? {
          writes: 'Windows-1252 writes é, ë, – and Shift_JIS half-width katakana',
          choices: [cp1252, `--encoding shift_jis (line ${kana.line} then reads ${JSON.stringify(kana.text)})`],
        }
      : { writes: 'Windows-1252 writes é, ë, –', choices: [cp1252] };
  const choices = ['--encoding utf-8 (that byte becomes �)', ...other.choices];
  return new UsageError(
    `--input ${file}: line ${m.badLine} holds a byte that is not UTF-8 (${byte}, as ${other.writes})${more}, while the file is UTF-8 elsewhere (from line ${m.goodLine}); read either way, one of them would be garbled; nothing was sent`,
  ).hint(`fix line ${m.badLine} (save the file as UTF-8), or choose: ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`);
}

/** `read as Windows-1252 (not valid UTF-8), ';'-separated`; undefined for plain UTF-8 and commas. */
export function describeDialect(d: InputDialect, format: InputFormat): string | undefined {
  const parts: string[] = [];
  const why = d.forced
    ? ' (--encoding)'
    : d.bom
      ? ''
      : d.encoding === 'windows-1252' || d.encoding === 'shift_jis'
        ? ' (not valid UTF-8)'
        : ' (no byte order mark; told by its zero bytes)';
  if (d.encoding !== 'utf-8') parts.push(`read as ${encodingName(d.encoding)}${why}`);
  if (format === 'csv' && d.delimiter !== ',')
    parts.push(
      `${d.delimiter === '\t' ? 'tab' : `'${d.delimiter}'`}-separated${d.sniffed ? ' (from the header line; --delimiter to change)' : ''}`,
    );
  return parts.length ? parts.join(', ') : undefined;
}

/** Format from the file name, else from the first character of the file. */
export async function detectFormat(file: string): Promise<InputFormat> {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  if (ext === '.json') return 'json';
  const head = await readHead(file, 512);
  const first = head.replace(/^\uFEFF/, '').trimStart()[0];
  if (first === '[') return 'json';
  if (first === '{') return 'ndjson';
  return 'csv';
}

async function readHead(file: string, bytes: number): Promise<string> {
  const fh = await openOrThrow(file);
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    const head = buf.subarray(0, bytesRead);
    return new TextDecoder(encodingByBom(head) ?? 'utf-8').decode(head);
  } finally {
    await fh.close();
  }
}

/** `--input -`: a bulk run is resumable from its file (journal beside it, rows counted in it), which stdin cannot give. */
export function stdinNotSupported(): UsageError {
  return new UsageError('--input -: bulk input is read from a file, not stdin (a rerun resumes from the same file)').hint(
    'save it to a file first, e.g. `… > rows.csv`, then pass --input rows.csv',
  );
}

async function openOrThrow(file: string): Promise<fs.promises.FileHandle> {
  // A bulk run is resumable from its file (the journal sits beside it and rows are counted in
  // it), which stdin cannot give: say so rather than look for a file named "-".
  if (file === '-') throw stdinNotSupported();
  try {
    const st = await fs.promises.stat(file);
    if (st.isDirectory()) throw new UsageError(`--input ${file}: is a directory, not a file`);
    // /dev/stdin, `<(cmd)`, a FIFO: read once, and not at the offsets the reader seeks (it gave
    // "cannot read: ESPIPE", exit 1, a trial). As for `-`: the rows must be in a file.
    // /dev/stdin (or /dev/fd/N) redirected from a file is one too, read once: and its journal went
    // beside it, in /dev. (/dev/shm and the like hold real files.)
    const descriptor = /^\/dev\/(stdin$|fd\/)|^\/proc\/[^/]+\/fd\//.test(path.resolve(file));
    if (!st.isFile() || descriptor)
      throw new UsageError(
        `--input ${file}: is ${descriptor ? 'stdin or a file descriptor' : 'a pipe or a device'}, not a file: bulk input is read from a file (a rerun resumes from the same file)`,
      ).hint('save it to a file first, e.g. `… > rows.csv`, then pass --input rows.csv');
    return await fs.promises.open(file, 'r');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(unreadable(file, err));
  }
}

/** One line naming the file, what is wrong and what to do: never a bare errno code. */
function unreadable(file: string, err: unknown): string {
  return unreadableFile('--input', file, err, 'check the path, or pass the file the rows are in').message;
}

/** Checks that the input file exists and is readable (before anything else happens). */
async function checkReadable(file: string): Promise<void> {
  const fh = await openOrThrow(file);
  await fh.close();
}

/** Streams the rows of a file. @throws UsageError when the file as a whole cannot be read */
export async function* readRows(file: string, opts: ReadOptions): AsyncGenerator<RawRow> {
  const dialect = opts.dialect ?? (await inspectInput(file, opts.format));
  const stream = () => decodedChunks(file, dialect.encoding);
  if (opts.format === 'csv') yield* readCsv(file, opts, dialect, stream);
  else if (opts.format === 'ndjson') yield* readNdjson(file, stream);
  else yield* readJsonArray(file, stream);
}

type Chunks = () => AsyncIterable<string>;

async function* readCsv(file: string, opts: ReadOptions, dialect: InputDialect, stream: Chunks): AsyncGenerator<RawRow> {
  const parser = new CsvParser(dialect.delimiter);
  const decimalComma = dialect.delimiter === ';';
  let header: string[] | undefined;
  let sepSkipped = false;
  let row = 0;
  const toRow = (cells: string[]): RawRow => {
    row++;
    // Excel leaves out a row's trailing empty cells past its 16th row (Microsoft KB 77295), so a
    // sheet whose last column is optional came with short rows, each refused (a trial): the cells
    // a row lacks at its end are empty, as Python's csv.DictReader and pandas read them. A row of
    // one cell stays refused: in a sheet of several columns it is more likely a note or a total.
    const padded = cells.length > 1 && cells.length < header!.length;
    if (padded) cells = [...cells, ...Array<string>(header!.length - cells.length).fill('')];
    if (cells.length !== header!.length) {
      return {
        row,
        csv: true,
        cells,
        header,
        error: `has ${cells.length} cells, the header has ${header!.length}${hintDelimiter(dialect, cells.length, header!.length)}`,
      };
    }
    // Two exports joined with `cat`: the second's header line (its byte order mark with it) was
    // created as a prospect named "First Name Last Name" (a trial).
    if (cells.every((c, i) => c.replace(/^\uFEFF/, '').trim() === header![i])) {
      return { row, csv: true, cells, header, error: 'repeats the header row (two files joined? remove this line)' };
    }
    const value: Record<string, string> = {};
    for (let i = 0; i < cells.length; i++) {
      const name = header![i]!;
      if (name !== '') value[name] = cells[i]!;
      else if (cells[i]!.trim() !== '') {
        return {
          row,
          csv: true,
          cells,
          header,
          error: `has a value in column ${i + 1}, which has no name in the header row (name it, or clear it)`,
        };
      }
    }
    return { row, csv: true, value, cells, header, ...(decimalComma ? { decimalComma } : {}), ...(padded ? { padded } : {}) };
  };
  const take = function* (records: string[][]): Generator<RawRow> {
    for (const rec of records) {
      if (header && isBlank(rec)) {
        // Numbered all the same: the row numbers of the rest stay those of the spreadsheet.
        row++;
        opts.onBlank?.(row);
        continue;
      }
      if (!header && !sepSkipped && SEP_LINE.test(rec.join(dialect.delimiter).trim())) {
        sepSkipped = true;
        continue;
      }
      if (!header) {
        const assumed = opts.headerless?.(rec);
        if (assumed !== undefined) {
          header = [assumed];
          yield toRow(rec);
          continue;
        }
        header = checkHeader(file, rec);
        continue;
      }
      yield toRow(rec);
    }
  };
  try {
    for await (const chunk of stream()) yield* take(parser.push(chunk));
    yield* take(parser.end());
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // The record being read when it failed: the header, or the row after the last one read.
    throw new UsageError(`--input ${file}: ${(err as Error).message} (in ${header ? `row ${row + 1}` : 'the header row'})`);
  }
}

/** A record of delimiters only (or of blank cells), whatever its number of cells. */
function isBlank(rec: string[]): boolean {
  for (const c of rec) if (c.trim() !== '') return false;
  return true;
}

/** A header of one column whose rows have several: the delimiter is likely wrong. */
function hintDelimiter(d: InputDialect, cells: number, columns: number): string {
  return columns === 1 && cells > 1
    ? ` (is the delimiter ${JSON.stringify(d.delimiter === '\t' ? 'tab' : d.delimiter)} right? --delimiter sets it)`
    : '';
}

/**
 * The header's names. A column without a name is kept (as ''), its cells read as nothing: Excel
 * writes one after the last when a cell to the right was ever formatted (`a,b,` on every line).
 * A row with a value there is refused (toRow), not guessed at; the column check says it once.
 */
function checkHeader(file: string, rec: string[]): string[] {
  const names = rec.map((c) => c.trim());
  if (names.every((n) => n === '')) throw new UsageError(`--input ${file}: the header row has no column names`);
  const seen = new Set<string>();
  for (const n of names) {
    if (n === '') continue;
    if (seen.has(n))
      throw new UsageError(`--input ${file}: column "${n}" appears twice in the header row; nothing was sent`).hint(
        `rename one of them in the file's first line (e.g. "${n} 2", then --ignore-columns "${n} 2" to leave it out)`,
      );
    seen.add(n);
  }
  return names;
}

async function* readNdjson(file: string, stream: Chunks): AsyncGenerator<RawRow> {
  // Lines are split here rather than with readline so that reading pauses while rows wait
  // (the stream's own backpressure): memory stays flat however long the file.
  let row = 0;
  let rest = '';
  let first = true;
  const take = function* (line: string): Generator<RawRow> {
    if (first) {
      first = false;
      line = line.replace(/^\uFEFF/, '');
    }
    if (line.trim() === '') return;
    row++;
    yield parseValue(row, line);
  };
  for await (const chunk of stream()) {
    // Only the chunk is split, the line it continues joined to its first piece: splitting
    // `rest + chunk` copied a long line again with each chunk (a 10 MB line, ~150 times).
    const lines = chunk.split('\n');
    lines[0] = rest + lines[0];
    rest = lines.pop()!;
    for (const line of lines) {
      if (line.length > MAX_RECORD_CHARS) throw lineTooLong(file, row);
      yield* take(line);
    }
    if (rest.length > MAX_RECORD_CHARS) throw lineTooLong(file, row);
  }
  yield* take(rest);
}

function lineTooLong(file: string, row: number): UsageError {
  return new UsageError(`--input ${file}: the line after row ${row} is longer than ${chars(MAX_RECORD_CHARS)}, the cap on one record`);
}

async function* readJsonArray(file: string, stream: Chunks): AsyncGenerator<RawRow> {
  const splitter = new JsonArraySplitter();
  let row = 0;
  const take = function* (pieces: ReturnType<JsonArraySplitter['push']>): Generator<RawRow> {
    for (const p of pieces) {
      if ('fatal' in p) throw new UsageError(`--input ${file}: ${p.fatal} (after row ${row})`);
      row++;
      yield parseValue(row, p.text);
    }
  };
  for await (const chunk of stream()) yield* take(splitter.push(chunk));
  yield* take(splitter.end());
}

function parseValue(row: number, text: string): RawRow {
  let value: unknown;
  try {
    value = parseJson(text) as unknown;
  } catch (err) {
    return { row, error: `not valid JSON: ${(err as Error).message}` };
  }
  return nestedDeeperThan(value) ? { row, error: tooDeepMessage() } : { row, value };
}
