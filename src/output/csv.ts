/**
 * CSV cells (RFC 4180 quoting) with formula neutralising: a cell that starts with `= + - @`
 * (or a tab/CR, which spreadsheets also treat as formula starts) gets a leading `'`. So that
 * the prefix can always be taken off again on import, a value that itself starts with `'` gets
 * one too (`'=x` is written `''=x`): export then import gives back every value unchanged.
 */

/** A value as one CSV cell: lists joined by `;`, objects as JSON. */
export function csvCell(value: unknown): string {
  // The common cells first: empty, and text (a listing has hundreds of cells a record).
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return quote(neutralise(value));
  let s: string;
  if (Array.isArray(value)) s = value.map((v) => (typeof v === 'object' && v !== null ? cellId(v) : String(v))).join(';');
  else if (typeof value === 'object') s = cellId(value);
  else s = String(value);
  return quote(neutralise(s));
}

function cellId(v: object): string {
  // Included records in a CSV cell collapse back to their id; full objects belong in JSON output.
  const o = v as { id?: unknown };
  return o.id !== undefined && 'type' in o ? String(o.id) : JSON.stringify(v);
}

/**
 * Prefixes `'` to text a spreadsheet would run as a formula, and to text starting with `'`
 * (which would otherwise lose its quote on import: see `unneutralise` in bulk/csv-parse.ts).
 */
export function neutralise(s: string): string {
  const c = s.charCodeAt(0);
  if (c !== 61 && c !== 43 && c !== 45 && c !== 64 && c !== 9 && c !== 13 && c !== 39) return s;
  // Numbers like -5 are data, not formulas: leave them readable.
  if (/^[-+]\d+(\.\d+)?$/.test(s)) return s;
  return /^[=+\-@\t\r']/.test(s) ? `'${s}` : s;
}

const SPECIAL = /[",\r\n]/;
function quote(s: string): string {
  return SPECIAL.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV line (with CRLF? no: `\n`, what Unix tools expect). */
export function csvLine(values: readonly unknown[]): string {
  // One array reused for every line: a listing writes hundreds of cells a record.
  const n = values.length;
  cells.length = n;
  for (let i = 0; i < n; i++) cells[i] = csvCell(values[i]);
  const line = `${cells.join(',')}\n`;
  cells.length = 0;
  return line;
}
const cells: string[] = [];
