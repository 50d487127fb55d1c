/**
 * Aligned columns for people (`svc runs list`, `svc schema show`): an upper-case header, each
 * column padded to its widest cell in terminal columns (CJK text takes two a character), two
 * spaces between columns, the last one not padded.
 */
import { terminalSafe, textWidth } from './terminal-text.js';

export function alignedColumns(cols: readonly string[], rows: readonly (readonly string[])[]): string {
  const safe = rows.map((r) => r.map(terminalSafe));
  const widths = cols.map((c, i) => Math.max(c.length, ...safe.map((r) => textWidth(r[i] ?? ''))));
  const line = (vals: readonly string[]) =>
    vals
      .map((v, i) => (i === vals.length - 1 ? v : v + ' '.repeat(Math.max(0, widths[i]! - textWidth(v)))))
      .join('  ')
      .trimEnd() + '\n';
  return line(cols.map((c) => c.toUpperCase())) + safe.map(line).join('');
}
