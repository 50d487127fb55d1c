/**
 * The table view for people: terminal-width aware, colour only when the IO allows it.
 * Loaded lazily (scripts do not need it). Every name and value is shown
 * terminal-safe and cut by columns, never inside an escape or a grapheme (terminal-text.ts).
 */
import type { FlatRecord } from '../listing/record-text.js';
import type { IO } from './io.js';
import { fitText, terminalSafe, textWidth } from './terminal-text.js';

/**
 * What makes a run of white space one space in a cell: a line break or a tab (a record is one
 * row; U+2028/U+2029 are line breaks too), or a BOM (U+FEFF: no width of its own, which would
 * shift the columns). `\s+` folded every run of any space (a trial's `営業部　部長`, with an
 * ideographic space U+3000, showed as `営業部 部長`, and pasted into `--filter` matched nothing;
 * two ASCII spaces showed as one). Spaces alone stay as stored: U+3000, and the no-break and
 * other Unicode spaces too (U+00A0, U+2000–U+200A, U+202F, U+205F) — each is drawn as a space
 * yet is another character, so the copy a person takes from the table must keep it. Controls and
 * bidi marks are escaped after this (terminalSafe).
 */
const FOLDS = /[\t\n\v\f\r\u2028\u2029\ufeff]/;

/** A date-time as the API writes it: to the second (or finer), no zone. */
const ZONELESS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?$/;

/** A short display string for any value. */
function displayValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(displayValue).join(', ');
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('id' in o && 'type' in o) return String(o.name ?? o.email ?? o.id);
    return JSON.stringify(v);
  }
  const s = String(v);
  // The API writes date-times without a zone, meaning UTC: a person reading a table took them for
  // local times (filters and reports count days in the local zone). Marked `Z` here only; json,
  // ndjson and csv keep the API's text.
  if (ZONELESS.test(s)) return `${s}Z`;
  // Runs matched whole, then looked at: linear, where a pattern around the break backtracked.
  return FOLDS.test(s) ? s.replace(/\s+/g, (run) => (FOLDS.test(run) ? ' ' : run)) : s;
}

/** A value shown whole before text is cut: empty, a number (an id, a count) or a date or date-time. */
const SOLID = /^(?:|[-+]?\d[\d,]*(?:\.\d+)?%?|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)$/;

/** A date-time to the second (or finer), with its zone when it has one: what {@link toMinute} shortens. */
const SECONDS = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}):\d{2}(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;

/** A date-time without its seconds, its zone kept (`2026-11-30T14:06Z`, still ISO 8601); other text as it is. */
const toMinute = (s: string) => s.replace(SECONDS, '$1$2');

/** The width text columns are cut to before anything else gives way (`first…`). */
const TEXT_FLOOR = 6;

/** How far text is cut when nothing else is left to give (`fi…`). */
const TEXT_LAST = 3;

/** One row: the values of the table's columns, in their order. */
type Row = readonly unknown[];

/** Columns a value takes once made terminal-safe. */
const shownWidth = (s: string) => textWidth(terminalSafe(s));

/**
 * Rows laid out before the first is written: the column widths come from them (the first page of
 * a listing), so memory stays flat however many rows follow. A later, wider value is cut with `…`.
 */
const TABLE_SAMPLE = 1000;

/** A table written as rows arrive (each row the values of the columns): `add` and `end` return the text to write next. */
export interface TableStream {
  add(rows: readonly Row[]): string;
  end(): string;
}

/**
 * Rows under a header, columns shrunk so the table fits the terminal, drawn as before with
 * cli-table3 (box lines, a bold header, grey borders in colour) but written by hand: measured,
 * cli-table3 took time growing faster than the rows (45 s for 20,000) and held every row.
 */
export function tableStream(columns: string[], io: IO, explicit: boolean): TableStream {
  let sample: Row[] | undefined = [];
  let layout: Layout | undefined;
  const rowsText = (rows: readonly Row[]) => {
    let text = '';
    for (const r of rows) text += layout!.row(r);
    return text;
  };
  return {
    add(rows) {
      if (layout) return rowsText(rows);
      for (const r of rows) sample!.push(r);
      if (sample!.length < TABLE_SAMPLE) return '';
      layout = lay(sample!, columns, io, explicit);
      const text = layout.top + rowsText(sample!);
      sample = undefined;
      return text;
    },
    end() {
      if (!layout) {
        if (sample!.length === 0) return io.stdoutIsTTY ? 'no records\n' : '';
        layout = lay(sample!, columns, io, explicit);
        return layout.top + rowsText(sample!) + layout.bottom;
      }
      return layout.bottom;
    },
  };
}

interface Layout {
  /** The top border and the header. */
  top: string;
  row(r: Row): string;
  bottom: string;
}

/** Columns and widths from the sample rows. */
function lay(sample: readonly Row[], columns: string[], io: IO, explicit: boolean): Layout {
  // Default columns the records do not have (a sparse --fields) are dropped; chosen ones stay.
  const shown = columns.map((_, i) => i).filter((i) => explicit || columns[i] === 'id' || sample.some((r) => r[i] !== undefined));
  const cols = shown.map((i) => columns[i]!);
  const { widths, minute } = columnWidths(sample, shown, cols, Math.max(20, io.columns - 3 * cols.length - 1));
  const shownValue = (v: unknown, i: number) => {
    const s = displayValue(v);
    return minute[i] ? toMinute(s) : s;
  };
  const paint = painter(io);
  const grey = paint.grey;
  const bar = grey('│');
  const cell = (text: string, i: number) => ` ${text}${' '.repeat(Math.max(0, widths[i]! - textWidth(text)))} `;
  const fitted = (s: string, i: number) => fitText(s, widths[i]!);
  // A border: each column's piece painted apart, as cli-table3 draws it.
  const border = (left: string, mid: string, right: string) =>
    widths.map((w, i) => grey((i === 0 ? left : mid) + '─'.repeat(w + 2) + (i === widths.length - 1 ? right : ''))).join('') + '\n';
  const line = (cells: string[]) => bar + cells.join(bar) + bar + '\n';
  const head = cols.map((c, i) => {
    const text = fitted(c, i);
    return ` ${paint.bold(text)}${' '.repeat(Math.max(0, widths[i]! - textWidth(text)))} `;
  });
  return {
    top: border('┌', '┬', '┐') + line(head),
    row: (r) => line(shown.map((k, i) => cell(fitted(shownValue(r[k], i), i), i))),
    bottom: border('└', '┴', '┘'),
  };
}

/**
 * The width of each column, within `budget` columns. Text (names, titles) is cut first, the
 * widest column first: a date cut to "2026-11-2…" or a number cut short says nothing, a name cut
 * with … still reads. Date-times cut to fit were "2026-11-30T14:06:…", minutes and Z lost (a
 * trial at 80 columns): when text at its floor still leaves them too little, they drop their
 * seconds (exact to the minute, zone kept), and only then is text cut further, and last of all
 * anything. `minute`: the columns whose date-times are shown without their seconds.
 */
function columnWidths(
  sample: readonly Row[],
  shown: readonly number[],
  cols: readonly string[],
  budget: number,
): { widths: number[]; minute: boolean[] } {
  const solid = shown.map((k) => sample.every((r) => SOLID.test(displayValue(r[k]))));
  const timed = shown.map((k, j) => solid[j]! && sample.some((r) => SECONDS.test(displayValue(r[k]))));
  let minute = shown.map(() => false);
  const natural = () => {
    const w = cols.map((c) => shownWidth(c));
    for (const r of sample)
      for (let j = 0; j < shown.length; j++) {
        const v = displayValue(r[shown[j]!]);
        w[j] = Math.max(w[j]!, shownWidth(minute[j] ? toMinute(v) : v));
      }
    return w;
  };
  let widths = natural();
  const over = () => widths.reduce((a, b) => a + b, 0) > budget;
  const cutTo = (floor: number, all: boolean) => {
    while (over()) {
      let i = -1;
      for (let j = 0; j < widths.length; j++) if (widths[j]! > floor && (all || !solid[j]) && (i < 0 || widths[j]! > widths[i]!)) i = j;
      if (i < 0) return;
      widths[i] = widths[i]! - 1;
    }
  };
  cutTo(TEXT_FLOOR, false);
  if (over() && timed.some(Boolean)) {
    // From the widths the values ask for again: what the seconds gave back goes to the text.
    minute = timed;
    widths = natural();
    cutTo(TEXT_FLOOR, false);
  }
  cutTo(TEXT_LAST, false);
  cutTo(TEXT_FLOOR, true);
  return { widths, minute };
}

/**
 * Colour follows svc's rule (a TTY, no NO_COLOR, no --no-color), not a library's own detection,
 * which turns colour off whenever a CI variable is set even on a real terminal. Bold and grey are
 * the only styles, written as the SGR codes chalk and cli-table3 wrote; the text inside is
 * terminal-safe, so it holds no codes of its own to nest.
 */
function painter(io: IO): { bold(s: string): string; grey(s: string): string } {
  if (!io.color) return { bold: (s) => s, grey: (s) => s };
  return { bold: (s) => (s ? `\x1b[1m${s}\x1b[22m` : s), grey: (s) => (s ? `\x1b[90m${s}\x1b[39m` : s) };
}

/** One record as a vertical field/value list (`get`). */
export function renderVertical(record: FlatRecord | undefined, io: IO): string {
  if (!record) return '';
  // 150 empty custom fields would bury the record: the table view shows only those that are set.
  const keys = Object.keys(record).filter((k) => k !== 'meta' && !(/^custom\d+$/.test(k) && (record[k] === null || record[k] === '')));
  const labels = keys.map(terminalSafe);
  const w = Math.max(...labels.map(textWidth));
  const paint = painter(io);
  const valueWidth = Math.max(20, io.columns - w - 2);
  return (
    keys
      .map((k, i) => {
        const label = labels[i]! + ' '.repeat(w - textWidth(labels[i]!));
        return `${paint.bold(label)}  ${fitText(displayValue(record[k]), valueWidth)}`;
      })
      .join('\n') + '\n'
  );
}
