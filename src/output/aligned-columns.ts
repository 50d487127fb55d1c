/**
 * Aligned columns for people (`svc runs list`, `svc runs show`, `svc runs prune --dry-run`, `svc
 * schema show`, `svc profiles list`): an upper-case header, each column padded to its widest cell
 * in terminal columns (CJK text takes two a character), two spaces between columns, the last one
 * not padded.
 *
 * With `fit` (a terminal), a table wider than the terminal is fitted to it, giving up as little
 * as it can, in this order:
 * 1. A cell may run on over the empty cells after it in its row, as a spreadsheet shows it: a
 *    column whose long cells have nothing beside them (schema show's MARKS, beside the LABEL of
 *    custom fields only) gives its room to the others first, and none of its cells is cut.
 * 2. A `stack` column's cell that does not fit goes onto a line of its own under its row,
 *    indented to the second column, broken between words if need be (fitLines): a run's rows by
 *    outcome, a field's options. When none of its cells fits, the whole column goes there, its
 *    header on a second header line.
 * 3. Only then is a `flex` column narrowed and its cells wider than it cut with `…`: the column
 *    with the fewest such cells first (one long command before many labels), the widest of
 *    equals (two long cells of a row are cut alike), none below `min` columns. A cell is cut only
 *    when its row cannot fit otherwise.
 * Off a terminal (no `fit`) every cell is whole, as scripts read it.
 */
import { fitLines, fitText, terminalSafe, textWidth } from './terminal-text.js';

/** The narrowest a cut column gets, however narrow the terminal. */
const MIN_FLEX = 12;
const GAP = 2;

/** How a table is fitted to a terminal. */
interface Fit {
  /** The terminal's columns. */
  width: number;
  /** Columns whose cells may be cut with `…` when their row cannot fit otherwise (a command, a label). */
  flex: number | readonly number[];
  /** The narrowest a cut column gets ({@link MIN_FLEX} unless told). */
  min?: number;
  /** Columns whose cells, rather than being cut, go onto a line of their own under their row. */
  stack?: readonly number[];
}

export function alignedColumns(cols: readonly string[], rows: readonly (readonly string[])[], fit?: Fit): string {
  const t = measured(cols, rows);
  const natural = naturalWidths(
    t,
    t.cols.map((_, i) => i),
  );
  if (!fit || sum(natural) + GAP * (cols.length - 1) <= fit.width) return plainTable(t, natural);
  return fittedTable(t, fit);
}

/** The cells made terminal-safe, with their widths. */
interface Measured {
  cols: readonly string[];
  heads: number[];
  cells: string[][];
  widths: number[][];
}

function measured(cols: readonly string[], rows: readonly (readonly string[])[]): Measured {
  const cells = rows.map((r) => cols.map((_, i) => terminalSafe(r[i] ?? '')));
  return {
    cols,
    heads: cols.map((c) => textWidth(c)),
    cells,
    widths: cells.map((r) => r.map(textWidth)),
  };
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
/** The largest of `xs` and `floor` (a loop: a spread of 100,000 rows' widths overflows the stack). */
const widestOf = (xs: Iterable<number>, floor: number) => {
  let m = floor;
  for (const x of xs) if (x > m) m = x;
  return m;
};

/** Each shown column's width: its widest cell or its header. */
function naturalWidths(t: Measured, shown: readonly number[]): number[] {
  return shown.map((k) =>
    widestOf(
      t.widths.map((r) => r[k]!),
      t.heads[k]!,
    ),
  );
}

/** Every cell whole, each column as wide as its widest cell. */
function plainTable(t: Measured, widths: readonly number[]): string {
  const line = (vals: readonly string[]) =>
    vals
      .map((v, i) => (i === vals.length - 1 ? v : v + ' '.repeat(Math.max(0, widths[i]! - textWidth(v)))))
      .join('  ')
      .trimEnd() + '\n';
  return line(t.cols.map((c) => c.toUpperCase())) + t.cells.map(line).join('');
}

/** What a column does when the table is too wide. */
type Kind = 'fixed' | 'flex' | 'stack';

function fittedTable(t: Measured, fit: Fit): string {
  const flex = typeof fit.flex === 'number' ? [fit.flex] : fit.flex;
  const stack = fit.stack ?? [];
  const kind = t.cols.map((_, k): Kind => (stack.includes(k) ? 'stack' : flex.includes(k) ? 'flex' : 'fixed'));
  const order = [...flex, ...stack];
  // A stack column none of whose cells fits in its row leaves the row's line for good (its header
  // too), and the others are laid out again with its room.
  const dropped = new Set<number>();
  for (;;) {
    const shown = t.cols.map((_, k) => k).filter((k) => !dropped.has(k));
    let widths = planWidths(t, shown, kind, order, fit);
    let layout = placeCells(t, shown, widths, kind, fit.width);
    // A stack column as wide as the cells left on their rows: the room of those moved under them is not kept.
    const tight = widths.map((w, i) => {
      const k = shown[i]!;
      if (kind[k] !== 'stack') return w;
      return Math.min(
        w,
        widestOf(
          t.widths.flatMap((r, row) => (layout.moved[row]!.has(k) ? [] : [r[k]!])),
          t.heads[k]!,
        ),
      );
    });
    if (tight.some((w, i) => w !== widths[i])) {
      widths = tight;
      layout = placeCells(t, shown, widths, kind, fit.width);
    }
    const gone = shown.filter(
      (k) => kind[k] === 'stack' && t.cells.some((r) => r[k] !== '') && t.cells.every((r, i) => r[k] === '' || layout.moved[i]!.has(k)),
    );
    if (gone.length === 0 || shown.length - gone.length < 2) return drawn(t, shown, widths, layout, dropped, fit.width);
    for (const k of gone) dropped.add(k);
  }
}

/**
 * The widths of the shown columns, narrowed one column at a time until the table fits
 * `fit.width`: first the room no cell needs (a cell with an empty cell after it runs on over it),
 * then stack columns (their cells move under their row, the column moving the fewest first), then
 * flex columns (cut, to `min`). Fixed columns keep their width.
 */
function planWidths(t: Measured, shown: readonly number[], kind: readonly Kind[], order: readonly number[], fit: Fit): number[] {
  const widths = naturalWidths(t, shown);
  const at = new Map(shown.map((k, i) => [k, i]));
  const heads = shown.map((k) => t.heads[k]!);
  // The cells of each column with a cell after them in their row (the last column's: the edge):
  // they cannot run on, and are cut or moved when their column is narrower. Their widths,
  // narrowest first.
  const blocked = shown.map(() => [] as number[]);
  for (const [r, row] of t.cells.entries()) {
    for (const [i, k] of shown.entries()) {
      if (row[k] === '') continue;
      const next = shown[i + 1];
      if (next === undefined || row[next] !== '') blocked[i]!.push(t.widths[r]![k]!);
    }
  }
  for (const ws of blocked) ws.sort((a, b) => a - b);
  const need = blocked.map((ws, i) => Math.max(heads[i]!, ws.at(-1) ?? 0));
  /** How many cells of column `i` are wider than `w`. */
  const wider = (i: number, w: number) => {
    const ws = blocked[i]!;
    let lo = 0;
    let hi = ws.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ws[mid]! <= w) lo = mid + 1;
      else hi = mid;
    }
    return ws.length - lo;
  };
  const min = fit.min ?? MIN_FLEX;
  const candidates = order.flatMap((k) => (at.has(k) ? [at.get(k)!] : []));
  // The candidate that costs least (`cost`: how many cells it cuts or moves), the widest of equals.
  const cheapest = (ok: (i: number) => boolean, cost: (i: number) => number) => {
    let best = -1;
    let bestCost = 0;
    for (const i of candidates) {
      if (!ok(i)) continue;
      const c = cost(i);
      if (best < 0 || c < bestCost || (c === bestCost && widths[i]! > widths[best]!)) [best, bestCost] = [i, c];
    }
    return best;
  };
  const isKind = (i: number, k: Kind) => kind[shown[i]!] === k;
  let over = sum(widths) + GAP * (shown.length - 1) - fit.width;
  while (over > 0) {
    // Room no cell needs; then a stack cell moved under its row (those just as wide as the column
    // move); then a column narrowed (each of its cells wider than the new width loses a column:
    // the fewest such cells, so a column with one long cell gives before one with many; between
    // equals the widest, so two long cells of a row are cut alike).
    let i = cheapest(
      (k) => widths[k]! > need[k]!,
      () => 0,
    );
    if (i < 0)
      i = cheapest(
        (k) => isKind(k, 'stack') && widths[k]! > heads[k]!,
        (k) => wider(k, widths[k]! - 1) - wider(k, widths[k]!),
      );
    if (i < 0)
      i = cheapest(
        (k) => isKind(k, 'flex') && widths[k]! > min && widths[k]! > heads[k]!,
        (k) => wider(k, widths[k]! - 1),
      );
    if (i < 0) break;
    widths[i]! -= 1;
    over--;
  }
  return widths;
}

/** Where each row's cells go: the stack cells moved under the row, and each cell as shown (cut if it must be). */
interface Placed {
  /** Per row, the stack columns whose cell goes under it. */
  moved: Set<number>[];
  /** Per row, the text of each shown column on the row's line ('' for a moved cell). */
  shown: string[][];
}

/**
 * Each row's cells in the columns of `widths`: a cell wider than its column runs on over the
 * empty cells after it (the last one up to the edge); a stack cell that still does not fit moves
 * under the row (from the right, so that a moved one leaves its room to the cell before it); a
 * flex cell that does not fit is cut to its room.
 */
function placeCells(t: Measured, shown: readonly number[], widths: readonly number[], kind: readonly Kind[], width: number): Placed {
  const starts: number[] = [];
  let x = 0;
  for (const w of widths) {
    starts.push(x);
    x += w + GAP;
  }
  const moved: Set<number>[] = [];
  const texts: string[][] = [];
  for (const [r, row] of t.cells.entries()) {
    const text = shown.map((k) => row[k]!);
    const w = shown.map((k) => t.widths[r]![k]!);
    if (w.every((x, i) => x <= widths[i]!)) {
      // Every cell in its column: the common row, nothing to work out.
      moved.push(new Set());
      texts.push(text);
      continue;
    }
    const room = (i: number) => {
      let next = i + 1;
      while (next < shown.length && text[next] === '') next++;
      const end = next < shown.length ? starts[next]! - GAP : width;
      return Math.max(widths[i]!, end - starts[i]!);
    };
    const away = new Set<number>();
    for (let i = shown.length - 1; i >= 0; i--) {
      if (kind[shown[i]!] !== 'stack' || text[i] === '' || w[i]! <= room(i)) continue;
      away.add(shown[i]!);
      text[i] = '';
    }
    for (let i = 0; i < shown.length; i++) {
      if (text[i] !== '' && kind[shown[i]!] === 'flex' && w[i]! > room(i)) text[i] = fitText(text[i]!, room(i));
    }
    moved.push(away);
    texts.push(text);
  }
  return { moved, shown: texts };
}

/** The table's lines: the header (and the header of the dropped stack columns), each row and what goes under it. */
function drawn(
  t: Measured,
  shown: readonly number[],
  widths: readonly number[],
  placed: Placed,
  dropped: ReadonlySet<number>,
  width: number,
): string {
  const line = (vals: readonly string[]) => {
    let out = '';
    let used = 0;
    let start = 0;
    for (const [i, v] of vals.entries()) {
      if (v !== '') {
        out += ' '.repeat(Math.max(0, start - used)) + v;
        used = Math.max(used, start) + textWidth(v);
      }
      start += widths[i]! + GAP;
    }
    return out + '\n';
  };
  // Under a row, indented to the second column: the first (an id, a name) stays alone on its left.
  const indent = ' '.repeat(widths[0]! + GAP);
  const under = (texts: readonly string[]) => {
    const text = texts.filter((s) => s !== '').join('  ');
    return text === '' ? '' : fitLines(indent + text, width) + '\n';
  };
  const below = (r: number) => t.cols.map((_, k) => k).filter((k) => dropped.has(k) || placed.moved[r]!.has(k));
  let out = line(shown.map((k) => t.cols[k]!.toUpperCase()));
  out += under([...dropped].sort((a, b) => a - b).map((k) => t.cols[k]!.toUpperCase()));
  for (const [r, texts] of placed.shown.entries()) out += line(texts) + under(below(r).map((k) => t.cells[r]![k]!));
  return out;
}
