/**
 * The table view for people: terminal-width aware, colour only when the IO allows it.
 * Loaded lazily (cli-table3 and chalk are not needed by scripts). Every name and value is shown
 * terminal-safe and cut by columns, never inside an escape or a grapheme (terminal-text.ts).
 */
import Table from 'cli-table3';
import chalk, { Chalk, type ColorSupportLevel } from 'chalk';
import type { FlatRecord } from './flatten.js';
import type { IO } from './io.js';
import { pick } from './render.js';
import { fitText, terminalSafe, textWidth } from './terminal-text.js';

/** A short display string for any value. */
export function displayValue(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(displayValue).join(', ');
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('id' in o && 'type' in o) return String(o.name ?? o.email ?? o.id);
    return JSON.stringify(v);
  }
  return String(v).replace(/\s+/g, ' ');
}

/** Columns a value takes once made terminal-safe. */
const shownWidth = (s: string) => textWidth(terminalSafe(s));

/** Rows under a header, columns shrunk so the table fits the terminal. */
export function renderTable(rows: FlatRecord[], columns: string[], io: IO, explicit: boolean): string {
  if (rows.length === 0) return io.stdoutIsTTY ? 'no records\n' : '';
  // Default columns the records do not have (a sparse --fields) are dropped; chosen ones stay.
  const cols = explicit ? columns : columns.filter((c) => c === 'id' || rows.some((r) => pick(r, c) !== undefined));
  const cells = rows.map((r) => cols.map((c) => displayValue(pick(r, c))));
  // A loop, not Math.max(...cells): a spread of 100,000 rows overflows the stack.
  const widths = cols.map((c) => shownWidth(c));
  for (const row of cells) for (let i = 0; i < row.length; i++) widths[i] = Math.max(widths[i]!, shownWidth(row[i]!));
  const budget = Math.max(20, io.columns - 3 * cols.length - 1);
  while (widths.reduce((a, b) => a + b, 0) > budget) {
    const i = widths.indexOf(Math.max(...widths));
    if (widths[i]! <= 6) break;
    widths[i] = widths[i]! - 1;
  }
  const paint = painter(io);
  const head = cols.map((c, i) => paint.bold(fitText(c, widths[i]!)));
  const table = new Table({
    head,
    colWidths: widths.map((w) => w + 2),
    style: { head: [], border: io.color ? ['grey'] : [], compact: true },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    wordWrap: false,
  });
  for (const row of cells) table.push(row.map((c, i) => fitText(c, widths[i]!)));
  return table.toString() + '\n';
}

/**
 * Colour follows svc's rule (a TTY, no NO_COLOR, no --no-color), not chalk's own detection, which
 * turns colour off whenever a CI variable is set even on a real terminal.
 */
function painter(io: IO): InstanceType<typeof Chalk> {
  return new Chalk({ level: io.color ? (Math.max(chalk.level, 1) as ColorSupportLevel) : 0 });
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
