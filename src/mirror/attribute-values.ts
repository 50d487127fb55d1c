/**
 * The values of a record's `attributes` object read straight from the page's bytes into the
 * slots of a table's columns, without building the object: a record with 150 custom fields has
 * ~190 attributes, which V8's JSON.parse builds as a slow dictionary object (~70 µs a record,
 * the largest cost of a sync). The text was already checked as strict JSON by the page's scanner
 * (listing), so this reads it without checking it again; anything it does not expect (a key with
 * an escape, a byte out of place) and it says so, and the caller decodes the object instead.
 *
 * Each value is given as its kind and its value (a null is left `Missing`: the mirror stores both
 * as NULL, and most of a record's keys are custom fields left null): strings decoded (JSON.parse only for one with an
 * escape), numbers as numbers (an integer too long for a double keeps its digits), objects and
 * arrays as their JSON text, as the mirror stores them.
 */

/** What a slot holds after {@link readAttributeValues}. */
export const ValueKind = {
  Missing: 0,
  Null: 1,
  String: 2,
  Number: 3,
  True: 4,
  False: 5,
  /** An object or an array: the value is its JSON text. */
  Json: 6,
} as const;
export type ValueKind = (typeof ValueKind)[keyof typeof ValueKind];

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const COMMA = 44;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/**
 * The slot of each key, found from the key's bytes without making a string of them. A server
 * writes every record's keys in the same order, so the key at the same place in the last record
 * is compared first; otherwise a hash of the bytes, then a byte comparison.
 */
export class KeySlots {
  private readonly byHash = new Map<number, { key: Buffer; slot: number }[]>();
  /** The keys of the last record read, in its order (slot -1: a key without a column). */
  private readonly order: { key: Buffer; slot: number }[] = [];

  constructor(keys: readonly string[]) {
    keys.forEach((k, slot) => {
      const key = Buffer.from(k, 'utf8');
      const h = hashOf(key, 0, key.length);
      const list = this.byHash.get(h) ?? [];
      list.push({ key, slot });
      this.byHash.set(h, list);
    });
  }

  /** The slot of the key `buf[start..end)`, the `place`-th of its record; undefined for a key without one. */
  slot(buf: Buffer, start: number, end: number, place: number): number | undefined {
    const guess = this.order[place];
    if (guess && same(guess.key, buf, start, end)) return guess.slot < 0 ? undefined : guess.slot;
    const found = this.byHash.get(hashOf(buf, start, end))?.find((e) => same(e.key, buf, start, end));
    this.order[place] = found ?? { key: Buffer.from(buf.subarray(start, end)), slot: -1 };
    return found?.slot;
  }
}

function same(key: Buffer, buf: Buffer, start: number, end: number): boolean {
  if (key.length !== end - start) return false;
  for (let k = 0; k < key.length; k++) if (key[k] !== buf[start + k]) return false;
  return true;
}

function hashOf(buf: Buffer, start: number, end: number): number {
  let hash = 0;
  for (let i = start; i < end; i++) hash = (Math.imul(hash, 31) + buf[i]!) | 0;
  return hash;
}

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/**
 * Reads the object at `buf[start..end)` (`{` … `}`) into `values`/`kinds` by the slot of each
 * key (`slots`); keys without a slot are skipped. The slots must be reset by the caller.
 * @returns false when the text is not as expected: decode it another way
 */
export function readAttributeValues(
  buf: Buffer,
  start: number,
  end: number,
  slots: KeySlots,
  values: unknown[],
  kinds: Uint8Array,
): boolean {
  let i = start;
  let place = 0;
  if (buf[i] !== OPEN_BRACE) return false;
  i++;
  for (;;) {
    while (i < end && isSpace(buf[i]!)) i++;
    if (buf[i] === CLOSE_BRACE) return true;
    if (buf[i] !== QUOTE) return false;
    const keyStart = i + 1;
    let j = keyStart;
    for (let d = buf[j]!; d !== QUOTE; d = buf[++j]!) if (d === BACKSLASH || j >= end) return false;
    const keyPlace = place++;
    i = j + 1;
    while (i < end && isSpace(buf[i]!)) i++;
    if (buf[i] !== COLON) return false;
    i++;
    while (i < end && isSpace(buf[i]!)) i++;
    const c = buf[i]!;
    if (c === 110 /* n */) {
      // A null is stored as a missing key is (NULL): its key is not looked up. Most of a record's
      // ~190 attributes are custom fields left null, so this is most of the keys.
      i += 4;
    } else {
      const slot = slots.slot(buf, keyStart, j, keyPlace);
      i = readValue(buf, i, end, slot, values, kinds);
      if (i < 0) return false;
    }
    while (i < end && isSpace(buf[i]!)) i++;
    if (buf[i] === COMMA) {
      i++;
      continue;
    }
    return buf[i] === CLOSE_BRACE;
  }
}

/**
 * Reads the members the page's scan marked (page-parse.ts, attributeMarks: four numbers a member
 * with a value other than `null`, its key's bytes and its value's) into `values`/`kinds` by the
 * slot of each key, as {@link readAttributeValues} does, without walking the region's other
 * bytes: the scan has checked them as strict JSON, and most of them are keys of nulls.
 */
export function readMarkedValues(
  buf: Buffer,
  marks: Int32Array,
  from: number,
  to: number,
  slots: KeySlots,
  values: unknown[],
  kinds: Uint8Array,
): void {
  for (let m = from, place = 0; m < to; m += 4, place++) {
    const slot = slots.slot(buf, marks[m]!, marks[m + 1]!, place);
    if (slot === undefined) continue;
    const start = marks[m + 2]!;
    const end = marks[m + 3]!;
    const c = buf[start]!;
    if (c === QUOTE) {
      let escapedString = false;
      for (let k = start + 1; k < end - 1; k++)
        if (buf[k] === BACKSLASH) {
          escapedString = true;
          break;
        }
      values[slot] = escapedString ? JSON.parse(buf.toString('utf8', start, end)) : buf.toString('utf8', start + 1, end - 1);
      kinds[slot] = ValueKind.String;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      values[slot] = buf.toString('utf8', start, end);
      kinds[slot] = ValueKind.Json;
    } else if (c === 116 /* t */ || c === 102 /* f */) {
      values[slot] = null;
      kinds[slot] = c === 116 ? ValueKind.True : ValueKind.False;
    } else readValue(buf, start, end, slot, values, kinds);
  }
}

/**
 * Reads the value (not a null) at `buf[i]` into `slot` (none: skipped over).
 * @returns the index after it; -1 when it is not as expected
 */
function readValue(buf: Buffer, i: number, end: number, slot: number | undefined, values: unknown[], kinds: Uint8Array): number {
  const c = buf[i]!;
  let kind: ValueKind;
  let value: unknown = null;
  if (c === QUOTE) {
    let k = i + 1;
    let escapedString = false;
    while (k < end && buf[k] !== QUOTE) {
      if (buf[k] === BACKSLASH) {
        escapedString = true;
        k++;
      }
      k++;
    }
    if (slot !== undefined) value = escapedString ? JSON.parse(buf.toString('utf8', i, k + 1)) : buf.toString('utf8', i + 1, k);
    kind = ValueKind.String;
    i = k + 1;
  } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    const k = endOfComposite(buf, i, end);
    if (k < 0) return -1;
    if (slot !== undefined) value = buf.toString('utf8', i, k);
    kind = ValueKind.Json;
    i = k;
  } else if (c === 116 /* t */) {
    kind = ValueKind.True;
    i += 4;
  } else if (c === 102 /* f */) {
    kind = ValueKind.False;
    i += 5;
  } else {
    let k = i;
    let integer = true;
    while (k < end) {
      const d = buf[k]!;
      if (d >= 48 && d <= 57) k++;
      else if (d === 45 || d === 43) k++;
      else if (d === 46 || d === 101 || d === 69) {
        integer = false;
        k++;
      } else break;
    }
    if (k === i) return -1;
    if (slot !== undefined) {
      const text = buf.toString('latin1', i, k);
      const n = Number(text);
      // An integer a double cannot hold exactly keeps its digits, as the lossless parse does.
      value = integer && !Number.isSafeInteger(n) ? text : n;
    }
    kind = ValueKind.Number;
    i = k;
  }
  if (slot !== undefined) {
    values[slot] = value;
    kinds[slot] = kind;
  }
  return i;
}

/** The index after the object or array starting at `i`; -1 when it does not end before `end`. */
function endOfComposite(buf: Buffer, i: number, end: number): number {
  let depth = 0;
  for (let k = i; k < end; k++) {
    const c = buf[k]!;
    if (c === QUOTE) {
      for (k++; k < end && buf[k] !== QUOTE; k++) if (buf[k] === BACKSLASH) k++;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return k + 1;
    }
  }
  return -1;
}
