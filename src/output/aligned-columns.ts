/**
 * Aligned columns for people (`svc runs list`, `svc schema show`): an upper-case header, each
 * column padded to its widest cell in terminal columns (CJK text takes two a character), two
 * spaces between columns, the last one not padded. With `fit`, a line wider than the terminal
 * has its `flex` column (a command line, a description) cut with `…` so that it fits; given
 * several, the widest of them is cut first.
 */
import { fitText, terminalSafe, textWidth } from './terminal-text.js';

/** The narrowest a cut column gets, however narrow the terminal. */
const MIN_FLEX = 12;

export function alignedColumns(
  cols: readonly string[],
  rows: readonly (readonly string[])[],
  fit?: { width: number; flex: number | readonly number[] },
): string {
  let safe = rows.map((r) => r.map(terminalSafe));
  const widthsOf = () => cols.map((c, i) => Math.max(c.length, ...safe.map((r) => textWidth(r[i] ?? ''))));
  let widths = widthsOf();
  if (fit) {
    let over = widths.reduce((a, b) => a + b, 0) + 2 * (cols.length - 1) - fit.width;
    if (over > 0) {
      // Several flex columns: the widest is cut first, so that a long command line and a long
      // count of rows share what the others leave (one alone was cut to 12 and the line still
      // wrapped at 80 columns, a trial).
      const flex = typeof fit.flex === 'number' ? [fit.flex] : fit.flex;
      const room = new Map(flex.map((i) => [i, widths[i]!]));
      while (over > 0) {
        let widest = -1;
        for (const [i, w] of room) if (w > MIN_FLEX && (widest < 0 || w > room.get(widest)!)) widest = i;
        if (widest < 0) break;
        room.set(widest, room.get(widest)! - 1);
        over--;
      }
      safe = safe.map((r) => r.map((v, i) => (room.has(i) ? fitText(v, room.get(i)!) : v)));
      widths = widthsOf();
    }
  }
  const line = (vals: readonly string[]) =>
    vals
      .map((v, i) => (i === vals.length - 1 ? v : v + ' '.repeat(Math.max(0, widths[i]! - textWidth(v)))))
      .join('  ')
      .trimEnd() + '\n';
  return line(cols.map((c) => c.toUpperCase())) + safe.map(line).join('');
}
