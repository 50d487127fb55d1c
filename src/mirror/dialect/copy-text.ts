/**
 * Rows in the text format of PostgreSQL's `COPY … FROM STDIN` (postgres.ts writes a page with
 * it): one line a row, columns separated by a tab, NULL as `\N`, and in a value the four bytes
 * the format gives a meaning escaped with a backslash (backslash, tab, newline, carriage return).
 * Every other character goes as it is (the connection is UTF-8); the server parses each value with
 * its column's input function, as a cast from text does.
 *
 * Only the columns of `sent` are written (the columns that have a value in some row: a page of
 * prospects has ~190 custom fields, most of them null in every row); COPY leaves the others NULL.
 */
import type { SqlValue } from '../sqlite.js';

/** The characters COPY's text format escapes. */
const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value as COPY's text format writes it. */
export function copyValue(v: SqlValue | undefined): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'string') return SPECIAL.test(v) ? v.replace(SPECIALS, (c) => ESCAPED[c]!) : v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  // Bytes (no mirror column holds them): bytea's hex form, its backslash escaped.
  return `\\\\x${Buffer.from(v).toString('hex')}`;
}

/** The indexes of the columns with a value in some row; `always` (the key) whatever they hold. */
export function sentColumns(width: number, rows: readonly SqlValue[][], always: readonly number[]): number[] {
  const sent = new Uint8Array(width);
  for (const i of always) sent[i] = 1;
  let left = width - always.length;
  for (const r of rows) {
    for (let i = 0; i < width; i++) {
      if (sent[i] === 0 && r[i] !== null && r[i] !== undefined) {
        sent[i] = 1;
        left--;
      }
    }
    if (left === 0) break;
  }
  const out: number[] = [];
  for (let i = 0; i < width; i++) if (sent[i] === 1) out.push(i);
  return out;
}

/** The rows' `sent` columns as COPY text, every line ended by a newline. */
export function copyText(rows: readonly SqlValue[][], sent: readonly number[]): string {
  const lines: string[] = new Array(rows.length);
  for (let n = 0; n < rows.length; n++) {
    const r = rows[n]!;
    let line = copyValue(r[sent[0]!]);
    for (let k = 1; k < sent.length; k++) line += `\t${copyValue(r[sent[k]!])}`;
    lines[n] = line;
  }
  return rows.length === 0 ? '' : `${lines.join('\n')}\n`;
}
