/**
 * parseCollection (list pages) must give what parseJson gives (JSON.parse, with integers past
 * 2^53 kept as their digits) — for any document, however it is written — and the ndjson lines built from unparsed attributes must hold the same values as the
 * lines `flatten` gives (byte for byte when the server writes JSON like JSON.stringify does).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResourceObject } from '../../src/api/jsonapi.js';
import { attributesRegion, parseCollection, relationshipsText } from '../../src/listing/page-parse.js';
import { recordText, recordLine, flatten, indexIncluded, type LineSink } from '../../src/listing/record-text.js';
import { parseJson } from '../../src/lossless-json.js';
import { expectBe, expectEqual } from '../helpers/loop-expect.js';
import { propertyRuns } from '../helpers/property-runs.js';

/** The attributes a record's text copies from its page, as text (undefined when it cannot). */
function rawAttributes(r: object): string | undefined {
  const region = attributesRegion(r);
  return region?.page.toString('utf8', region.start, region.end);
}

type Doc = { data?: unknown; included?: unknown[]; meta?: unknown; links?: unknown };

/** An object given as its entries, so that a `__proto__` key is written like any other. */
class Entries {
  constructor(readonly list: [string, unknown][]) {}
}

/** JSON text of a value written in odd but valid ways: spaces, newlines, \u escapes. */
function oddJson(v: unknown, ws: string, escapeAll: boolean): string {
  const str = (s: string) =>
    escapeAll ? `"${[...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"` : JSON.stringify(s);
  if (v === null || typeof v !== 'object') return typeof v === 'string' ? str(v) : JSON.stringify(v);
  if (Array.isArray(v)) return `[${ws}${v.map((x) => oddJson(x, ws, escapeAll)).join(`${ws},${ws}`)}${ws}]`;
  const entries = v instanceof Entries ? v.list : Object.entries(v).filter(([, x]) => x !== undefined);
  return `{${ws}${entries.map(([k, x]) => `${str(k)}${ws}:${ws}${oddJson(x, ws, escapeAll)}`).join(`,${ws}`)}${ws}}`;
}

/** True when some attributes written as entries repeat a key. */
function hasDuplicates(v: unknown): boolean {
  if (v instanceof Entries) return new Set(v.list.map(([k]) => k)).size !== v.list.length || v.list.some(([, x]) => hasDuplicates(x));
  if (v && typeof v === 'object') return Object.values(v).some(hasDuplicates);
  return false;
}

/** The bytes recordLine writes for a resource, as text. */
function lineOf(r: ResourceObject, included?: Map<string, ResourceObject>): string {
  const parts: Buffer[] = [];
  const sink: LineSink = {
    text: (s) => parts.push(Buffer.from(s, 'utf8')),
    bytes: (page, start, end) => parts.push(Buffer.from(page.subarray(start, end))),
  };
  recordLine(r, included, sink);
  return Buffer.concat(parts).toString('utf8');
}

/** Reads every (lazy) attribute, so that comparisons see plain values. */
function settled(doc: unknown): unknown {
  return JSON.parse(JSON.stringify(doc));
}

const key = fc.oneof(
  fc.constantFrom('id', 'type', 'meta', '__proto__', '7', 'account', 'attributes', 'firstName', 'a"b', 'c\\d', 'é'),
  fc.string({ maxLength: 5 }),
);
const value = fc.jsonValue({ maxDepth: 2 });
const attributes = fc.oneof(
  fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength: 6 }).map((list) => new Entries(list)),
  // Duplicate keys (JSON allows them; the last one counts).
  fc.array(fc.tuple(fc.constantFrom('a', 'id'), value), { minLength: 2, maxLength: 3 }).map((list) => new Entries(list)),
  fc.constant({}),
  fc.constant(null),
  fc.constant(undefined),
);
// Ids as services write them: integers, digits in strings (printed as numbers), and odd ones.
const ref = fc.record(
  {
    type: fc.constantFrom('account', 'user'),
    id: fc.oneof(
      { arbitrary: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constant('12')), weight: 4 },
      fc.constantFrom('0', '007', 'x', '-1', '123456789012345678', 1.5),
    ),
    meta: fc.constant({ n: 1 }),
  },
  { requiredKeys: ['type', 'id'] },
);
const relationship = fc.oneof(
  { arbitrary: fc.record({ data: fc.oneof(fc.constant(null), ref, fc.array(ref, { maxLength: 2 })) }), weight: 3 },
  fc.record({
    links: fc.constant({ related: 'https://api.test/x' }),
    data: fc.oneof(ref, fc.constant(null)),
    meta: fc.constant({ m: [1] }),
  }),
  fc.record({ links: fc.constant({ related: 'https://api.test/y' }) }),
  fc.constant(null),
);
const relationshipName = fc.oneof(
  { arbitrary: fc.constantFrom('account', 'owner', 'stage'), weight: 4 },
  fc.constantFrom('firstName', 'id', 'a"b', 'é', '7'),
);
const relationships = fc.oneof(
  fc.dictionary(relationshipName, relationship, { maxKeys: 3 }),
  // A name written twice (JSON allows it; the last one counts).
  fc.array(fc.tuple(fc.constantFrom('account', 'owner'), relationship), { minLength: 2, maxLength: 3 }).map((list) => new Entries(list)),
  fc.constant(undefined),
);
const resource = fc.record(
  {
    type: fc.constantFrom('prospect', 'account', 'user'),
    id: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constant('12')),
    attributes,
    relationships,
  },
  { requiredKeys: ['type', 'id'] },
);
const doc: fc.Arbitrary<Doc> = fc.record(
  {
    data: fc.oneof(fc.array(resource, { maxLength: 4 }), resource, fc.constant(null)),
    included: fc.oneof({ arbitrary: fc.constant<unknown[]>([]), weight: 2 }, fc.array(resource, { maxLength: 3 })),
    meta: fc.oneof(fc.constant({ count: 3 }), fc.record({ attributes: fc.dictionary(key, value, { maxKeys: 2 }) })),
    links: fc.constant({ next: 'https://api.test/api/v2/prospects?page[offset]=2' }),
  },
  { requiredKeys: ['data'] },
);
const layout = fc.record({ ws: fc.constantFrom('', ' ', '\n  ', '\t'), escapeAll: fc.boolean() });

describe('parseCollection', () => {
  it('gives the value parseJson gives, however the document is written', () => {
    fc.assert(
      fc.property(doc, layout, (d, { ws, escapeAll }) => {
        const text = oddJson(d, ws, escapeAll);
        expect(settled(parseCollection(text, 0))).toEqual(parseJson(text));
      }),
      { numRuns: propertyRuns(1500) },
    );
  });

  it('ndjson lines from unparsed attributes: byte for byte from JSON.stringify-written pages, same values otherwise', () => {
    // How often the fast paths were taken: a property that never reaches them proves nothing.
    // Per case ~0.16 lines from unparsed attributes and ~0.12 records with scanned relationships
    // (300 cases, six runs: 40–56 and 29–43), so a twentieth of the cases is a floor with room.
    const runs = propertyRuns(1500);
    let rawLines = 0;
    let scannedRelationships = 0;
    fc.assert(
      fc.property(doc, layout, (d, { ws, escapeAll }) => {
        const canonical = oddJson(d, '', false);
        for (const text of [canonical, oddJson(d, ws, escapeAll)]) {
          const fast = parseCollection(text, 0) as Doc;
          const slow = parseJson(text) as Doc;
          const list = (x: Doc) => (Array.isArray(x.data) ? x.data : x.data ? [x.data] : []) as ResourceObject[];
          const fastIndex = indexIncluded(fast as never);
          const slowIndex = indexIncluded(slow as never);
          list(fast).forEach((r, i) => {
            if (rawAttributes(r) !== undefined) rawLines++;
            if (relationshipsText(r) !== undefined && fastIndex.size === 0) scannedRelationships++;
            const line = recordText(r, fastIndex);
            // expect() only where a check fails, the others through helpers/loop-expect.ts: ~10,000
            // checks a run.
            if (/[\n\r]/.test(line)) expect(line).not.toMatch(/[\n\r]/); // one record per line
            // ndjson's byte path writes the same line (attributes copied from the page's bytes).
            expectBe(lineOf(r, fastIndex), `${line}\n`);
            const expected = JSON.stringify(flatten(list(slow)[i]!, slowIndex));
            // Byte for byte when the page is written as JSON.stringify writes (no duplicate keys).
            if (text === canonical && !hasDuplicates(d)) expectBe(line, expected);
            expectEqual(JSON.parse(line), JSON.parse(expected));
          });
        }
      }),
      { numRuns: runs },
    );
    expect(rawLines).toBeGreaterThan(runs / 20);
    expect(scannedRelationships).toBeGreaterThan(runs / 20);
  });

  it('keeps a page of records with 150 custom fields unparsed, and parses attributes on first use', () => {
    const attrs: Record<string, unknown> = { firstName: 'Ada', emails: ['ada@example.com'], note: 'line 1\nline "2"' };
    for (let i = 1; i <= 150; i++) attrs[`custom${i}`] = null;
    const data = [1, 2].map((id) => ({
      type: 'prospect',
      id,
      attributes: attrs,
      relationships: { account: { data: { type: 'account', id: 5 } } },
    }));
    const text = JSON.stringify({ data, links: {} });
    const parsed = parseCollection(text, 0) as { data: ResourceObject[] };
    expect(rawAttributes(parsed.data[0]!)).toBe(JSON.stringify(attrs));
    // A small page is parsed whole (JSON.parse is quicker than a scanner that runs cold).
    expect(rawAttributes((parseCollection(text) as { data: ResourceObject[] }).data[0]!)).toBeUndefined();
    expect(recordText(parsed.data[0]!)).toBe(JSON.stringify(flatten(data[0] as ResourceObject)));
    // First use parses: the object is the attributes, and the text is no longer used.
    expect(parsed.data[1]!.attributes).toEqual(attrs);
    expect(rawAttributes(parsed.data[1]!)).toBeUndefined();
    parsed.data[1]!.attributes!.firstName = 'Grace';
    expect(JSON.parse(recordText(parsed.data[1]!)).firstName).toBe('Grace');
  });

  it('keeps both members of every resource unparsed, whatever their order and whatever lies between them', () => {
    const attributes = '{"name":"Ada","rank":{"relationships":1}}';
    const relationships = '{"account":{"data":{"type":"account","id":5}}}';
    const layouts = [
      `"attributes":${attributes},"relationships":${relationships}`,
      `"attributes":  ${attributes} ,\n  "relationships":${relationships}`,
      `"relationships":${relationships},"links":{"self":"/p"},"attributes":${attributes}`,
      `"relationships":${relationships},"meta":{"note":"\\"attributes\\":{}"},"attributes":${attributes}`,
      `"attributes":${attributes},"meta":{"rank":{"n":1}},"relationships":${relationships}`,
      `"attributes":${attributes},"rank":{"n":2},"relationships":${relationships}`,
    ];
    const text = `{"data":[${layouts.map((members, i) => `{"type":"prospect","id":${i + 1},${members}}`).join(',')}]}`;
    const parsed = parseCollection(text, 0) as { data: ResourceObject[] };
    for (const r of parsed.data) {
      expect(rawAttributes(r), `attributes of ${r.id}`).toBe(attributes);
      expect(relationshipsText(r), `relationships of ${r.id}`).toBe(',"account":5');
    }
    // Compared after: reading the members parses them.
    expect(parsed).toEqual(parseJson(text));
  });

  it('keeps the digits of integers past 2^53, in attributes and around them, and does not copy such attributes', () => {
    const text =
      '{"data":[{"type":"p","id":9007199254740993,"attributes":{"n":18446744073709551616,"s":"12345678901234567890"}},{"type":"p","id":2,"attributes":{"a":1}}]}';
    const parsed = parseCollection(text, 0) as { data: ResourceObject[] };
    expect(parsed.data.map((r) => rawAttributes(r))).toEqual([undefined, '{"a":1}']);
    expect(settled(parsed)).toEqual({
      data: [
        { type: 'p', id: '9007199254740993', attributes: { n: '18446744073709551616', s: '12345678901234567890' } },
        { type: 'p', id: 2, attributes: { a: 1 } },
      ],
    });
    expect(recordText(parsed.data[0]!)).toBe('{"id":"9007199254740993","type":"p","n":"18446744073709551616","s":"12345678901234567890"}');
  });

  it('leaves unusual attributes to the generic path and invalid JSON to JSON.parse', () => {
    const odd = parseCollection(
      '{"data":[{"type":"prospect","id":1,"attributes":{"id":9,"x":1}},{"type":"prospect","id":2,"attributes":{"account":1},"relationships":{"account":{"data":null}}}]}',
      0,
    ) as { data: ResourceObject[] };
    expect(odd.data.map((r) => rawAttributes(r))).toEqual([undefined, undefined]);
    expect(odd.data.map((r) => recordText(r))).toEqual(['{"id":9,"type":"prospect","x":1}', '{"id":2,"type":"prospect","account":null}']);
    // Keys written with escapes are looked at as what they mean: `__proto__` and `id` here.
    const escaped = parseCollection(
      '{"data":[{"type":"p","id":1,"attributes":{"\\u005f\\u005fproto\\u005f\\u005f":5,"a":1}},{"type":"p","id":2,"attributes":{"\\u0069d":7}}]}',
      0,
    ) as { data: ResourceObject[] };
    expect(escaped.data.map((r) => rawAttributes(r))).toEqual([undefined, undefined]);
    // (A `__proto__` attribute is a field like any other.)
    expect(escaped.data.map((r) => recordText(r))).toEqual(['{"id":1,"type":"p","__proto__":5,"a":1}', '{"id":7,"type":"p"}']);
    const values = [
      'trux',
      'nul',
      'nullx',
      'falsy',
      '01',
      '1.',
      '.5',
      '-',
      '1e',
      '1e+',
      '"\\x"',
      '"\\u12"',
      '"a',
      '[1 2]',
      '[1,]',
      '{"b" 1}',
      '{"b":1,}',
      '{,}',
      "'a'",
      'x',
      'nope',
      'tree',
      'fakes',
      '1.x5',
      '1ex5',
      '[1x2]',
      '{"b"x1}',
      '{"b":1x"c":2}',
      '"a\tb"',
      '"a\nb"',
    ];
    for (const v of values) {
      const bad = `{"data":[{"type":"p","id":1,"attributes":{"a":${v}}}]}`;
      expect(() => JSON.parse(bad), v).toThrow(SyntaxError);
      expect(() => parseCollection(bad, 0), v).toThrow(SyntaxError);
    }
  });

  it('reads the page as bytes: multi-byte characters, invalid UTF-8 and line breaks between tokens', () => {
    const attrs = { firstName: 'José', lastName: '山田', note: 'emoji 👩‍💻', city: 'Zürich' };
    const page = (extra: string) =>
      `{"data":[{"type":"p","id":1,"attributes":${JSON.stringify(attrs)}},{"type":"p","id":2,"attributes":{"a":"x${extra}y"}},{"type":"p","id":3,"attributes":{\n  "b": 1\n}}]}`;
    // A byte that is not UTF-8 (0xff) becomes U+FFFD, as Buffer#toString gives it.
    const bytes = Buffer.concat([
      Buffer.from(page('').slice(0, page('').indexOf('xy') + 1)),
      Buffer.from([0xff]),
      Buffer.from(page('').slice(page('').indexOf('xy') + 1)),
    ]);
    const parsed = parseCollection(bytes, 0) as { data: ResourceObject[] };
    expect(settled(parsed)).toEqual(JSON.parse(bytes.toString('utf8')));
    const again = parseCollection(bytes, 0) as { data: ResourceObject[] };
    expect(again.data.map((r) => lineOf(r))).toEqual([
      `${JSON.stringify({ id: 1, type: 'p', ...attrs })}\n`,
      '{"id":2,"type":"p","a":"x\ufffdy"}\n',
      // Line breaks between tokens: parsed, not copied (one record per line).
      '{"id":3,"type":"p","b":1}\n',
    ]);
    expect(rawAttributes(again.data[0]!)).toBe(JSON.stringify(attrs));
    expect(rawAttributes(again.data[2]!)).toBeUndefined();
  });

  it('finds an attribute named like a relationship among many names', () => {
    const attrs: Record<string, unknown> = {};
    for (let i = 1; i <= 300; i++) attrs[`custom${i}`] = i;
    const rels = { account: { data: { type: 'account', id: 5 } }, owner: { data: null } };
    const data = [1, 2, 3].map((id) => ({
      type: 'prospect',
      id,
      attributes: id === 2 ? { ...attrs, owner: 'me' } : attrs,
      relationships: rels,
    }));
    const parsed = parseCollection(JSON.stringify({ data }), 0) as { data: ResourceObject[] };
    expect(parsed.data.map((r) => rawAttributes(r) !== undefined)).toEqual([true, false, true]);
    expect(parsed.data.map((r) => lineOf(r))).toEqual(data.map((r) => `${JSON.stringify(flatten(r as ResourceObject))}\n`));
  });

  it('writes relationships as flatten does when they are written oddly (a member twice, escapes, odd ids)', () => {
    const rels = [
      '{"account":{"data":null,"data":{"type":"account","id":5}}}',
      '{"account":{"data":{"type":"account","id":5}},"account":{"data":null}}',
      '{"account":{"data":{"type":"account","id":5,"id":6}}}',
      '{"account":{"d\\u0061ta":{"type":"account","id":5}}}',
      '{"account":{"data":{"type":"account","\\u0069d":5}}}',
      '{"account":{"data":{"type":"account","id":"007"}},"owner":{"data":[{"type":"user","id":"12"},{"type":"user","id":-1}]}}',
      '{"account":{"links":{"related":"x"}},"owner":null,"stage":{"data":[]}}',
    ];
    const text = `{"data":[${rels.map((r, i) => `{"type":"p","id":${i + 1},"attributes":{"a":1},"relationships":${r}}`).join(',')}]}`;
    const parsed = parseCollection(text, 0) as { data: ResourceObject[] };
    const plain = JSON.parse(text) as { data: ResourceObject[] };
    expect(parsed.data.map((r) => lineOf(r))).toEqual(plain.data.map((r) => `${JSON.stringify(flatten(r))}\n`));
    // Only the last is usual enough to be written as the scanner read it.
    expect(parsed.data.map((r) => relationshipsText(r) !== undefined)).toEqual([false, false, false, false, false, false, true]);
  });
});
