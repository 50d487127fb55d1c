/**
 * The terminal view of a report: pure, from the report, a width and a chart style to text.
 * Legible at 80 columns: tables give their bar column what is left and cut their text columns
 * (names) before the bars get too short or the line too long, never the numbers. Every text from the org (titles, names, notes) is escaped here or
 * in `fit` (output/terminal-text.ts, as in every other human view).
 */
import { terminalSafe } from '../../output/terminal-text.js';
import { barText, columnChart, fit, paint, width, type ChartStyle } from './chart.js';
import type { ReportView, Section } from './model.js';

const MIN_BAR = 8;

/** Draws a whole report for a terminal `cols` wide. */
export function renderText(view: ReportView, cols: number, style: ChartStyle): string {
  // One cell short of the edge: a line that fills the last column wraps on some terminals.
  const w = Math.max(40, cols - 1);
  const out: string[] = [paint(style, terminalSafe(view.title), 'head')];
  if (view.subtitle)
    out.push(
      ...view.subtitle
        .split('\n')
        .flatMap((l) => wrap(terminalSafe(l), w))
        .map((l) => paint(style, l, 'dim')),
    );
  for (const s of view.sections) out.push(...section(s, w, style));
  if (view.notes.length) out.push('', ...view.notes.flatMap((n) => wrap(terminalSafe(n), w)).map((n) => paint(style, n, 'dim')));
  return out.map((l) => l.replace(/\s+$/, '')).join('\n') + '\n';
}

function section(s: Section, w: number, style: ChartStyle): string[] {
  switch (s.kind) {
    case 'heading':
      return ['', paint(style, terminalSafe(s.text), 'head')];
    case 'text':
      return s.lines.flatMap((l) => wrap(terminalSafe(l), w - 2)).map((l) => '  ' + l);
    case 'funnel': {
      const labelW = Math.max(...s.stages.map((x) => width(x.label)), 4);
      const countW = Math.max(...s.stages.map((x) => String(x.count).length), 1);
      const rateW = Math.max(...s.stages.map((x) => width(x.rate)), 1);
      const barW = Math.max(MIN_BAR, w - 2 - labelW - 1 - 1 - countW - 2 - rateW - 1);
      return s.stages.map((x) => {
        const bar = barText(x.count, s.max, barW, style.ascii);
        return (
          '  ' +
          fit(x.label, labelW) +
          ' ' +
          paint(style, bar, 'bar') +
          ' '.repeat(barW - width(bar)) +
          ' ' +
          fit(String(x.count), countW, 'right') +
          '  ' +
          fit(x.rate, rateW, 'right')
        );
      });
    }
    case 'columns':
      return columnChart(s.series, s.labels, {
        height: 8,
        colWidth: s.labels.length * (s.series.length * 2 + 1) + 8 <= w ? 2 : 1,
        style,
      }).map((l) => '  ' + l);
    case 'table':
      return table(s, w, style);
  }
}

function table(s: Extract<Section, { kind: 'table' }>, w: number, style: ChartStyle): string[] {
  const widths = s.columns.map((c, i) => Math.max(width(c.title), ...s.rows.map((r) => width(r[i] ?? ''))));
  const gaps = 2 + 2 * (s.columns.length - (s.bar ? 0 : 1));
  // Too wide (bars included, at their shortest legible): cut the text columns (names, states),
  // the widest first, down to 10 cells or their title, rather than the bars; numbers stay whole.
  let over = gaps + widths.reduce((a, b) => a + b, 0) + (s.bar ? MIN_BAR + 2 : 0) - w;
  const floor = s.columns.map((c) => (c.align === 'right' ? Number.POSITIVE_INFINITY : Math.max(10, width(c.title))));
  while (over > 0) {
    let i = -1;
    for (let k = 0; k < widths.length; k++) if (widths[k]! > floor[k]! && (i < 0 || widths[k]! > widths[i]!)) i = k;
    if (i < 0) break;
    widths[i]! -= 1;
    over -= 1;
  }
  const barW = s.bar ? Math.max(MIN_BAR, w - gaps - widths.reduce((a, b) => a + b, 0)) : 0;
  const line = (cells: string[], bar: string) =>
    '  ' + cells.map((c, i) => fit(c, widths[i]!, s.columns[i]!.align ?? 'left')).join('  ') + (s.bar ? '  ' + bar : '');
  const out = [
    paint(
      style,
      line(
        s.columns.map((c) => c.title),
        s.bar ? fit(s.bar.title, barW) : '',
      ),
      'dim',
    ),
  ];
  s.rows.forEach((r, i) => {
    const v = s.bar?.values[i];
    out.push(line(r, s.bar && v != null ? paint(style, barText(v, s.bar.max, barW, style.ascii), 'bar') : ''));
  });
  return out;
}

/** Breaks plain text at spaces into lines of at most `w` cells (a longer word stays whole). */
export function wrap(text: string, w: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && width(line) + 1 + width(word) > w) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  out.push(line);
  return out;
}
