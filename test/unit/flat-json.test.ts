/**
 * recordText (the ndjson fast path of `list`) must write exactly what JSON.stringify(flatten(...))
 * writes, for any resource — including names that make it fall back (id, type, meta, __proto__,
 * index-like keys, attributes shared with relationships) and included records.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResourceObject } from '../../src/api/jsonapi.js';
import { recordText, flatten, indexIncluded } from '../../src/listing/record-text.js';
import { propertyRuns } from '../helpers/property-runs.js';

const name = fc.oneof(
  fc.constantFrom('id', 'type', 'meta', '__proto__', '1', '01', '', 'account', 'owner', 'tags', 'custom1', 'firstName', 'é', 'a"b'),
  fc.string({ maxLength: 6 }),
);
const value = fc.jsonValue({ maxDepth: 2 });
const id = fc.oneof(fc.integer({ min: 1, max: 1e6 }), fc.constantFrom('12', '007', 'abc', '9007199254740993'));
const ref = fc.record({ type: fc.constantFrom('account', 'user', 'tag'), id: fc.integer({ min: 1, max: 4 }) });
const rel = fc.oneof(
  fc.record({ data: fc.oneof(fc.constant(null), ref, fc.array(ref, { maxLength: 3 })), links: fc.constant({ related: 'https://x/r' }) }),
  fc.record({ links: fc.constant({ related: 'https://x/r' }) }),
  fc.constant({ data: undefined }),
);

/** An object from JSON text, as the client gets it (a `__proto__` key stays an own property). */
function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  return JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`) as Record<string, unknown>;
}

const resource: fc.Arbitrary<ResourceObject> = fc
  .record(
    {
      id,
      type: fc.constantFrom('prospect', 'account'),
      attributes: fc.oneof(fc.array(fc.tuple(name, value), { maxLength: 8 }).map(objectOf), fc.constant(undefined)),
      relationships: fc.oneof(fc.dictionary(name, rel, { maxKeys: 4 }), fc.constant(undefined)),
      meta: fc.oneof(fc.constant(undefined), fc.constant({}), fc.constant({ deleted: true })),
    },
    { requiredKeys: ['id', 'type'] },
  )
  .map((r) => r as unknown as ResourceObject);

describe('recordText', () => {
  it('equals JSON.stringify(flatten(r)) for any resource and included records', () => {
    fc.assert(
      fc.property(resource, fc.array(resource, { maxLength: 4 }), (r, included) => {
        const index = indexIncluded({
          included: included.map((x, i) => ({ ...x, type: ['account', 'user', 'tag'][i % 3]!, id: (i % 4) + 1 })),
        });
        expect(recordText(r, index)).toBe(JSON.stringify(flatten(r, index)));
      }),
      { numRuns: propertyRuns(2000) },
    );
  });

  it('takes the fast path for a record with hundreds of null custom fields', () => {
    const attributes: Record<string, unknown> = { firstName: 'Ada', emails: ['ada@example.com'] };
    for (let i = 1; i <= 150; i++) attributes[`custom${i}`] = null;
    const r: ResourceObject = { type: 'prospect', id: '7', attributes, relationships: { account: { data: { type: 'account', id: 5 } } } };
    const line = recordText(r);
    expect(line).toBe(JSON.stringify(flatten(r)));
    expect(line.startsWith('{"id":7,"type":"prospect","firstName":"Ada"')).toBe(true);
    expect(line.endsWith('"custom150":null,"account":5}')).toBe(true);
  });
});
