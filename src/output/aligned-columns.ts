/**
 * Aligned columns for people (`svc runs list`, `svc schema show`): an upper-case header, each
 * column padded to its widest cell in terminal columns (CJK text takes two a character), two
 * spaces between columns, the last one not padded. With `fit`, a line wider than the terminal
 * has its `flex` column (a command line, a description), or the widest of several, cut with `…`
 * so that it fits.
 */
import { fitText, terminalSafe, textWidth } from './terminal-text.js';

/** The narrowest a cut column gets, however narrow the terminal. */
const MIN_FLEX = 12;

export function alignedColumns(
  cols: readonly string[],
  rows: readonly (readonly string[])[],
  fit?: { width: number; flex: number | readonly number[]; min?: number },
): string {
  let safe = rows.map((r) => r.map(terminalSafe));
  const widthsOf = () => cols.map((c, i) => Math.max(c.length, ...safe.map((r) => textWidth(r[i] ?? ''))));
  let widths = widthsOf();
  if (fit) {
    const total = widths.reduce((a, b) => a + b, 0) + 2 * (cols.length - 1);
    if (total > fit.width) {
      // Several flex columns: the widest is cut first, one cell at a time, none below the minimum.
      const flex = typeof fit.flex === 'number' ? [fit.flex] : fit.flex;
      const min = fit.min ?? MIN_FLEX;
      const room = [...widths];
      for (let over = total - fit.width; over > 0; over--) {
        let i = -1;
        for (const k of flex) if (room[k]! > min && (i < 0 || room[k]! > room[i]!)) i = k;
        if (i < 0) break;
        room[i]! -= 1;
      }
      safe = safe.map((r) => r.map((v, i) => (flex.includes(i) ? fitText(v, room[i]!) : v)));
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
