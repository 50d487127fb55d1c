/**
 * attribute-values.ts against the listing's lossless JSON parse, over generated records: every value read from the
 * bytes equals what the decoded object holds (strings with escapes and non-ASCII text, numbers,
 * long integers kept as digits, nested objects and arrays as JSON text, keys in any order, keys
 * without a column, white space anywhere JSON allows it); text it does not expect is declined.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/lossless-json.js';
import { KeySlots, readAttributeValues, ValueKind } from '../../src/mirror/attribute-values.js';
import { propertyRuns } from '../helpers/property-runs.js';

const KEYS = ['firstName', 'title', 'emails', 'score', 'optedOut', 'custom1', 'address', 'big', 'note', 'tags'];
const value = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxKeys: 3 }),
);
const record = fc.dictionary(fc.constantFrom(...KEYS, 'unknownKey', 'other'), value, { maxKeys: 12 });
/** JSON text with white space put between its tokens. */
const spaced = (text: string, ws: string) =>
  text.replace(/("(?:[^"\\]|\\.)*")|([{}[\],:])/g, (_m, str, tok) => (str ? str : `${ws}${tok}${ws}`));

function read(text: string, slots: KeySlots) {
  const buf = Buffer.from(text);
  const values: unknown[] = new Array(KEYS.length);
  const kinds = new Uint8Array(KEYS.length);
  const ok = readAttributeValues(buf, 0, buf.length, slots, values, kinds);
  return { ok, values, kinds };
}

function asDecoded(kind: number, v: unknown): unknown {
  if (kind === ValueKind.Null) return null;
  if (kind === ValueKind.True) return true;
  if (kind === ValueKind.False) return false;
  if (kind === ValueKind.Json) return JSON.parse(v as string);
  return v;
}

describe('readAttributeValues', () => {
  it("reads what the listing's parse reads, key by key", () => {
    const slots = new KeySlots(KEYS);
    fc.assert(
      fc.property(record, fc.constantFrom('', ' ', '\n  ', '\t'), (rec, ws) => {
        // A region runs from its `{` to its `}`: space only inside.
        const text = spaced(JSON.stringify(rec), ws).trim();
        // The lossless parse the listing uses: integers past 2^53 keep their digits.
        const decoded = parseJson(text) as Record<string, unknown>;
        const { ok, values, kinds } = read(text, slots);
        expect(ok).toBe(true);
        KEYS.forEach((k, i) => {
          // A null is left as a missing key is: the mirror stores both as NULL.
          if (!(k in decoded) || decoded[k] === null) expect(kinds[i]).toBe(ValueKind.Missing);
          else expect(asDecoded(kinds[i]!, values[i])).toEqual(decoded[k]);
        });
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  it('keeps the digits of an integer a double cannot hold', () => {
    const { ok, values, kinds } = read('{"big":12345678901234567890,"score":-1.5e3}', new KeySlots(KEYS));
    expect(ok).toBe(true);
    expect([kinds[7], values[7]]).toEqual([ValueKind.Number, '12345678901234567890']);
    expect(values[3]).toBe(-1500);
  });

  it('declines a key with an escape and text that is not an object', () => {
    const slots = new KeySlots(KEYS);
    expect(read('{"first\\u004eame":"x"}', slots).ok).toBe(false);
    expect(read('["firstName"]', slots).ok).toBe(false);
    expect(read('{"firstName" "x"}', slots).ok).toBe(false);
  });
});
