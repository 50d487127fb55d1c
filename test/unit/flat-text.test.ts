/**
 * The formats read from a flat record's JSON text (listing/flat-text.ts) must give what they gave
 * from the flat object: indentJson what JSON.stringify(v, null, 2) writes, columnReader what `pick`
 * reads, for any record — including text with whitespace between tokens, as a server may write
 * attributes (they are copied as sent).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnReader, forEachEntry, indentJson } from '../../src/listing/flat-text.js';
import { pick } from '../../src/output/render.js';
import { propertyRuns } from '../helpers/property-runs.js';

const key = fc.oneof(
  fc.constantFrom('id', 'type', 'a', 'a.b', 'account', 'x"y', 'back\\slash', '', '__proto__', 'é', 'line\nbreak'),
  fc.string({ maxLength: 5 }),
);
const record = fc
  .dictionary(key, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 8 })
  .map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>);

/** JSON text with spaces, tabs and newlines between its tokens (never inside strings). */
function spaced(json: string, seed: number): string {
  let out = '';
  let inString = false;
  let n = seed;
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    out += c;
    if (inString) {
      if (c === '\\') out += json[++i]!;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    if (!inString && '{}[],:'.includes(c)) out += [' ', '', '\n  ', '\t', ''][(n = (n * 7 + 3) % 5)]!;
  }
  return out;
}

describe('indentJson', () => {
  it('writes what JSON.stringify(v, null, 2) writes, nested at any depth', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 0, max: 3 }), fc.nat(), (v, depth, seed) => {
        const want = JSON.stringify(v, null, 2).replace(/\n/g, `\n${'  '.repeat(depth)}`);
        expect(indentJson(JSON.stringify(v), depth)).toBe(want);
        expect(indentJson(spaced(JSON.stringify(v), seed), depth)).toBe(want);
      }),
      { numRuns: propertyRuns(1500) },
    );
  });
});

describe('indentJson on text a replacement could misread', () => {
  it('strings starting with a colon, ending with a comma, holding quotes', () => {
    const tricky = [':x', 'a,', 'q"uote":', '","', '":"', ',"', '\\', 'x\\":', '', ' '];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...tricky, 'k'), fc.oneof(fc.constantFrom(...tricky), fc.constant(null), fc.constant([1, ':'])))),
        fc.integer({ min: 0, max: 2 }),
        (entries, depth) => {
          const v = Object.fromEntries(entries);
          for (const x of [v, [v, v], { a: v, b: [v] }]) {
            expect(indentJson(JSON.stringify(x), depth)).toBe(JSON.stringify(x, null, 2).replace(/\n/g, `\n${'  '.repeat(depth)}`));
          }
        },
      ),
      { numRuns: propertyRuns(1000) },
    );
  });
});

describe('columnReader', () => {
  it('reads what pick reads from the flat record, for any columns, record after record', () => {
    fc.assert(
      fc.property(
        fc.array(record, { minLength: 1, maxLength: 5 }),
        fc.array(fc.oneof(key, fc.constantFrom('account.name', 'a.b.c', 'id', 'x"y.z')), { maxLength: 6 }),
        fc.nat(),
        (records, columns, seed) => {
          const read = columnReader(columns, pick);
          for (const r of records) {
            const want = columns.map((c) => pick(r, c));
            expect(read(JSON.stringify(r))).toEqual(want);
            expect(read(spaced(JSON.stringify(r), seed))).toEqual(want);
          }
        },
      ),
      { numRuns: propertyRuns(1500) },
    );
  });

  it('reads records of a listing (members mostly as in the record before) as pick reads them', () => {
    const names = ['id', 'type', 'firstName', ...Array.from({ length: 30 }, (_, i) => `custom${i + 1}`), 'lastName', 'account'];
    const change = fc.record({
      at: fc.integer({ min: 0, max: names.length - 1 }),
      value: fc.oneof(fc.constant(null), fc.string({ maxLength: 3 }), fc.integer(), fc.constant({ id: 2, name: 'Acme' })),
      drop: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(change, { maxLength: 3 }), { minLength: 2, maxLength: 12 }),
        // Few columns: long runs of members no column reads (the custom fields a CSV leaves out).
        fc.oneof(fc.subarray([...names, 'account.name', 'nope']), fc.subarray([...names, 'account.name'], { maxLength: 4 })),
        fc.nat(),
        (changes, columns, seed) => {
          const read = columnReader(columns, pick);
          // Mostly null (custom fields), some values that stay from record to record.
          const base: Record<string, unknown> = Object.fromEntries(names.map((n) => [n, null]));
          Object.assign(base, { firstName: 'Ada', custom3: 5, custom20: ['x'], account: { id: 2, name: 'Acme' } });
          for (const [k, list] of changes.entries()) {
            const r: Record<string, unknown> = { ...base };
            for (const c of list) {
              if (c.drop && c.at > 1) delete r[names[c.at]!];
              else r[names[c.at]!] = c.value;
            }
            const json = k % 3 === 2 ? spaced(JSON.stringify(r), seed) : JSON.stringify(r);
            expect(read(json)).toEqual(columns.map((c) => pick(r, c)));
          }
        },
      ),
      { numRuns: propertyRuns(1500) },
    );
  });

  it('follows records whose members change order or names', () => {
    const read = columnReader(['b', 'a', 'account.name', 'a'], pick);
    expect(read('{"a":1,"b":"x","account":{"id":2,"type":"account","name":"Acme"}}')).toEqual(['x', 1, 'Acme', 1]);
    expect(read('{"b":2,"a":null,"account":3}')).toEqual([2, null, undefined, null]);
    expect(read('{"c":1,"a\\u0062":2,"b":"q\\"uote"}')).toEqual(['q"uote', undefined, undefined, undefined]);
    expect(read('{}')).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('forEachEntry gives every member and its value text', () => {
    const got: [string, string][] = [];
    const json = '{ "a" : [1, {"x":"]"}] , "b":"\\"" ,"":null}';
    forEachEntry(json, (k, s, e) => got.push([k, json.slice(s, e)]));
    expect(got).toEqual([
      ['a', '[1, {"x":"]"}]'],
      ['b', '"\\""'],
      ['', 'null'],
    ]);
  });
});
