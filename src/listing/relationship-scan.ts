/**
 * Reading a resource's `"relationships":{…}` from a listing page's bytes (page-parse.ts) with the
 * strict scanner of json-scan.ts, and writing on the way what recordText writes for them (the
 * relationships text): for 16 relationships with links, ~50 objects a record that JSON.parse no
 * longer builds. `PageScanner` is the scanner of one listing's pages, with the memory it reuses
 * from page to page.
 */

// Performance machinery (src/README.md, Build): relationships written as the scanner read them.
import { ESC, HIGH, JsonScanner, ODD_KEY, same } from './json-scan.js';

/** The scanner of one listing's pages (json-scan.ts), reading relationships as well. */
export class PageScanner extends JsonScanner {
  /**
   * What endOfRelationships read besides the end: the relationships as recordText writes them when
   * there are no included records — `,"name":id`, `,"name":[ids]` or `,"name":null` for each
   * relationship with `data` — or undefined when anything is unusual (then the relationships are
   * parsed and flattened as before).
   */
  relationshipsText: string | undefined;
  /**
   * Per relationship name hash, the relationships object it was last seen in: a name written
   * twice is unusual. Made on the first relationships read (256 KB).
   */
  private lastSeenIn: Int32Array | undefined;
  /** How many relationships objects were read: the number of the current one. */
  private relationshipsCount = 0;
  /** Set by endOfName: where the member's name starts, its length, and whether it has escapes. */
  private nameStart = 0;
  private nameLength = 0;
  private nameEscaped = false;
  /** Set by endOfRelationship, endOfData and endOfIdentifier: whether what they read is usual. */
  private usual = true;
  /**
   * The relationships text being written, as bytes: `,"name":value` for each relationship read
   * so far in the current relationships object, decoded once at its end (names and ids are ASCII
   * when usual). Building it from strings cost ~50 small strings a record, a third of what a
   * listing allocated.
   */
  private text = Buffer.allocUnsafe(1024);
  private textLength = 0;
  /** Where page-parse.ts puts the rest of a page together (one buffer for every page of the listing). */
  restBuffer = Buffer.alloc(0);
  /** Where record-text.ts puts a record's text together (one for every record of the listing). */
  recordBuffer = Buffer.alloc(0);

  /** Appends `b[start..end)` to the relationships text (a few bytes: a name or an id). */
  private put(b: Uint8Array, start: number, end: number): void {
    if (this.textLength + end - start > this.text.length) this.grow(end - start);
    for (let j = start; j < end; j++) this.text[this.textLength++] = b[j]!;
  }

  /** Appends one byte to the relationships text. */
  private putByte(c: number): void {
    if (this.textLength === this.text.length) this.grow(1);
    this.text[this.textLength++] = c;
  }

  private grow(n: number): void {
    const bigger = Buffer.allocUnsafe(Math.max(this.text.length * 2, this.textLength + n));
    this.text.copy(bigger, 0, 0, this.textLength);
    this.text = bigger;
  }

  /**
   * The relationships object at `i`, its names hashed into `names`; `relationshipsText` says what
   * recordText writes for them. A usual relationship is an object with a `data` member that is null,
   * a resource identifier or a list of them, each with an `id` written as a safe integer (or its
   * digits in a string, which flatten prints as a number); its name is plain.
   */
  endOfRelationships(b: Buffer, i: number, n: number, names: Uint8Array): number {
    const current = ++this.relationshipsCount;
    const lastSeenIn = (this.lastSeenIn ??= new Int32Array(1 << 16));
    this.textLength = 0;
    let fine = true;
    i = this.spaces(b, i + 1);
    if (b[i] === 125) {
      this.relationshipsText = '';
      return i + 1;
    }
    for (;;) {
      if (b[i] !== 34) return -1;
      const before = this.flags;
      this.flags = 0;
      const k = this.endOfOwnKey(b, i, n, names);
      if (k < 0) return -1;
      if (this.flags & (ODD_KEY | HIGH) || lastSeenIn[this.keyHash] === current) fine = false;
      lastSeenIn[this.keyHash] = current;
      this.flags |= before;
      const name = i;
      i = this.spaces(b, k);
      if (b[i] !== 58) return -1;
      i = this.spaces(b, i + 1);
      if (b[i] === 123) {
        i = this.endOfRelationship(b, i, n, name, k);
        if (i < 0) return -1;
        if (!this.usual) fine = false;
      } else {
        // `null` is left out, as flatten leaves it out; anything else is unusual.
        if (b[i] !== 110) fine = false;
        i = this.endOfValue(b, i, n, 1);
        if (i < 0) return -1;
      }
      i = this.spaces(b, i);
      const c = b[i];
      if (c === 125) {
        this.relationshipsText = fine ? this.text.toString('latin1', 0, this.textLength) : undefined;
        return i + 1;
      }
      if (c !== 44) return -1;
      i = this.spaces(b, i + 1);
    }
  }

  /**
   * One relationship object, its name (quotes included) at `b[name..nameEnd)`: writes
   * `,"name":value` when it has `data` (nothing without it, as flatten leaves it out).
   */
  private endOfRelationship(b: Buffer, i: number, n: number, name: number, nameEnd: number): number {
    let hasData = false;
    let fine = true;
    i = this.spaces(b, i + 1);
    if (b[i] !== 125) {
      for (;;) {
        i = this.endOfName(b, i, n);
        if (i < 0) return -1;
        if (this.nameEscaped) fine = false;
        if (this.nameIs(b, DATA)) {
          if (hasData) fine = false;
          hasData = true;
          this.putByte(44);
          this.put(b, name, nameEnd);
          this.putByte(58);
          i = this.endOfData(b, i, n);
          if (i < 0) return -1;
          if (!this.usual) fine = false;
        } else {
          i = this.endOfValue(b, i, n, 2);
          if (i < 0) return -1;
        }
        i = this.spaces(b, i);
        const c = b[i];
        if (c === 125) break;
        if (c !== 44) return -1;
        i = this.spaces(b, i + 1);
      }
    }
    this.usual = fine;
    return i + 1;
  }

  /** A relationship's `data`, written as `null`, the id or `[ids]`; usual says whether it was one of these. */
  private endOfData(b: Uint8Array, i: number, n: number): number {
    const c = b[i];
    if (c === 123) return this.endOfIdentifier(b, i, n);
    if (c === 91) {
      let fine = true;
      this.putByte(91);
      i = this.spaces(b, i + 1);
      if (b[i] !== 93) {
        for (let first = true; ; first = false) {
          if (b[i] === 123) {
            if (!first) this.putByte(44);
            i = this.endOfIdentifier(b, i, n);
            if (!this.usual) fine = false;
          } else {
            fine = false;
            i = this.endOfValue(b, i, n, 3);
          }
          if (i < 0) return -1;
          i = this.spaces(b, i);
          const d = b[i];
          if (d === 93) break;
          if (d !== 44) return -1;
          i = this.spaces(b, i + 1);
        }
      }
      this.putByte(93);
      this.usual = fine;
      return i + 1;
    }
    this.usual = c === 110;
    if (this.usual) this.put(NULL, 0, 4);
    return this.endOfValue(b, i, n, 2);
  }

  /** A resource identifier: its id is written as flatten prints it, when written as a safe integer. */
  private endOfIdentifier(b: Uint8Array, i: number, n: number): number {
    let idStart = -1;
    let idEnd = -1;
    let fine = true;
    i = this.spaces(b, i + 1);
    if (b[i] !== 125) {
      for (;;) {
        i = this.endOfName(b, i, n);
        if (i < 0) return -1;
        if (this.nameEscaped) fine = false;
        const isId = this.nameIs(b, ID);
        const v = i;
        i = this.endOfValue(b, i, n, 4);
        if (i < 0) return -1;
        if (isId) {
          if (idStart >= 0) fine = false;
          // An integer literal, or its digits in quotes: both print as the number (recordId).
          const quoted = b[v] === 34 ? 1 : 0;
          idStart = v + quoted;
          idEnd = i - quoted;
          if (!safeDigits(b, idStart, idEnd)) fine = false;
        }
        i = this.spaces(b, i);
        const c = b[i];
        if (c === 125) break;
        if (c !== 44) return -1;
        i = this.spaces(b, i + 1);
      }
    }
    this.usual = fine && idStart >= 0;
    if (this.usual) this.put(b, idStart, idEnd);
    return i + 1;
  }

  /**
   * The member of a relationship or identifier object whose name's opening quote is at `i`: the
   * index of its value, or -1 when the bytes are not JSON. Notes the name (nameStart, nameLength,
   * nameEscaped) without touching what the region's scan has noticed so far.
   */
  private endOfName(b: Uint8Array, i: number, n: number): number {
    if (b[i] !== 34) return -1;
    const before = this.flags;
    this.flags = 0;
    const k = this.endOfString(b, i, n);
    if (k < 0) return -1;
    this.nameEscaped = (this.flags & ESC) !== 0;
    this.flags |= before;
    this.nameStart = i + 1;
    this.nameLength = k - 1 - this.nameStart;
    i = this.spaces(b, k);
    if (b[i] !== 58) return -1;
    return this.spaces(b, i + 1);
  }

  /** True when the last name endOfName read is `word`. */
  private nameIs(b: Uint8Array, word: Uint8Array): boolean {
    return this.nameLength === word.length && same(b, this.nameStart, word);
  }
}

/** True for 1 to 15 digits without a leading zero: a safe integer, printed as written. */
function safeDigits(b: Uint8Array, start: number, end: number): boolean {
  const len = end - start;
  if (len < 1 || len > 15 || b[start] === 48) return false;
  for (let k = start; k < end; k++) if (!(b[k]! >= 48 && b[k]! <= 57)) return false;
  return true;
}

const DATA = Buffer.from('data');
const NULL = Buffer.from('null');
const ID = Buffer.from('id');
