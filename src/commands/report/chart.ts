/**
 * Terminal charts as pure functions of numbers, width and style: horizontal bars in eighths of a
 * cell (Unicode blocks) or whole cells (`#`, for `--ascii` and NO_COLOR), and grouped vertical
 * columns. Colour is applied by a painter the caller passes (chalk on a TTY); widths are computed
 * on the plain text, so painted and plain output line up the same. Names (sequences, templates,
 * prospects, mailboxes) come from the org: `width` and `fit` show them through the one escaping
 * path of every human view (output/terminal-text.ts), so no name can drive the terminal.
 */
import { fitText, terminalSafe, textWidth } from '../../output/terminal-text.js';

/** What a bar or column stands for, so that a painter can colour it. */
export type Role = 'bar' | 'dim' | 'good' | 'bad' | 'head' | `series${number}`;

/** How to draw: ASCII or Unicode, and an optional painter. */
export interface ChartStyle {
  ascii: boolean;
  paint?: (text: string, role: Role) => string;
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
/** Fill of series k in ASCII, and in Unicode without colour (where shading tells series apart). */
const ASCII_FILL = ['#', '=', '*', '+', 'o'];
const SHADE_FILL = ['█', '▒', '░', '▓', '▚'];
const VERTICAL = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/** Paints text when the style has a painter (and the text is not empty). */
export function paint(style: ChartStyle, text: string, role: Role): string {
  return style.paint && text.trim() ? style.paint(text, role) : text;
}

/**
 * A horizontal bar for `value` out of `max` in at most `width` cells (unpadded). A value above 0
 * always shows at least a sliver, so that "a little" never looks like "none".
 */
export function barText(value: number, max: number, width: number, ascii: boolean): string {
  if (!(value > 0) || !(max > 0) || width <= 0) return '';
  const share = Math.min(1, value / max);
  if (ascii) return '#'.repeat(Math.max(1, Math.round(share * width)));
  const eighths = Math.max(1, Math.round(share * width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]!;
}

/** Terminal columns of text as shown (escaped; wide characters count two). */
export function width(text: string): number {
  return textWidth(terminalSafe(text));
}

/** Text escaped, then padded or cut to exactly `w` columns (… marks a cut, never inside an escape). */
export function fit(text: string, w: number, align: 'left' | 'right' = 'left'): string {
  const shown = fitText(text, w);
  const pad = ' '.repeat(Math.max(0, w - textWidth(shown)));
  return align === 'left' ? shown + pad : pad + shown;
}

/** One series of a column chart. */
export interface Series {
  name: string;
  values: number[];
}

/**
 * Grouped vertical columns: for each label, one column per series (`colWidth` cells each), a gap
 * between groups, `height` rows, a y-axis with the maximum on top and 0 on the axis line, the
 * labels below, a legend.
 */
export function columnChart(
  series: readonly Series[],
  labels: readonly string[],
  opts: { height: number; colWidth: number; style: ChartStyle },
): string[] {
  const { height, colWidth, style } = opts;
  const max = Math.max(0, ...series.flatMap((s) => s.values));
  const axisW = Math.max(String(max).length, 1);
  const groupW = series.length * colWidth + 1;
  const lines: string[] = [];
  for (let row = height; row >= 1; row--) {
    // The top row is labelled with the maximum; 0 goes on the axis below the bottom row (that row
    // holds the smallest values above 0: labelled 0, a column of 1 read as none).
    let line = fit(row === height ? String(max) : '', axisW, 'right') + ' ' + (style.ascii ? '|' : '│');
    for (let i = 0; i < labels.length; i++) {
      for (let k = 0; k < series.length; k++) {
        const v = series[k]!.values[i] ?? 0;
        const eighths = max > 0 ? Math.round((v / max) * height * 8) : 0;
        // A non-zero value shows at least the lowest block.
        const filled = Math.max(v > 0 ? 1 : 0, eighths) - (row - 1) * 8;
        const cell = columnCell(filled, k, row, style);
        line += paint(style, cell.repeat(colWidth), `series${k}`);
      }
      line += ' ';
    }
    lines.push(line.replace(/\s+$/, ''));
  }
  lines.push(fit('0', axisW, 'right') + ' ' + (style.ascii ? '+' : '└') + (style.ascii ? '-' : '─').repeat(labels.length * groupW));
  lines.push(
    ' '.repeat(axisW + 2) +
      labels
        .map((l) => fit(l, groupW - 1) + ' ')
        .join('')
        .replace(/\s+$/, ''),
  );
  lines.push(
    ' '.repeat(axisW + 2) +
      legend(
        series.map((s) => s.name),
        style,
      ),
  );
  return lines;
}

/**
 * One cell of a column: `filled` eighths of it (≤ 0 empty, ≥ 8 full). With colour every series
 * gets eighth blocks; without, series 0 does and the others fill whole cells with their own shade
 * (or ASCII character), so that the series stay apart in black and white.
 */
function columnCell(filled: number, k: number, row: number, style: ChartStyle): string {
  if (filled <= 0) return ' ';
  const own = style.ascii ? ASCII_FILL[k % ASCII_FILL.length]! : style.paint || k === 0 ? '█' : SHADE_FILL[k % SHADE_FILL.length]!;
  if (filled >= 8) return own;
  if (style.ascii || (!style.paint && k > 0)) return filled >= 4 || row === 1 ? own : ' ';
  return VERTICAL[filled]!;
}

/** The key of a series: its fill character, in its colour. */
function seriesKey(k: number, style: ChartStyle): string {
  const ch = style.ascii ? ASCII_FILL[k % ASCII_FILL.length]! : style.paint ? '■' : SHADE_FILL[k % SHADE_FILL.length]!;
  return paint(style, ch, `series${k}`);
}

/** "█ inbound   ▒ outbound", each key drawn as its series is. */
export function legend(names: readonly string[], style: ChartStyle): string {
  return names.map((n, k) => seriesKey(k, style) + ' ' + terminalSafe(n)).join('   ');
}
