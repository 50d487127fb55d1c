/**
 * Caps on one piece of a bulk input file. Files are streamed, so their length is free; one cell
 * or one record is held whole, and a hostile or broken file (an unclosed quote swallows the rest
 * of the file into one cell) would otherwise cost gigabytes. Real records are far below: the
 * longest attribute the spec allows is 65,535 characters.
 */
import { grouped } from '../../grouped.js';

/** Longest CSV cell. */
export const MAX_CELL_CHARS = 1_000_000;

/** Longest record: a CSV record, an NDJSON line, an element of a JSON array. */
export const MAX_RECORD_CHARS = 10_000_000;

/** `1,000,000 characters`. */
export function chars(n: number): string {
  return `${grouped(n)} characters`;
}
