/**
 * A streaming RFC 4180 CSV parser: text goes in chunk by chunk, whole records come out, so a
 * 100,000-row file never sits in memory. Quoted fields may hold commas, doubled quotes and
 * newlines; CRLF and LF both end a record; a UTF-8 byte order mark is dropped; blank lines are
 * skipped (a trailing newline is not an empty record). The delimiter is a comma unless given:
 * spreadsheets in much of Europe write `;`, and "Unicode text" exports use tabs.
 */

import { chars, MAX_CELL_CHARS, MAX_RECORD_CHARS } from './input-limits.js';

// Parser states.
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
/** A quote inside a quoted field: either the closing quote or the first of `""`. */
const QUOTE_IN_QUOTED = 3;

const recordTooLong = () => new Error(`a record is longer than ${chars(MAX_RECORD_CHARS)}, the cap on one record`);

/** Incremental CSV parser. */
export class CsvParser {
  private state = FIELD_START;
  private field = '';
  private record: string[] = [];
  /** A CR ended the last record; a LF right after it belongs to the same line break. */
  private afterCr = false;
  private first = true;

  /** Characters of the record's finished fields, with a delimiter each. */
  private recordChars = 0;
  /**
   * Empty cells counted but not yet in `record` (they go in before the next non-empty field, or
   * at the end of the record): a record of delimiters past the cap, however many chunks it
   * spans, is refused before they are held.
   */
  private empties = 0;

  /** @param delimiter one character between fields (`,` `;` tab …) */
  constructor(private readonly delimiter = ',') {
    if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r')
      throw new Error(`bad CSV delimiter ${JSON.stringify(delimiter)}`);
  }

  /**
   * Parses a chunk; returns the records it completed.
   * @throws Error when a cell or a record passes its cap (input-limits.ts)
   */
  push(chunk: string): string[][] {
    const out: string[][] = [];
    const d = this.delimiter;
    let i = 0;
    if (this.first && chunk.length > 0) {
      this.first = false;
      if (chunk.charCodeAt(0) === 0xfeff) i = 1;
    }
    for (; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.afterCr) {
        this.afterCr = false;
        if (c === '\n') continue;
      }
      let state = this.state;
      if (state === FIELD_START) {
        if (c === '"') {
          this.state = QUOTED;
          continue;
        }
        state = this.state = UNQUOTED;
      }
      if (state === UNQUOTED) {
        if (c === d) {
          this.endField();
          // The delimiters right after it end empty cells: counted at once.
          let j = i + 1;
          while (j < chunk.length && chunk[j] === d) j++;
          if (j > i + 1) this.emptyFields(j - i - 1);
          i = j - 1;
        } else if (c === '\n' || c === '\r') this.endRecord(out, c);
        else {
          // Copy the run of ordinary characters at once: much faster than one at a time.
          let j = i;
          while (j < chunk.length && chunk[j] !== d && chunk[j] !== '\n' && chunk[j] !== '\r') j++;
          this.field += chunk.slice(i, j);
          i = j - 1;
        }
      } else if (state === QUOTED) {
        const end = chunk.indexOf('"', i);
        if (end < 0) {
          this.field += chunk.slice(i);
          i = chunk.length;
        } else {
          this.field += chunk.slice(i, end);
          i = end;
          this.state = QUOTE_IN_QUOTED;
        }
      } else if (c === '"') {
        this.field += '"';
        this.state = QUOTED;
      } else if (c === d) this.endField();
      else if (c === '\n' || c === '\r') this.endRecord(out, c);
      else {
        // `"ab"c`: not RFC 4180; keep the text rather than lose it.
        this.field += c;
        this.state = UNQUOTED;
      }
    }
    this.checkSize();
    return out;
  }

  private checkSize(): void {
    if (this.field.length > MAX_CELL_CHARS) {
      const hint = this.state === QUOTED ? ' (is a quote left open?)' : '';
      throw new Error(`a cell is longer than ${chars(MAX_CELL_CHARS)}, the cap on one cell${hint}`);
    }
    if (this.recordChars + this.field.length > MAX_RECORD_CHARS) throw recordTooLong();
  }

  /**
   * Ends the input; returns the last record when the file does not end with a newline.
   * @throws Error when a quoted field is never closed
   */
  end(): string[][] {
    if (this.state === QUOTED) throw new Error('a quoted field is not closed before the end of the file');
    const out: string[][] = [];
    if (this.state !== FIELD_START || this.record.length > 0 || this.empties > 0) this.endRecord(out, '\n');
    return out;
  }

  private endField(): void {
    this.checkSize();
    // The delimiter counts too: a record of commas alone holds no text but one cell per comma,
    // and 80 MB of them would otherwise pass the cap as a record of 0 characters.
    this.recordChars += this.field.length + 1;
    if (this.field === '') this.empties++;
    else {
      this.pushEmpties();
      this.record.push(this.field);
    }
    this.field = '';
    this.state = FIELD_START;
  }

  /** `n` empty cells in a row: what `n` calls of {@link endField} with an empty field do. */
  private emptyFields(n: number): void {
    // endField checks the record before counting each cell; the last check sees n − 1 of them.
    if (this.recordChars + n - 1 > MAX_RECORD_CHARS) throw recordTooLong();
    this.recordChars += n;
    this.empties += n;
  }

  private pushEmpties(): void {
    for (; this.empties > 0; this.empties--) this.record.push('');
  }

  private endRecord(out: string[][], c: string): void {
    this.endField();
    this.pushEmpties();
    const rec = this.record;
    this.record = [];
    this.recordChars = 0;
    if (c === '\r') this.afterCr = true;
    // A blank line is one empty field: not a record.
    if (rec.length === 1 && rec[0] === '') return;
    out.push(rec);
  }
}

/** Delimiters {@link sniffDelimiter} chooses from, in the order ties are broken. */
const SNIFFED_DELIMITERS = [',', ';', '\t'] as const;

/**
 * The delimiter of a CSV file from its first line (the header): the candidate that occurs most
 * often outside quotes; a comma when none does (a file of one column). Header names hold none
 * of them in practice, so the count is the number of columns less one.
 */
export function sniffDelimiter(text: string): string {
  const counts = new Map<string, number>(SNIFFED_DELIMITERS.map((c) => [c, 0]));
  let quoted = false;
  for (let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1);
  }
  let best = ',';
  for (const [c, n] of counts) if (n > counts.get(best)!) best = c;
  return best;
}

/**
 * Undoes the formula neutralising of our CSV output (`'=x` → `=x`, `''=x` → `'=x`), at the start
 * of the cell and after each `;` (`vip;'=x` → `vip;=x`): the `'` is added only before `= + - @`,
 * tab, CR and `'` itself, so removing it there restores the value. A cell like `'abc` (from
 * another tool) stays as it is.
 */
export function unneutralise(cell: string): string {
  const start = cell.length > 1 && cell[0] === "'" && /^[=+\-@\t\r']/.test(cell.slice(1)) ? cell.slice(1) : cell;
  return start.indexOf(";'") < 0 ? start : start.replace(/;'(?=[=+\-@\t\r'])/g, ';');
}

/**
 * The items of a list cell as our CSV output joins them (`joinList` in output/csv.ts): split at
 * each `;` that is not escaped, `\;` and `\\` turned back into `;` and `\` (any other `\` is
 * kept), items trimmed, empty ones dropped.
 */
export function splitList(cell: string): string[] {
  if (cell.indexOf('\\') < 0)
    return cell
      .split(';')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  const out: string[] = [];
  let item = '';
  for (let i = 0; i < cell.length; i++) {
    const c = cell[i]!;
    if (c === '\\' && (cell[i + 1] === ';' || cell[i + 1] === '\\')) item += cell[++i];
    else if (c === ';') {
      out.push(item);
      item = '';
    } else item += c;
  }
  out.push(item);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}
