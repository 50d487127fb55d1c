/**
 * The query engine's shortcuts (id order read straight from the table, `filter[id]` ranges as
 * bounds, index candidates, top-k selection of sorted pages) against a plain reference: filter
 * every record, sort them all, slice. Random queries, fixed seed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Client } from '../helpers/sandbox.js';

interface Row {
  id: number;
  title: string | null;
  lastName: string | null;
  updatedAt: string;
  account: number | null;
}

let c: Client;
let rows: Row[];

beforeAll(async () => {
  c = await start({ seed: 300 });
  // Gaps in the ids: the id-ordered paths must not assume a dense table.
  for (const id of [1, 2, 50, 51, 52, 299]) expect((await c.del(`/prospects/${id}`)).status).toBe(204);
  const all = await c.get('/prospects?page[limit]=1000');
  rows = all.body.data.map((p: any) => ({
    id: p.id,
    title: p.attributes.title,
    lastName: p.attributes.lastName,
    updatedAt: p.attributes.updatedAt,
    account: p.relationships.account.data?.id ?? null,
  }));
  expect(rows).toHaveLength(294);
});
afterAll(() => c.sb.close());

type Filter =
  | { kind: 'idRange'; lo?: number; hi?: number }
  | { kind: 'idList'; ids: number[] }
  | { kind: 'title'; values: string[] }
  | { kind: 'account'; id: number };
type Sort = { key: 'id' | 'lastName' | 'updatedAt' | 'title'; desc: boolean }[];

const TITLES = ['CEO', 'CTO', 'VP Sales', 'Head of Growth', 'Nobody'];
const filterArb: fc.Arbitrary<Filter> = fc.oneof(
  fc.record({
    kind: fc.constant('idRange' as const),
    lo: fc.option(fc.integer({ min: -5, max: 320 }), { nil: undefined }),
    hi: fc.option(fc.integer({ min: -5, max: 320 }), { nil: undefined }),
  }),
  fc.record({
    kind: fc.constant('idList' as const),
    ids: fc.uniqueArray(fc.integer({ min: 1, max: 310 }), { minLength: 1, maxLength: 6 }),
  }),
  fc.record({ kind: fc.constant('title' as const), values: fc.uniqueArray(fc.constantFrom(...TITLES), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('account' as const), id: fc.integer({ min: 1, max: 30 }) }),
);
const sortArb: fc.Arbitrary<Sort> = fc.oneof(
  fc.constant<Sort>([]),
  fc.constant<Sort>([{ key: 'id', desc: false }]),
  fc.constant<Sort>([{ key: 'id', desc: true }]),
  fc.array(
    fc.record({ key: fc.constantFrom('lastName' as const, 'updatedAt' as const, 'title' as const, 'id' as const), desc: fc.boolean() }),
    { minLength: 1, maxLength: 2 },
  ),
);

function matches(r: Row, f: Filter): boolean {
  switch (f.kind) {
    case 'idRange':
      return (f.lo === undefined || r.id >= f.lo) && (f.hi === undefined || r.id <= f.hi);
    case 'idList':
      return f.ids.includes(r.id);
    case 'title':
      return r.title !== null && f.values.includes(r.title);
    case 'account':
      return r.account === f.id;
  }
}

/** The spec's sort: `-` descending, nulls last ascending; the sandbox breaks ties by id. */
function compare(sort: Sort): (a: Row, b: Row) => number {
  return (a, b) => {
    for (const { key, desc } of sort) {
      const x = a[key];
      const y = b[key];
      if (x === y) continue;
      const dir = desc ? -1 : 1;
      if (x === null) return dir;
      if (y === null) return -dir;
      return (x < y ? -1 : 1) * dir;
    }
    return a.id - b.id;
  };
}

function query(filters: Filter[], sort: Sort, limit: number, offset: number): string {
  const p: string[] = ['count=true', `page[limit]=${limit}`, `page[offset]=${offset}`];
  for (const f of filters) {
    if (f.kind === 'idRange') p.push(`filter[id]=${f.lo ?? 'neginf'}..${f.hi ?? 'inf'}`);
    if (f.kind === 'idList') p.push(`filter[id]=${f.ids.join(',')}`);
    if (f.kind === 'title') p.push(`filter[title]=${f.values.map(encodeURIComponent).join(',')}`);
    if (f.kind === 'account') p.push(`filter[account][id]=${f.id}`);
  }
  if (sort.length) p.push(`sort=${sort.map((s) => (s.desc ? '-' : '') + s.key).join(',')}`);
  return `/prospects?${p.join('&')}`;
}

describe('collection queries agree with filter-all, sort-all, slice', () => {
  it('for random filters, sorts and pages', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(filterArb, { maxLength: 2 }),
        sortArb,
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 40 }),
        async (filters, sort, limit, offset) => {
          const expected = rows.filter((r) => filters.every((f) => matches(r, f))).sort(compare(sort));
          const r = await c.get(query(filters, sort, limit, offset));
          expect(r.status).toBe(200);
          expect(r.body.data.map((d: any) => d.id)).toEqual(expected.slice(offset, offset + limit).map((e) => e.id));
          expect(r.body.meta.count).toBe(expected.length);
        },
      ),
      { seed: 20261122, numRuns: 150 },
    );
  });

  it('keyset paging by id walks every record once, in order', async () => {
    const seen: number[] = [];
    let next = 1;
    for (;;) {
      const page = await c.get(`/prospects?sort=id&filter[id]=${next}..inf&page[limit]=37`);
      const got = page.body.data.map((d: any) => d.id as number);
      if (!got.length) break;
      seen.push(...got);
      next = got[got.length - 1]! + 1;
    }
    expect(seen).toEqual(rows.map((r) => r.id));
  });

  it('sort=-id pages from the highest id, past gaps', async () => {
    const r = await c.get('/prospects?sort=-id&page[limit]=3&page[offset]=1');
    expect(r.body.data.map((d: any) => d.id)).toEqual([298, 297, 296]);
  });
});
