/**
 * Splits a JSON array into its elements as the text streams in, so `[ {...}, {...}, ... ]` with
 * 100,000 records is parsed one record at a time. Each element's text is handed to JSON.parse on
 * its own; a bad element is one bad row, not a failed file.
 */

import { chars, MAX_RECORD_CHARS } from './input-limits.js';

/** One element of the array: its text, or why the document is not an array. */
type JsonArrayPiece = { text: string } | { fatal: string };

/** Incremental splitter of a top-level JSON array (or a single top-level object). */
export class JsonArraySplitter {
  /** before: nothing seen; array: inside `[...]`; object: a lone top-level object; done: after `]`. */
  private mode: 'before' | 'array' | 'object' | 'done' = 'before';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private buf = '';
  private bom = true;

  /** Feeds a chunk; returns the elements it completed. */
  push(chunk: string): JsonArrayPiece[] {
    const out: JsonArrayPiece[] = [];
    let start = 0;
    if (this.bom && chunk.length) {
      this.bom = false;
      if (chunk.charCodeAt(0) === 0xfeff) start = 1;
    }
    let from = start;
    for (let i = start; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.mode === 'before') {
        if (/\s/.test(c)) continue;
        if (c === '[') this.mode = 'array';
        else if (c === '{') {
          // A single record (`svc … get -o json`): one element.
          this.mode = 'object';
          this.depth = 1;
          this.buf = '{';
        } else {
          out.push({ fatal: `expected a JSON array of records, found "${c}"` });
          this.mode = 'done';
          return out;
        }
        from = i + 1;
        continue;
      }
      if (this.mode === 'done') {
        if (!/\s/.test(c)) {
          out.push({ fatal: 'unexpected text after the end of the JSON array' });
          return out;
        }
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') this.inString = false;
        continue;
      }
      if (c === '"') this.inString = true;
      else if (c === '{' || c === '[') this.depth++;
      else if (c === '}' || c === ']') {
        if (this.depth === 0 && c === ']' && this.mode === 'array') {
          this.buf += chunk.slice(from, i);
          this.emit(out);
          this.mode = 'done';
          from = i + 1;
          continue;
        }
        this.depth--;
        if (this.depth === 0 && this.mode === 'object') {
          this.buf += chunk.slice(from, i + 1);
          this.emit(out);
          this.mode = 'done';
          from = i + 1;
        }
      } else if (c === ',' && this.depth === 0 && this.mode === 'array') {
        this.buf += chunk.slice(from, i);
        if (this.buf.trim() === '') {
          out.push({ text: '' });
          this.buf = '';
        } else this.emit(out);
        from = i + 1;
      }
    }
    if (this.mode === 'array' || this.mode === 'object') {
      this.buf += chunk.slice(from);
      if (this.buf.length > MAX_RECORD_CHARS) {
        out.push({ fatal: `a record is longer than ${chars(MAX_RECORD_CHARS)}, the cap on one record` });
        this.mode = 'done';
        this.buf = '';
      }
    }
    return out;
  }

  /** Ends the input; reports a document that stops before its closing bracket. */
  end(): JsonArrayPiece[] {
    if (this.mode === 'before') return [{ fatal: 'the file is empty (expected a JSON array of records)' }];
    if (this.mode === 'array' || this.mode === 'object') return [{ fatal: 'the JSON document ends before its closing bracket' }];
    return [];
  }

  private emit(out: JsonArrayPiece[]): void {
    const text = this.buf.trim();
    this.buf = '';
    // `[]` has no elements: the empty text before `]` is not one.
    if (text !== '') out.push({ text });
  }
}
