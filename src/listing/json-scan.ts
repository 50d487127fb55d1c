/**
 * A strict JSON scanner over UTF-8 bytes, for listing pages (page-parse.ts): each function gives
 * the index after the value (string, number, object…) at `i`, or -1 when the bytes there are not
 * JSON. Bytes of multi-byte characters only occur in strings and are never taken for JSON's own
 * characters. What the scan notices on its way (long integers, line breaks, odd keys) is kept in
 * the scanner's `flags`. One scanner per listing (pages.ts): a scan is synchronous, and a flags
 * field costs nothing per byte where a result object would cost an allocation. (A resource's
 * relationships are read by relationship-scan.ts, which extends this scanner.)
 */

// Performance machinery (src/README.md, Build): hand-written JSON scanner over the page's bytes.
import { MAX_JSON_DEPTH } from '../json-depth.js';

/**
 * Deepest nesting inside a region the scanner takes (it recurses; a region sits 3 levels down the
 * document). A deeper region ends the scan, and the page is parsed whole and checked like any
 * other answer, so lazy members are known to be within the depth bound.
 */
const MAX_REGION_DEPTH = MAX_JSON_DEPTH - 3;

// What the scanner noticed, as bits of its `flags`.
/** An integer literal of 16 digits or more: parsed by parseJson (it may be past 2^53). */
export const LONG = 1;
/** A byte of a multi-byte UTF-8 character: the region is decoded as UTF-8, not Latin-1. */
export const HIGH = 2;
/** A tab or line break between tokens: copied as it is, it would break an NDJSON line. */
export const BREAK = 4;
/** A key `flatten` would not place after `id` and `type`, or written with escapes. */
export const ODD_KEY = 8;
/** An escape in a string. */
export const ESC = 16;

/** True when the quote at `at` is escaped (an odd number of backslashes before it). */
export function escaped(b: Uint8Array, at: number): boolean {
  let n = 0;
  for (let k = at - 1; b[k] === 92; k--) n++;
  return (n & 1) === 1;
}

const isHex = (c: number | undefined) => c !== undefined && ((c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 102));

const TYPE = Buffer.from('type');
const META = Buffer.from('meta');
const PROTO = Buffer.from('__proto__');

/** The 16-bit hash endOfOwnKey gives a name (its UTF-8 bytes): for names known as strings. */
export function nameHash(bytes: Uint8Array): number {
  let h = 0;
  for (let i = 0; i < bytes.length; i++) h = (h * 31 + bytes[i]!) & 0xffff;
  return h;
}

/** True when `b` holds `word` at `at`. */
export function same(b: Uint8Array, at: number, word: Uint8Array): boolean {
  for (let k = 0; k < word.length; k++) if (b[at + k] !== word[k]) return false;
  return true;
}

/**
 * The scanner: each `endOf…` gives the index after the value at `i`, or -1 when the bytes there
 * are not JSON, and notes in `flags` what it saw on the way.
 */
export class JsonScanner {
  /** What the scan noticed since it was last cleared (LONG, HIGH, BREAK, ODD_KEY, ESC). */
  flags = 0;
  /** The hash of the last own key endOfOwnKey read. */
  keyHash = 0;
  /**
   * Where the region's own members with a value other than `null` are, four numbers each — the
   * key's first byte and the byte after it (inside the quotes), the value's first byte and the
   * byte after it — noted by endOfObject when it reads a region's own keys. The mirror reads its
   * columns from these (attributeMarks in page-parse.ts) rather than walking the region's bytes
   * again: most of a prospect's ~220 attributes are custom fields left null. Cleared by the caller.
   */
  marks = new Int32Array(4096);
  markCount = 0;

  /** The index after the spaces at `i`; a tab or line break is noted (BREAK). */
  spaces(b: Uint8Array, i: number): number {
    let c = b[i];
    while (c === 32 || c === 9 || c === 10 || c === 13) {
      if (c !== 32) this.flags |= BREAK;
      c = b[++i];
    }
    return i;
  }

  /** The string whose opening quote is at `i`: escapes must be valid, raw control characters are not JSON. */
  endOfString(b: Uint8Array, i: number, n: number): number {
    for (i++; i < n; i++) {
      const c = b[i]!;
      if (c === 34) return i + 1;
      if (c === 92) {
        this.flags |= ESC;
        const e = b[i + 1];
        if (e === 117) {
          if (!(isHex(b[i + 2]) && isHex(b[i + 3]) && isHex(b[i + 4]) && isHex(b[i + 5]))) return -1;
          i += 5;
        } else if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) i++;
        else return -1;
      } else if (c < 32) return -1;
      else if (c > 127) this.flags |= HIGH;
    }
    return -1;
  }

  /**
   * The key of the region's own object whose opening quote is at `i`, scanned like a string and
   * noted: its hash in `names`, and ODD_KEY when `flatten` would not place it after `id` and
   * `type` (`id`, `type`, `meta`, `__proto__`, a leading digit) or when it is written with escapes
   * (what it means is not what it shows).
   */
  endOfOwnKey(b: Uint8Array, i: number, n: number, names: Uint8Array): number {
    const start = i + 1;
    let h = 0;
    for (i = start; i < n; i++) {
      const c = b[i]!;
      if (c === 34) break;
      if (c === 92 || c < 32) {
        // Escapes (or a control character, which ends the scan there).
        this.flags |= ODD_KEY;
        return this.endOfString(b, start - 1, n);
      }
      if (c > 127) this.flags |= HIGH;
      // nameHash, inline: this loop reads the name anyway.
      h = (h * 31 + c) & 0xffff;
    }
    if (i >= n) return -1;
    names[h] = 1;
    this.keyHash = h;
    const c = b[start]!;
    const len = i - start;
    if (
      (c >= 48 && c <= 57) ||
      (len === 2 && c === 105 && b[start + 1] === 100) ||
      (len === 4 && (same(b, start, TYPE) || same(b, start, META))) ||
      (len === 9 && same(b, start, PROTO))
    )
      this.flags |= ODD_KEY;
    return i + 1;
  }

  private endOfNumber(b: Uint8Array, i: number): number {
    if (b[i] === 45) i++;
    let c = b[i];
    if (c === 48) i++;
    else if (c !== undefined && c >= 49 && c <= 57) {
      const first = i;
      while ((c = b[++i]) !== undefined && c >= 48 && c <= 57);
      if (i - first >= 16) this.flags |= LONG;
    } else return -1;
    if (b[i] === 46) {
      c = b[++i];
      if (!(c !== undefined && c >= 48 && c <= 57)) return -1;
      while ((c = b[++i]) !== undefined && c >= 48 && c <= 57);
    }
    c = b[i];
    if (c === 101 || c === 69) {
      c = b[++i];
      if (c === 43 || c === 45) c = b[++i];
      if (!(c !== undefined && c >= 48 && c <= 57)) return -1;
      while ((c = b[++i]) !== undefined && c >= 48 && c <= 57);
    }
    return i;
  }

  private mark(keyStart: number, keyEnd: number, valueStart: number, valueEnd: number): void {
    let at = this.markCount;
    if (at + 4 > this.marks.length) {
      const grown = new Int32Array(this.marks.length * 2);
      grown.set(this.marks);
      this.marks = grown;
    }
    const m = this.marks;
    m[at++] = keyStart;
    m[at++] = keyEnd;
    m[at++] = valueStart;
    m[at++] = valueEnd;
    this.markCount = at;
  }

  endOfValue(b: Uint8Array, i: number, n: number, depth: number): number {
    switch (b[i]) {
      case 34:
        return this.endOfString(b, i, n);
      case 123:
        return depth < MAX_REGION_DEPTH ? this.endOfObject(b, i, n, depth + 1) : -1;
      case 91:
        return depth < MAX_REGION_DEPTH ? this.endOfArray(b, i, n, depth + 1) : -1;
      case 110:
        return b[i + 1] === 117 && b[i + 2] === 108 && b[i + 3] === 108 ? i + 4 : -1;
      case 116:
        return b[i + 1] === 114 && b[i + 2] === 117 && b[i + 3] === 101 ? i + 4 : -1;
      case 102:
        return b[i + 1] === 97 && b[i + 2] === 108 && b[i + 3] === 115 && b[i + 4] === 101 ? i + 5 : -1;
      default:
        return this.endOfNumber(b, i);
    }
  }

  private endOfArray(b: Uint8Array, i: number, n: number, depth: number): number {
    i = this.spaces(b, i + 1);
    if (b[i] === 93) return i + 1;
    for (;;) {
      i = this.endOfValue(b, i, n, depth);
      if (i < 0) return -1;
      i = this.spaces(b, i);
      const c = b[i];
      if (c === 93) return i + 1;
      if (c !== 44) return -1;
      i = this.spaces(b, i + 1);
    }
  }

  /**
   * The object at `i` (`{`), at nesting `depth` within its region (1 for the region itself); the
   * region's own keys are noted (endOfOwnKey) when `names` is given.
   */
  endOfObject(b: Uint8Array, i: number, n: number, depth: number, names?: Uint8Array): number {
    i = this.spaces(b, i + 1);
    if (b[i] === 125) return i + 1;
    for (;;) {
      if (b[i] !== 34) return -1;
      const k = names ? this.endOfOwnKey(b, i, n, names) : this.endOfString(b, i, n);
      if (k < 0) return -1;
      const keyStart = i + 1;
      i = this.spaces(b, k);
      if (b[i] !== 58) return -1;
      const valueStart = this.spaces(b, i + 1);
      i = this.endOfValue(b, valueStart, n, depth);
      if (i < 0) return -1;
      if (names && b[valueStart] !== 110) this.mark(keyStart, k - 1, valueStart, i);
      i = this.spaces(b, i);
      const c = b[i];
      if (c === 125) return i + 1;
      if (c !== 44) return -1;
      i = this.spaces(b, i + 1);
    }
  }
}
