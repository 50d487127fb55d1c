/**
 * `--failed <file>`: the rows a run could not do, in the input's own format and columns with an
 * `error` column added, so that "fix and rerun" is one edit and one command (`--input <file>`).
 * Failed rows are collected by number as the report is written (memory grows with failures,
 * not with the file); the file is written at the end by reading the input once more, so every
 * cell comes back exactly as it was read. Rows whose outcome is `unknown` are left out: they
 * may have been done, and sending them again could do them twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LocalIoError, UsageError, describeErrno } from '../../errors.js';
import type { ReportWriter } from './report.js';
import { readRows, type InputFormat, type ReadOptions } from '../input/readers.js';

/** The column (or member) holding a failed row's error. */
export const ERROR_COLUMN = 'error';

/** Collects failed rows and writes them out. */
export class FailedRows {
  private readonly errors = new Map<number, string>();

  /** @param file where `write` puts them */
  constructor(readonly file: string) {}

  /** Rows collected so far. */
  get size(): number {
    return this.errors.size;
  }

  /** A report writer that also notes every failed row. */
  collect(inner: ReportWriter): ReportWriter {
    return {
      write: (e) => {
        if (e.status === 'failed') this.errors.set(e.row, e.error ?? 'failed');
        return inner.write(e);
      },
      close: () => inner.close(),
    };
  }

  /**
   * Writes the collected rows of `input` with their errors.
   * @param bareKey the member a bare value (an id, an address) becomes in NDJSON and JSON
   * @returns the number of rows written
   */
  async write(input: string, opts: ReadOptions, bareKey: string): Promise<number> {
    const out = new FailedFile(
      this.file,
      opts.format,
      opts.dialect?.delimiter ?? ',',
      opts.dialect ? opts.dialect.bom || opts.dialect.encoding !== 'utf-8' : false,
    );
    let written = 0;
    try {
      if (this.errors.size > 0) {
        for await (const raw of readRows(input, opts)) {
          const error = this.errors.get(raw.row);
          if (error === undefined) continue;
          if (raw.csv) out.csvRow(raw.header ?? [], raw.cells ?? [], error);
          else if (typeof raw.value === 'object' && raw.value !== null && !Array.isArray(raw.value))
            out.jsonRow({ ...(raw.value as object), [ERROR_COLUMN]: error });
          else
            out.jsonRow(
              raw.value === undefined ? { row: raw.row, [ERROR_COLUMN]: error } : { [bareKey]: raw.value, [ERROR_COLUMN]: error },
            );
          written++;
        }
      }
    } finally {
      out.close();
    }
    return written;
  }
}

/** Checks before the run, without creating it, that `--failed` can be written and is not the input itself. */
export function checkFailedPath(file: string, input: string): void {
  const exists = fs.existsSync(file);
  if (exists && fs.existsSync(input) && fs.realpathSync(file) === fs.realpathSync(input)) {
    throw new UsageError(`--failed ${file}: is the input file; give another name`);
  }
  try {
    if (exists && fs.statSync(file).isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    fs.accessSync(exists ? file : path.dirname(path.resolve(file)), fs.constants.W_OK);
  } catch (err) {
    throw new UsageError(`--failed ${file}: cannot write the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Quotes a CSV cell when it holds the delimiter, a quote, a line break, or edge spaces. */
function csvQuote(cell: string, delimiter: string): string {
  return cell.includes(delimiter) || /["\r\n]/.test(cell) || cell !== cell.trim() ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/** The output file, written synchronously (small: failures only). */
class FailedFile {
  private readonly fd: number;
  private headerDone = false;
  private errorAt = -1;
  private jsonRows = 0;

  constructor(
    private readonly file: string,
    private readonly format: InputFormat,
    private readonly delimiter: string,
    bom: boolean,
  ) {
    try {
      // Owner-only: the rows of the input, names and addresses.
      this.fd = fs.openSync(file, 'w', 0o600);
    } catch (err) {
      throw new UsageError(`--failed ${file}: cannot write the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    // A spreadsheet's file goes back to the spreadsheet: a BOM tells Excel it is UTF-8.
    if (format === 'csv' && bom) this.put('\uFEFF');
    if (format === 'json') this.put('[');
  }

  private put(text: string): void {
    try {
      fs.writeSync(this.fd, text);
    } catch (err) {
      throw new LocalIoError(`--failed ${this.file}: cannot write the file: ${describeErrno(err)}`);
    }
  }

  csvRow(header: string[], cells: string[], error: string): void {
    if (!this.headerDone) {
      this.headerDone = true;
      // A failed-rows file fed back in: its error column is replaced, not doubled.
      this.errorAt = header.indexOf(ERROR_COLUMN);
      const names = this.errorAt >= 0 ? header : [...header, ERROR_COLUMN];
      this.put(names.map((c) => csvQuote(c, this.delimiter)).join(this.delimiter) + '\r\n');
    }
    const row = [...cells];
    if (this.errorAt >= 0 && row.length > this.errorAt) row[this.errorAt] = error;
    else row.push(error);
    this.put(row.map((c) => csvQuote(c, this.delimiter)).join(this.delimiter) + '\r\n');
  }

  jsonRow(value: Record<string, unknown>): void {
    const text = JSON.stringify(value);
    if (this.format === 'json') this.put(`${this.jsonRows === 0 ? '\n' : ',\n'}${text}`);
    else this.put(text + '\n');
    this.jsonRows++;
  }

  close(): void {
    try {
      if (this.format === 'json') this.put(this.jsonRows ? '\n]\n' : ']\n');
    } finally {
      fs.closeSync(this.fd);
    }
  }
}
