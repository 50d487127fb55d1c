/**
 * CSV cells (RFC 4180 quoting) with formula neutralising: a cell that starts with `= + - @`
 * (or a tab/CR, which spreadsheets also treat as formula starts) gets a leading `'`. So that
 * the prefix can always be taken off again on import, a value that itself starts with `'` gets
 * one too (`'=x` is written `''=x`): export then import gives back every value unchanged.
 *
 * The same holds after every `;`: a spreadsheet whose list separator is `;` (Excel in most of
 * continental Europe) splits our comma-separated cells there too, quotes or not, so that the
 * text after a `;` starts a cell of its own — `vip;=cmd|' /C calc'!A0` would become a formula.
 * Lists are joined with `;` (an item's own `;` escaped as `\;`, and a `\` before `\`, `;` or the
 * item's end doubled, so that an item holding `;` comes back whole); `unneutralise` and
 * `splitList` in bulk/csv-parse.ts undo both.
 */

/** A value as one CSV cell: lists joined by `;`, objects as JSON. */
export function csvCell(value: unknown): string {
  // The common cells first: empty, and text (a listing has hundreds of cells a record).
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return quote(neutralise(value));
  let s: string;
  if (Array.isArray(value)) s = joinList(value);
  else if (typeof value === 'object') s = cellId(value);
  else s = String(value);
  return quote(neutralise(s));
}

/** List items joined by `;`: an item's `;` escaped as `\;`, a `\` that would read as an escape doubled. */
function joinList(items: readonly unknown[]): string {
  let out = '';
  for (let i = 0; i < items.length; i++) {
    const v = items[i];
    const s = typeof v === 'object' && v !== null ? cellId(v) : String(v);
    if (i > 0) out += ';';
    // Only a `\` before `\`, `;` or the item's end is doubled: `back\slash` is written as it is.
    out += s.includes(';') || s.includes('\\') ? s.replace(ESCAPED, '\\$&') : s;
  }
  return out;
}

/** What a list item escapes: `;`, and a `\` followed by `\`, `;` or the end of the item. */
const ESCAPED = /\\(?=[\\;]|$)|;/g;

function cellId(v: object): string {
  // Included records in a CSV cell collapse back to their id; full objects belong in JSON output.
  const o = v as Record<string, unknown>;
  return o['id'] !== undefined && typeof o['type'] === 'string' && !NOT_FLAT.some((k) => k in o) ? String(o['id']) : JSON.stringify(v);
}

/**
 * Members a record as `flatten` makes it (an included one) never has, its attributes and
 * relationships being members of their own: an object with one is a value of its own, written
 * whole. An event's payload (`{type, id, action, changed, attributes, before}`) had been written
 * as its id, its action and changes lost (a trial). Not "every member a field the registry knows":
 * an org's own field on an included record turned its column into JSON (a review).
 */
const NOT_FLAT = ['attributes', 'relationships', 'action'];

/**
 * Prefixes `'` to text a spreadsheet would run as a formula, and to text starting with `'`
 * (which would otherwise lose its quote on import: see `unneutralise` in bulk/csv-parse.ts).
 */
export function neutralise(s: string): string {
  const first = neutraliseStart(s);
  // Most cells hold no `;`: one native scan, and they are done.
  return s.indexOf(';') < 0 ? first : first.replace(AFTER_SEMICOLON, (m, rest: string) => (NUMBER.test(rest) ? m : `;'${rest}`));
}

/** The text after a `;`, up to the next one, when it starts like a formula (or with `'`). */
const AFTER_SEMICOLON = /;([=+\-@\t\r'][^;]*)/g;
/** Numbers like -5 are data, not formulas: left readable. */
const NUMBER = /^[-+]\d+(\.\d+)?$/;

function neutraliseStart(s: string): string {
  const c = s.charCodeAt(0);
  if (c !== 61 && c !== 43 && c !== 45 && c !== 64 && c !== 9 && c !== 13 && c !== 39) return s;
  // The whole cell, as a comma-separated spreadsheet sees it: `-5;x` would be a formula there.
  if (NUMBER.test(s)) return s;
  return `'${s}`;
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
