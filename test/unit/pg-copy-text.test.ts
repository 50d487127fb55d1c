/**
 * The text of PostgreSQL's `COPY … FROM STDIN` (src/mirror/dialect/copy-text.ts), without a
 * server: the four bytes the format gives a meaning escaped and nothing else, NULL as `\N` and
 * apart from the text `\N` and the empty string, numbers and big integers as their digits, and
 * only the columns some row has a value in (the key always). The server's reading of this text is
 * tested against a real one in test/mirror/pg-copy-values.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { copyText, copyValue, sentColumns } from '../../src/mirror/dialect/copy-text.js';

/** Reads one COPY text field back as PostgreSQL's text format defines it (null for `\N`). */
function readField(f: string): string | null {
  if (f === '\\N') return null;
  return f.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', '\\': '\\' })[c] ?? c);
}

describe('COPY text', () => {
  it('escapes backslash, tab, newline and carriage return, and nothing else', () => {
    expect(copyValue('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(copyValue('\\N')).toBe('\\\\N');
    expect(copyValue('\\.')).toBe('\\\\.');
    expect(copyValue('')).toBe('');
    expect(copyValue('中文 😀 "q" \'s\' ,;|')).toBe('中文 😀 "q" \'s\' ,;|');
    expect(copyValue('{"a":"x\\ny"}')).toBe('{"a":"x\\\\ny"}');
  });

  it('writes NULL as \\N and numbers as their digits', () => {
    expect(copyValue(null)).toBe('\\N');
    expect(copyValue(undefined)).toBe('\\N');
    expect(copyValue(0)).toBe('0');
    expect(copyValue(-1.5e-7)).toBe('-1.5e-7');
    expect(copyValue(9223372036854775807n)).toBe('9223372036854775807');
    expect(copyValue(new Uint8Array([1, 255]))).toBe('\\\\x01ff');
  });

  it('sends the key and the columns some row has a value in, in order', () => {
    const rows = [
      [1, null, null, 'x', null],
      [2, null, '', null, null],
    ];
    expect(sentColumns(5, rows, [0])).toEqual([0, 2, 3]);
    expect(sentColumns(3, [[null, null, null]], [1])).toEqual([1]);
    expect(sentColumns(2, [], [0, 1])).toEqual([0, 1]);
  });

  it('one line a row, tab-separated, that reads back to the values written', () => {
    const values = ['tab\there', 'line\nbreak\r\n', 'back\\slash\\', '\\N', '', '😀'];
    const rows = values.map((v, i) => [i + 1, v, null, i % 2 === 0 ? null : i]);
    const sent = sentColumns(4, rows, [0]);
    expect(sent).toEqual([0, 1, 3]);
    const text = copyText(rows, sent);
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(values.length);
    expect(lines.map((l) => l.split('\t').map(readField))).toEqual(
      rows.map((r) => [String(r[0]), r[1], r[3] === null ? null : String(r[3])]),
    );
    expect(copyText([], [0])).toBe('');
  });
});
