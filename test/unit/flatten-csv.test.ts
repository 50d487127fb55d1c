import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { flatten, flattenDocument, indexIncluded } from '../../src/listing/record-text.js';
import { csvCell, csvLine, neutralise } from '../../src/output/csv.js';
import type { JsonApiDocument } from '../../src/api/jsonapi.js';
import { RESOURCES } from '../../src/registry/index.js';

const doc = JSON.parse(fs.readFileSync(new URL('../fixtures/collection.json', import.meta.url), 'utf8')) as JsonApiDocument;

describe('flatten', () => {
  it('puts attributes and relationship ids beside id and type', () => {
    const r = flatten({
      type: 'prospect',
      id: 7,
      attributes: { firstName: 'Ada', title: null },
      relationships: {
        account: { data: { type: 'account', id: 5 } },
        owner: { data: null },
        emailAddresses: {
          data: [
            { type: 'emailAddress', id: 1 },
            { type: 'emailAddress', id: 2 },
          ],
        },
        calls: { links: { related: 'https://x/calls' } },
      },
    });
    expect(r).toEqual({ id: 7, type: 'prospect', firstName: 'Ada', title: null, account: 5, owner: null, emailAddresses: [1, 2] });
  });

  it('replaces an included id by its record, one level deep', () => {
    const d: JsonApiDocument = {
      data: [{ type: 'prospect', id: 1, relationships: { account: { data: { type: 'account', id: 5 } } } }],
      included: [
        {
          type: 'account',
          id: 5,
          attributes: { name: 'Acme' },
          relationships: { owner: { data: { type: 'user', id: 9 } }, self: { data: { type: 'account', id: 5 } } },
        },
      ],
    };
    const [r] = flattenDocument(d);
    expect(r!.account).toEqual({ id: 5, type: 'account', name: 'Acme', owner: 9, self: 5 });
    expect(flatten(d.data![0 as never] as never, indexIncluded(d))).toEqual(r);
  });

  it('flattens the spec fixture collection', () => {
    const records = flattenDocument(doc);
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) expect(typeof r.id === 'number' && typeof r.type === 'string').toBe(true);
  });

  it('no attribute and relationship of any type share a name, so flattening loses nothing', () => {
    for (const rt of RESOURCES) {
      const attrs = new Set(rt.attributes.map((a) => a.name));
      for (const rel of rt.relationships) expect(attrs.has(rel.name), `${rt.type}.${rel.name}`).toBe(false);
      expect(attrs.has('id') || attrs.has('type'), rt.type).toBe(false);
    }
  });
});

describe('CSV', () => {
  it.each(['=SUM(A1:A2)', '+1+2', '-2+3', '@cmd', '\tx', '=HYPERLINK("http://x")'])('neutralises %j', (v) => {
    expect(neutralise(v).startsWith("'")).toBe(true);
  });
  it('leaves plain numbers and text alone', () => {
    expect(neutralise('-5')).toBe('-5');
    expect(neutralise('+33.5')).toBe('+33.5');
    expect(neutralise('Acme')).toBe('Acme');
  });
  it('quotes per RFC 4180 and joins lists with ;', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell(['a@x.com', 'b@x.com'])).toBe('a@x.com;b@x.com');
    expect(csvCell(null)).toBe('');
    expect(csvCell({ id: 5, type: 'account', name: 'Acme' })).toBe('5');
    expect(csvLine([1, '=1+1', true])).toBe("1,'=1+1,true\n");
  });

  it('writes an object that only looks like a record (type and id among other members) whole, as JSON', () => {
    // An event's payload: its action, changes and old values were lost behind "10" (a trial).
    const payload = { type: 'prospect', id: 10, action: 'updated', changed: ['title'], before: { title: 'CTO' } };
    expect(csvCell(payload)).toBe(`"${JSON.stringify(payload).replaceAll('"', '""')}"`);
    // An included record with its fields and relationships stays its id, also with a field the
    // registry does not know (an org's own, a new one: it became JSON, a review).
    expect(csvCell({ id: 3, type: 'prospect', firstName: 'Ada', account: 5, meta: {} })).toBe('3');
    expect(csvCell({ id: 2, type: 'account', name: 'Atlas', brandNewField: 1 })).toBe('2');
    expect(
      csvCell([
        { id: 2, type: 'account', name: 'A' },
        { id: 3, type: 'account', extra: 1 },
      ]),
    ).toBe('2;3');
  });
});
