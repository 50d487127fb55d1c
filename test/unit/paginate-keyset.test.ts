/**
 * Paging by id (paginate's keyset mode, what `export` pages with): `sort=id` and `filter[id]`
 * from the id after the last one received, never an offset; a start after a known id; the
 * caller's own filter on id bounding the pages; ids kept as digit strings (never Number), against
 * a real sandbox over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiRequest } from '../../src/api/client.js';
import { paginate, type PageClient } from '../../src/api/paginate.js';
import { listPages } from '../../src/listing/pages.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';

describe('paginate by id (keyset mode), over HTTP', () => {
  let sb: Sandbox;
  let api: ApiClient;
  let all: string[];
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, seed: 71 });
    api = new ApiClient({ baseUrl: sb.baseUrl, tokens: { getToken: async () => sb.token } });
    all = [];
    for await (const page of paginate(api, 'prospects', { query: { sort: ['id'] }, all: true, pageSize: 1000 }))
      for (const r of page.records) all.push(String(r.id));
  });
  afterAll(async () => {
    await api.close();
    await sb.close();
  });

  /** The client, with the query of every request it sends. */
  function recording(): { client: PageClient; sent: URLSearchParams[] } {
    const sent: URLSearchParams[] = [];
    const client: PageClient = {
      baseUrl: api.baseUrl,
      resolve: (p) => api.resolve(p),
      request: (req: ApiRequest) => {
        sent.push(new URL(req.path, api.baseUrl).searchParams);
        return api.request(req);
      },
    };
    return { client, sent };
  }

  async function ids(pages: AsyncGenerator<{ records: { id: number | string }[] }>): Promise<string[]> {
    const out: string[] = [];
    for await (const page of pages) for (const r of page.records) out.push(String(r.id));
    return out;
  }

  it('lists every record in id order by id ranges, never by offset', async () => {
    expect(all.length).toBeGreaterThan(20);
    const { client, sent } = recording();
    expect(await ids(listPages(client, 'prospects', { query: {}, all: true, pageSize: 7, keyset: {} }))).toEqual(all);
    expect(sent.length).toBe(Math.ceil(all.length / 7) + (all.length % 7 === 0 ? 1 : 0));
    for (const [i, q] of sent.entries()) {
      expect(q.get('sort')).toBe('id');
      expect(q.get('page[offset]') ?? '0').toBe('0');
      // Each page starts after the last id of the one before.
      const from = i === 0 ? '1' : String(BigInt(all[i * 7 - 1]!) + 1n);
      expect(q.get('filter[id]')).toBe(`${from}..inf`);
    }
  });

  it('continues after a known id, within the caller own filter on id', async () => {
    const after = all[4]!;
    expect(await ids(listPages(api, 'prospects', { query: {}, all: true, pageSize: 5, keyset: { after } }))).toEqual(all.slice(5));
    const range = { path: ['id'], kind: 'range' as const, values: [], from: all[2]!, to: all[9]!, escaped: false };
    const bounded = listPages(api, 'prospects', { query: { filters: [range] }, all: true, pageSize: 3, keyset: { after } });
    expect(await ids(bounded)).toEqual(all.slice(5, 10));
    const list = { path: ['id'], kind: 'list' as const, values: [all[1]!, all[7]!, all[6]!], escaped: false };
    expect(await ids(listPages(api, 'prospects', { query: { filters: [list] }, all: true, keyset: { after } }))).toEqual([all[6], all[7]]);
  });

  it('keeps ids past 2^53 as digits', async () => {
    const { client, sent } = recording();
    const after = '9007199254740993';
    expect(await ids(paginate(client, 'prospects', { query: {}, all: true, keyset: { after } }))).toEqual([]);
    expect(sent[0]!.get('filter[id]')).toBe('9007199254740994..inf');
  });
});
