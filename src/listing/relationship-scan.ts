/**
 * Reading a resource's `"relationships":{…}` from a listing page's bytes (page-parse.ts) with the
 * strict scanner of json-scan.ts, and writing on the way what flatJson writes for them: for 16
 * relationships with links, ~50 objects a record that JSON.parse no longer builds.
 */

// Performance machinery (src/README.md, Build): relationships written as the scanner read them.
import { endOfOwnKey, endOfString, endOfValue, ESC, HIGH, keyHash, ODD_KEY, same, seen, spaces, swapSeen } from './json-scan.js';

/**
 * What endOfRelationships read besides the end: the relationships as flatJson writes them when
 * there are no included records — `,"name":id`, `,"name":[ids]` or `,"name":null` for each
 * relationship with `data` — or undefined when anything is unusual (then the relationships are
 * parsed and flattened as before).
 */
export let relationshipsTail: string | undefined;
/**
 * Per relationship name hash, the region it was last seen in: a name written twice is unusual.
 * Made on the first scan (256 KB): the API client loads this module for every request.
 */
let lastSeenIn: Int32Array | undefined;
let regionCount = 0;
/** Set by endOfName: where the member's name starts, its length, and whether it has escapes. */
let nameStart = 0;
let nameLength = 0;
let nameEscaped = false;
/** Set by endOfRelationship, endOfData and endOfIdentifier: whether what they read is usual. */
let usual = true;
/**
 * The tail being written, as bytes: `,"name":value` for each relationship read so far in the
 * current relationships object, decoded once at its end (names and ids are ASCII when usual).
 * Building it from strings cost ~50 small strings a record, a third of what a listing allocated.
 */
let out = Buffer.allocUnsafe(1024);
let at = 0;

/** Appends `b[start..end)` to the tail (a few bytes: a name or an id). */
function put(b: Uint8Array, start: number, end: number): void {
  if (at + end - start > out.length) grow(end - start);
  for (let j = start; j < end; j++) out[at++] = b[j]!;
}

/** Appends one byte to the tail. */
function putByte(c: number): void {
  if (at === out.length) grow(1);
  out[at++] = c;
}

function grow(n: number): void {
  const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, at + n));
  out.copy(bigger, 0, 0, at);
  out = bigger;
}

/**
 * The relationships object at `i`, its names hashed into `names`; relationshipsTail says what
 * flatJson writes for them. A usual relationship is an object with a `data` member that is null,
 * a resource identifier or a list of them, each with an `id` written as a safe integer (or its
 * digits in a string, which flatten prints as a number); its name is plain.
 */
export function endOfRelationships(b: Buffer, i: number, n: number, names: Uint8Array): number {
  const region = ++regionCount;
  lastSeenIn ??= new Int32Array(1 << 16);
  at = 0;
  let fine = true;
  i = spaces(b, i + 1);
  if (b[i] === 125) {
    relationshipsTail = '';
    return i + 1;
  }
  for (;;) {
    if (b[i] !== 34) return -1;
    const before = swapSeen(0);
    const k = endOfOwnKey(b, i, n, names);
    if (k < 0) return -1;
    if (seen & (ODD_KEY | HIGH) || lastSeenIn[keyHash] === region) fine = false;
    lastSeenIn[keyHash] = region;
    swapSeen(before | seen);
    const name = i;
    i = spaces(b, k);
    if (b[i] !== 58) return -1;
    i = spaces(b, i + 1);
    if (b[i] === 123) {
      i = endOfRelationship(b, i, n, name, k);
      if (i < 0) return -1;
      if (!usual) fine = false;
    } else {
      // `null` is left out, as flatten leaves it out; anything else is unusual.
      if (b[i] !== 110) fine = false;
      i = endOfValue(b, i, n, 1);
      if (i < 0) return -1;
    }
    i = spaces(b, i);
    const c = b[i];
    if (c === 125) {
      relationshipsTail = fine ? out.toString('latin1', 0, at) : undefined;
      return i + 1;
    }
    if (c !== 44) return -1;
    i = spaces(b, i + 1);
  }
}

/**
 * One relationship object, its name (quotes included) at `b[name..nameEnd)`: writes
 * `,"name":value` when it has `data` (nothing without it, as flatten leaves it out).
 */
function endOfRelationship(b: Buffer, i: number, n: number, name: number, nameEnd: number): number {
  let hasData = false;
  let fine = true;
  i = spaces(b, i + 1);
  if (b[i] !== 125) {
    for (;;) {
      i = endOfName(b, i, n);
      if (i < 0) return -1;
      if (nameEscaped) fine = false;
      if (nameIs(b, DATA)) {
        if (hasData) fine = false;
        hasData = true;
        putByte(44);
        put(b, name, nameEnd);
        putByte(58);
        i = endOfData(b, i, n);
        if (i < 0) return -1;
        if (!usual) fine = false;
      } else {
        i = endOfValue(b, i, n, 2);
        if (i < 0) return -1;
      }
      i = spaces(b, i);
      const c = b[i];
      if (c === 125) break;
      if (c !== 44) return -1;
      i = spaces(b, i + 1);
    }
  }
  usual = fine;
  return i + 1;
}

/** A relationship's `data`, written as `null`, the id or `[ids]`; usual says whether it was one of these. */
function endOfData(b: Uint8Array, i: number, n: number): number {
  const c = b[i];
  if (c === 123) return endOfIdentifier(b, i, n);
  if (c === 91) {
    let fine = true;
    putByte(91);
    i = spaces(b, i + 1);
    if (b[i] !== 93) {
      for (let first = true; ; first = false) {
        if (b[i] === 123) {
          if (!first) putByte(44);
          i = endOfIdentifier(b, i, n);
          if (!usual) fine = false;
        } else {
          fine = false;
          i = endOfValue(b, i, n, 3);
        }
        if (i < 0) return -1;
        i = spaces(b, i);
        const d = b[i];
        if (d === 93) break;
        if (d !== 44) return -1;
        i = spaces(b, i + 1);
      }
    }
    putByte(93);
    usual = fine;
    return i + 1;
  }
  usual = c === 110;
  if (usual) put(NULL, 0, 4);
  return endOfValue(b, i, n, 2);
}

/** A resource identifier: its id is written as flatten prints it, when written as a safe integer. */
function endOfIdentifier(b: Uint8Array, i: number, n: number): number {
  let idStart = -1;
  let idEnd = -1;
  let fine = true;
  i = spaces(b, i + 1);
  if (b[i] !== 125) {
    for (;;) {
      i = endOfName(b, i, n);
      if (i < 0) return -1;
      if (nameEscaped) fine = false;
      const isId = nameIs(b, ID);
      const v = i;
      i = endOfValue(b, i, n, 4);
      if (i < 0) return -1;
      if (isId) {
        if (idStart >= 0) fine = false;
        // An integer literal, or its digits in quotes: both print as the number (recordId).
        const quoted = b[v] === 34 ? 1 : 0;
        idStart = v + quoted;
        idEnd = i - quoted;
        if (!safeDigits(b, idStart, idEnd)) fine = false;
      }
      i = spaces(b, i);
      const c = b[i];
      if (c === 125) break;
      if (c !== 44) return -1;
      i = spaces(b, i + 1);
    }
  }
  usual = fine && idStart >= 0;
  if (usual) put(b, idStart, idEnd);
  return i + 1;
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

/**
 * The member of a relationship or identifier object whose name's opening quote is at `i`: the
 * index of its value, or -1 when the bytes are not JSON. Notes the name (nameStart, nameLength,
 * nameEscaped) without touching what the region's scan has seen so far.
 */
function endOfName(b: Uint8Array, i: number, n: number): number {
  if (b[i] !== 34) return -1;
  const before = swapSeen(0);
  const k = endOfString(b, i, n);
  if (k < 0) return -1;
  nameEscaped = (seen & ESC) !== 0;
  swapSeen(before | seen);
  nameStart = i + 1;
  nameLength = k - 1 - nameStart;
  i = spaces(b, k);
  if (b[i] !== 58) return -1;
  return spaces(b, i + 1);
}

/** True when the last name endOfName read is `word`. */
function nameIs(b: Uint8Array, word: Uint8Array): boolean {
  return nameLength === word.length && same(b, nameStart, word);
}
