/**
 * The query shapes a local mirror of the org (`svc sync`) reads with, over HTTP against the
 * sandbox: `filter[updatedAt]` ranges with inclusive ends (spec, "range filter[attr]=a..b: bounds
 * inclusive"), `sort=updatedAt,id` with ties broken by id, keyset paging by `filter[id]=N..inf`
 * with `sort=id`, ids-only sparse fieldsets (`fields[type]=`), `meta.count` with `count=true`,
 * and unnamed accounts listed when filtered by `named`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, doc, start } from '../helpers/sandbox.js';

let c: Client;
beforeAll(async () => {
  c = await start({ seed: 300 });
  // Gaps in the ids, as deletes leave them.
  for (const id of [3, 4, 5, 100, 299]) expect((await c.del(`/prospects/${id}`)).status).toBe(204);
});
afterAll(() => c.sb.close());

const ids = (r: { body: any }) => r.body.data.map((x: any) => Number(x.id));
const text = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/** Every page of `path` by keyset on id, `limit` at a time. */
async function keyset(path: string, limit: number): Promise<any[]> {
  const out: any[] = [];
  let after = 0;
  for (;;) {
    const r = await c.get(`${path}${path.includes('?') ? '&' : '?'}filter[id]=${after + 1}..inf&sort=id&page[limit]=${limit}`);
    expect(r.status, r.text).toBe(200);
    out.push(...r.body.data);
    if (r.body.data.length < limit) return out;
    after = Number(r.body.data.at(-1).id);
  }
}

describe('what a mirror reads with', () => {
  it('filter[id]=N..inf with sort=id pages every record once, in id order, across gaps', async () => {
    const all = await keyset('/prospects?fields[prospect]=', 7);
    const want = [...c.sb.store.table('prospect').keys()].sort((a, b) => a - b);
    expect(all.map((p) => Number(p.id))).toEqual(want);
    expect(want).not.toContain(100);
    const from = await c.get('/prospects?filter[id]=100..inf&sort=id&page[limit]=2&fields[prospect]=');
    expect(ids(from)).toEqual([101, 102]);
  });

  it('filter[updatedAt]=a..b includes both ends, in the original and the bracket syntax; neginf and inf are open ends', async () => {
    const p = (await c.get('/prospects/10')).body.data;
    const t: string = p.attributes.updatedAt;
    const next = text(Date.parse(`${t}Z`) + 1000);
    const prev = text(Date.parse(`${t}Z`) - 1000);
    const has = async (q: string) => ids(await c.get(`/prospects?${q}&fields[prospect]=updatedAt&page[limit]=1000`)).includes(10);
    expect(await has(`filter[updatedAt]=${t}..${t}`)).toBe(true);
    expect(await has(`filter[updatedAt]=${prev}..${t}`)).toBe(true);
    expect(await has(`filter[updatedAt]=${t}..${next}`)).toBe(true);
    expect(await has(`filter[updatedAt]=${next}..inf`)).toBe(false);
    expect(await has(`filter[updatedAt]=neginf..${prev}`)).toBe(false);
    expect(await has(`filter[updatedAt]=neginf..${t}`)).toBe(true);
    expect(await has(`newFilterSyntax=true&filter[updatedAt][gte]=${t}&filter[updatedAt][lte]=${t}`)).toBe(true);
    expect(await has(`newFilterSyntax=true&filter[updatedAt][gte]=${next}`)).toBe(false);
    // A date alone as the upper bound covers its whole day.
    expect(await has(`filter[updatedAt]=${t.slice(0, 10)}..${t.slice(0, 10)}`)).toBe(true);
    // Every record in a window is within it.
    const r = await c.get(`/prospects?filter[updatedAt]=${prev}..${next}&fields[prospect]=updatedAt&page[limit]=1000`);
    for (const x of r.body.data) expect(x.attributes.updatedAt >= prev && x.attributes.updatedAt <= next).toBe(true);
  });

  it('sort=updatedAt,id orders by updatedAt then id, so a window read with an overlap is stable', async () => {
    // Five updates in one second (the clock held still): equal updatedAt, told apart by id.
    const clock = c.sb.store.now;
    const held = Math.floor(Date.now() / 1000) * 1000 + 60_000;
    c.sb.store.now = () => held;
    try {
      for (const id of [60, 20, 40, 10, 30])
        expect((await c.patch(`/prospects/${id}`, doc('prospect', { title: `T${id}` }, {}, id))).status).toBe(200);
    } finally {
      c.sb.store.now = clock;
    }
    const at = text(held);
    const r = await c.get(`/prospects?filter[updatedAt]=${at}..inf&sort=updatedAt,id&fields[prospect]=updatedAt`);
    expect(ids(r)).toEqual([10, 20, 30, 40, 60]);
    const desc = await c.get(`/prospects?filter[updatedAt]=${at}..inf&sort=-updatedAt,-id&fields[prospect]=updatedAt`);
    expect(ids(desc)).toEqual([60, 40, 30, 20, 10]);
    // The whole table in (updatedAt, id) order, page by page with offsets under the cap.
    const pages: any[] = [];
    for (let off = 0; ; off += 100) {
      const p = await c.get(`/prospects?sort=updatedAt,id&fields[prospect]=updatedAt&page[limit]=100&page[offset]=${off}`);
      pages.push(...p.body.data);
      if (p.body.data.length < 100) break;
    }
    const keys = pages.map((x) => [x.attributes.updatedAt as string, Number(x.id)] as const);
    const sorted = [...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    expect(keys).toEqual(sorted);
    expect(keys).toHaveLength(c.sb.store.table('prospect').size);
  });

  it('fields[type]= returns ids only; the collection name or id in a fieldset is refused with the fix', async () => {
    const r = await c.get('/mailings?fields[mailing]=&page[limit]=3');
    expect(r.status).toBe(200);
    for (const m of r.body.data) {
      expect(Object.keys(m).sort()).toEqual(['attributes', 'id', 'relationships', 'type']);
      expect(m.attributes).toEqual({});
      expect(m.relationships).toEqual({});
    }
    const plural = await c.get('/prospects?fields[prospects]=');
    expect(plural.status).toBe(422);
    expect(plural.body.errors[0].detail).toBe("Unknown type 'prospects' in fields. Name the type: fields[prospect].");
    const id = await c.get('/prospects?fields[prospect]=id');
    expect(id.status).toBe(422);
    expect(id.body.errors[0].detail).toContain('fields[prospect]= returns no other field');
  });

  it('meta.count with count=true counts the whole filtered list (null without it)', async () => {
    const all = await c.get('/prospects?count=true&page[limit]=1');
    expect(all.body.meta).toEqual({ count: c.sb.store.table('prospect').size, count_truncated: false });
    expect((await c.get('/prospects?page[limit]=1')).body.meta.count).toBeNull();
    const t = (await c.get('/prospects/10')).body.data.attributes.updatedAt;
    const window = await c.get(`/prospects?count=true&filter[updatedAt]=${t}..inf&page[limit]=1000&fields[prospect]=`);
    expect(window.body.meta.count).toBe(window.body.data.length);
  });

  it('unnamed accounts: hidden from the index, listed by filter[named]=false, all by filter[named]=true,false', async () => {
    const store = [...c.sb.store.table('account').values()];
    const unnamed = store.filter((a) => a.attributes['named'] !== true).map((a) => a.id);
    expect(unnamed.length).toBeGreaterThan(0);
    const index = await c.get('/accounts?count=true&page[limit]=1000&fields[account]=');
    expect(ids(index)).not.toEqual(expect.arrayContaining([unnamed[0]]));
    const only = await c.get('/accounts?filter[named]=false&count=true&page[limit]=1000&fields[account]=');
    expect(ids(only)).toEqual(unnamed);
    const every = await keyset('/accounts?filter[named]=true,false&fields[account]=named', 3);
    // Every account of the org, named or not: what a mirror must hold.
    const everyId = store.map((a) => a.id);
    expect(every.map((a) => Number(a.id))).toEqual(everyId);
    const counted = await c.get('/accounts?filter[named]=true,false&count=true&page[limit]=1');
    expect(counted.body.meta.count).toBe(everyId.length);
  });

  it('an account is named or not: named cannot be cleared, which would hide it from every list', async () => {
    const id = [...c.sb.store.table('account').values()].find((a) => a.attributes['named'] === true)!.id;
    const cleared = await c.patch(`/accounts/${id}`, doc('account', { named: null }, {}, id));
    expect(cleared.status).toBe(422);
    expect(cleared.body.errors[0]).toMatchObject({
      detail: 'named must be true or false: an account is named or not.',
      source: { pointer: '/data/attributes/named' },
    });
    expect((await c.post('/accounts', doc('account', { name: 'Nul', named: null }))).status).toBe(422);
    expect((await c.patch(`/accounts/${id}`, doc('account', { named: false }, {}, id))).status).toBe(200);
    expect(ids(await c.get('/accounts?page[limit]=1000&fields[account]='))).not.toContain(id);
    expect(ids(await c.get('/accounts?filter[named]=false&page[limit]=1000&fields[account]='))).toContain(id);
  });
});
