/** The query engine (spec: Query parameters for collections, Limits). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Client } from '../helpers/sandbox.js';

let c: Client;
beforeAll(async () => {
  c = await start({ seed: 60 });
});
afterAll(() => c.sb.close());

const ids = (r: { body: any }) => r.body.data.map((d: any) => d.id);

describe('filters', () => {
  it('equality and comma lists', async () => {
    const r = await c.get('/prospects?filter[title]=CEO&page[limit]=1000');
    expect(r.body.data.length).toBeGreaterThan(0);
    for (const p of r.body.data) expect(p.attributes.title).toBe('CEO');
    const l = await c.get('/prospects?filter[title]=CEO,CTO&page[limit]=1000');
    expect(l.body.data.length).toBeGreaterThan(r.body.data.length);
    for (const p of l.body.data) expect(['CEO', 'CTO']).toContain(p.attributes.title);
  });

  it("the org's labelled custom fields filter and sort (as strings); unlabelled ones do neither", async () => {
    const r = await c.get('/prospects?filter[custom1]=Referral&page[limit]=1000');
    expect(r.status).toBe(200);
    expect(r.body.data.length).toBeGreaterThan(0);
    for (const p of r.body.data) expect(p.attributes.custom1).toBe('Referral');
    const s = await c.get('/prospects?sort=-custom2&page[limit]=1000');
    expect(s.status).toBe(200);
    const scores = s.body.data.map((p: any) => p.attributes.custom2).filter((v: unknown) => v != null);
    expect(scores.length).toBeGreaterThan(1);
    expect(scores).toEqual([...scores].sort().reverse());
    const unlabelled = await c.get('/prospects?filter[custom9]=x');
    expect(unlabelled.status).toBe(422);
    expect(JSON.stringify(unlabelled.body)).toContain('prospect.custom9 is not filterable');
    expect((await c.get('/prospects?sort=custom9')).status).toBe(422);
  });

  it('list attributes match any element (emails)', async () => {
    const one = await c.get('/prospects/3');
    const email = one.body.data.attributes.emails[0];
    const r = await c.get(`/prospects?filter[emails]=${encodeURIComponent(email)}`);
    expect(ids(r)).toEqual([3]);
  });

  it('ranges with neginf / inf, and filter[id] ranges', async () => {
    expect(ids(await c.get('/prospects?filter[id]=3..5'))).toEqual([3, 4, 5]);
    expect(ids(await c.get('/prospects?filter[id]=neginf..2'))).toEqual([1, 2]);
    const tail = ids(await c.get('/prospects?filter[id]=58..inf'));
    expect(tail).toEqual([58, 59, 60]);
    const mid = (await c.get('/prospects/10')).body.data.attributes.createdAt as string;
    const r = await c.get(`/prospects?filter[createdAt]=neginf..${mid}&page[limit]=1000`);
    for (const p of r.body.data) expect(p.attributes.createdAt <= mid).toBe(true);
  });

  it('relationship id and relationship attribute', async () => {
    const byId = await c.get('/prospects?filter[account][id]=2&page[limit]=1000');
    expect(byId.body.data.length).toBeGreaterThan(0);
    for (const p of byId.body.data) expect(p.relationships.account.data.id).toBe(2);
    const name = (await c.get('/accounts/2')).body.data.attributes.name;
    const byName = await c.get(`/prospects?filter[account][name]=${encodeURIComponent(name)}&page[limit]=1000`);
    expect(ids(byName)).toEqual(ids(byId));
  });

  it('newFilterSyntax: [] lists, [gte]/[lte] ranges, values with commas and dots', async () => {
    const r = await c.get('/prospects?newFilterSyntax=true&filter[id][]=2&filter[id][]=4');
    expect(ids(r)).toEqual([2, 4]);
    expect(ids(await c.get('/prospects?newFilterSyntax=true&filter[id][gte]=59'))).toEqual([59, 60]);
    expect(ids(await c.get('/prospects?newFilterSyntax=true&filter[id][gte]=2&filter[id][lte]=3'))).toEqual([2, 3]);
    const made = await c.post('/accounts', { data: { type: 'account', attributes: { name: 'Acme, Inc..' } } });
    const found = await c.get(`/accounts?newFilterSyntax=true&filter[name]=${encodeURIComponent('Acme, Inc..')}`);
    expect(ids(found)).toEqual([made.body.data.id]);
  });

  it('422 naming the parameter for a filter on a non-filterable attribute', async () => {
    const r = await c.get('/prospects?filter[gender]=x');
    expect(r.status).toBe(422);
    expect(r.body.errors[0]).toMatchObject({ id: 'validationError', source: { parameter: 'filter[gender]' } });
    expect((await c.get('/prospects?filter[nope]=x')).status).toBe(422);
  });

  it('only named accounts appear in the index', async () => {
    const all = await c.get('/accounts?page[limit]=1000');
    for (const a of all.body.data) expect(a.attributes.named).toBe(true);
    const unnamed = await c.get('/accounts?filter[named]=false');
    expect(unnamed.body.data.length).toBeGreaterThan(0);
  });
});

describe('sort', () => {
  it('multi-key with -', async () => {
    const r = await c.get('/prospects?sort=title,-id&page[limit]=1000');
    const rows = r.body.data.map((p: any) => [p.attributes.title, p.id]);
    const sorted = [...rows].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : b[1] - a[1]));
    expect(rows).toEqual(sorted);
  });

  it('rel.attr (deprecated) sorts by the related record', async () => {
    const r = await c.get('/prospects?sort=account.name&include=account&page[limit]=1000');
    const names = new Map(r.body.included.map((a: any) => [a.id, a.attributes.name]));
    const seq = r.body.data.map((p: any) => names.get(p.relationships.account.data.id) as string);
    expect(seq).toEqual([...seq].sort());
  });

  it('422 for a sort on a non-sortable attribute', async () => {
    const r = await c.get('/prospects?sort=timeZone');
    expect(r.status).toBe(422);
    expect(r.body.errors[0].source.parameter).toBe('sort');
  });
});

describe('pages, links and counts', () => {
  it('default page of 50, links first/next/last on the base URL, meta.count null', async () => {
    const r = await c.get('/prospects');
    expect(r.body.data).toHaveLength(50);
    expect(r.body.meta).toEqual({ count: null });
    expect(r.body.links.first.startsWith(c.sb.baseUrl + '/prospects?')).toBe(true);
    expect(r.body.links).not.toHaveProperty('prev');
    const next = await c.get(r.body.links.next);
    expect(ids(next)).toEqual([51, 52, 53, 54, 55, 56, 57, 58, 59, 60]);
    // prev leads back to the first page (toBeDefined() passed for a null prev, or one pointing anywhere).
    expect(next.body.links.prev.startsWith(c.sb.baseUrl + '/prospects?')).toBe(true);
    expect(ids(await c.get(next.body.links.prev))).toEqual(ids(r));
    expect(next.body.links).not.toHaveProperty('next');
    expect(next.body.links.last).toBe(r.body.links.last);
  });

  it('page[size] and page[limit] up to 1000, page[offset] up to 10000, else 422 naming it', async () => {
    expect((await c.get('/prospects?page[size]=5')).body.data).toHaveLength(5);
    const big = await c.get('/prospects?page[limit]=1001');
    expect(big.status).toBe(422);
    expect(big.body.errors[0].source.parameter).toBe('page[limit]');
    const off = await c.get('/prospects?page[offset]=10001');
    expect(off.status).toBe(422);
    expect(off.body.errors[0].source.parameter).toBe('page[offset]');
    expect((await c.get('/prospects?page[offset]=10000')).body.data).toEqual([]);
  });

  it('count=true gives meta.count and count_truncated', async () => {
    const r = await c.get('/prospects?count=true&filter[id]=1..10');
    expect(r.body.meta).toEqual({ count: 10, count_truncated: false });
  });
});

describe('include and sparse fields', () => {
  it('nested include a.b, deduplicated, with full linkage', async () => {
    const r = await c.get('/sequenceStates?include=sequence.ruleset,prospect&page[limit]=5');
    const types = new Set(r.body.included.map((i: any) => i.type));
    expect(types).toEqual(new Set(['sequence', 'ruleset', 'prospect']));
    const keys = r.body.included.map((i: any) => `${i.type}:${i.id}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('an included links-only to-many carries data', async () => {
    const r = await c.get('/accounts/2?include=prospects');
    expect(Array.isArray(r.body.data.relationships.prospects.data)).toBe(true);
    expect(r.body.included.every((i: any) => i.type === 'prospect')).toBe(true);
  });

  it('fields[type] limits attributes and relationships; empty list returns none', async () => {
    const r = await c.get('/prospects/1?fields[prospect]=firstName,account');
    expect(Object.keys(r.body.data.attributes)).toEqual(['firstName']);
    expect(Object.keys(r.body.data.relationships)).toEqual(['account']);
    const none = await c.get('/prospects/1?fields[prospect]=');
    expect(none.body.data.attributes).toEqual({});
    const inc = await c.get('/prospects/1?include=owner&fields[user]=email');
    expect(Object.keys(inc.body.included[0].attributes)).toEqual(['email']);
  });

  it('422 for an unknown include or field', async () => {
    expect((await c.get('/prospects?include=nope')).body.errors[0].source.parameter).toBe('include');
    expect((await c.get('/prospects?fields[prospect]=nope')).status).toBe(422);
  });
});
