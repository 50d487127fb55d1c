/**
 * What a report shows, independent of where it is drawn: a title, sections (tables with an
 * optional bar per row, funnels, column charts, text) and notes (formulas, requests made). The
 * terminal view and the HTML page both draw this one structure, so they show the same numbers.
 */
import type { Series } from './chart.js';

/** A table column. */
export interface Column {
  title: string;
  align?: 'left' | 'right';
}

/** A horizontal bar per table row, drawn in a last column. */
interface RowBars {
  title: string;
  values: (number | null)[];
  max: number;
}

/** One stage of a funnel: a bar for the count and its rate. */
export interface Stage {
  label: string;
  count: number;
  rate: string;
}

export type Section =
  | { kind: 'heading'; text: string }
  | { kind: 'text'; lines: string[] }
  | { kind: 'table'; columns: Column[]; rows: string[][]; bar?: RowBars }
  | { kind: 'funnel'; stages: Stage[]; max: number }
  | { kind: 'columns'; labels: string[]; series: Series[] };

/** A report ready to draw. */
export interface ReportView {
  title: string;
  subtitle?: string;
  sections: Section[];
  notes: string[];
}
