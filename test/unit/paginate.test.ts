/**
 * Paging: the next page is requested while the caller handles the current one, without ever
 * sending a request more than the listing needs; a caller that stops early aborts the prefetch;
 * a 502 on a prefetched page halves the page and asks again from the same place.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRequest, ApiResponse } from '../../src/api/client.js';
import { ApiError } from '../../src/errors.js';
import { endsAtOffsetCap, paginate, type PageClient } from '../../src/api/paginate.js';

const BASE = new URL('http://api.test/api/v2/');

/** A collection of `n` records with ids 1..n, paged by offset like the service (links.next). */
function fakeClient(n: number, opts: { fail502?: (q: URLSearchParams) => boolean } = {}) {
  const sent: { query: URLSearchParams; signal?: AbortSignal }[] = [];
  const client: PageClient = {
    baseUrl: BASE,
    resolve: (p: string) => new URL(p.replace(/^\/+/, ''), BASE),
    async request(req: ApiRequest): Promise<ApiResponse> {
      const url = new URL(req.path);
      const q = url.searchParams;
      sent.push({ query: q, signal: req.signal });
      await new Promise((r) => setTimeout(r, 1));
      if (req.signal?.aborted) throw new Error('aborted');
      if (opts.fail502?.(q)) throw new ApiError(502, [{ title: 'Bad Gateway' }]);
      const limit = Number(q.get('page[limit]'));
      const offset = Number(q.get('page[offset]') ?? 0);
      const [from, to] = (q.get('filter[id]') ?? '1..inf').split('..').map((b) => (b === 'inf' ? n : Math.min(n, Number(b))));
      const ids = [];
      for (let id = from! + offset; id <= to! && ids.length < limit; id++) ids.push(id);
      const more = from! + offset + limit <= to!;
      const next = new URL(url);
      next.searchParams.set('page[offset]', String(offset + limit));
      const doc = { data: ids.map((id) => ({ type: 'prospect', id })), links: more ? { next: next.toString() } : {} };
      return { status: 200, url: url.toString(), headers: {}, doc, text: '', rateLimit: {} };
    },
  };
  return { client, sent };
}

const ids = (pages: { records: { id: number | string }[] }[]) => pages.flatMap((p) => p.records.map((r) => Number(r.id)));

describe('paginate', () => {
  it('asks for the next page before the caller is done with the current one', async () => {
    const { client, sent } = fakeClient(2500);
    const seen: number[] = [];
    const pages = [];
    for await (const page of paginate(client, 'prospects', { query: {}, all: true })) {
      seen.push(sent.length);
      pages.push(page);
    }
    expect(ids(pages)).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
    // When page 1 arrives page 2 is already on its way; the last page prefetches nothing.
    expect(seen).toEqual([2, 3, 3]);
    expect(sent).toHaveLength(3);
  });

  it('sends no request beyond the limit, and aborts the prefetch of a caller that stops', async () => {
    const limited = fakeClient(5000);
    const pages = [];
    for await (const page of paginate(limited.client, 'prospects', { query: {}, limit: 1500 })) pages.push(page);
    expect(ids(pages)).toHaveLength(1500);
    expect(limited.sent.map((s) => s.query.get('page[limit]'))).toEqual(['1000', '500']);

    const stopped = fakeClient(5000);
    for await (const page of paginate(stopped.client, 'prospects', { query: {}, all: true })) {
      expect(page.records).toHaveLength(1000);
      break;
    }
    expect(stopped.sent).toHaveLength(2);
    expect(stopped.sent[1]!.signal?.aborted).toBe(true);
  });

  it('halves the page when a prefetched page answers 502, from the same offset', async () => {
    let failed = false;
    const { client, sent } = fakeClient(3000, {
      fail502: (q) => {
        if (failed || q.get('page[offset]') !== '1000') return false;
        failed = true;
        return true;
      },
    });
    const warnings: string[] = [];
    const pages = [];
    for await (const page of paginate(client, 'prospects', { query: {}, all: true, warn: (m) => warnings.push(m) })) pages.push(page);
    expect(ids(pages)).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
    expect(warnings).toEqual(['page of 1000 answered 502; retrying with pages of 500']);
    expect(sent.map((s) => `${s.query.get('page[offset]') ?? 0}+${s.query.get('page[limit]')}`)).toEqual([
      '0+1000',
      '1000+1000',
      '1000+500',
      '1500+500',
      '2000+500',
      '2500+500',
    ]);
  });

  it('continues by id past the offset cap, never sending an offset above 10,000', async () => {
    const { client, sent } = fakeClient(23_456);
    const pages = [];
    for await (const page of paginate(client, 'prospects', { query: {}, all: true })) pages.push(page);
    expect(ids(pages)).toEqual(Array.from({ length: 23_456 }, (_, i) => i + 1));
    expect(sent).toHaveLength(24);
    for (const s of sent) expect(Number(s.query.get('page[offset]') ?? 0)).toBeLessThanOrEqual(10_000);
    expect(sent[11]!.query.get('filter[id]')).toBe('11001..inf');
    expect(sent.every((s) => s.query.get('sort') === 'id')).toBe(true);
  });

  it("continues by id past the offset cap within the caller's filter on id", async () => {
    // With a filter on id the listing paged by offset and stopped at the cap (a trial).
    const query = { filters: [{ path: ['id'], kind: 'range' as const, values: [], from: '5', to: '12004', escaped: false }] };
    const { client, sent } = fakeClient(23_456);
    const pages = [];
    for await (const page of paginate(client, 'prospects', { query, all: true })) pages.push(page);
    expect(ids(pages)).toEqual(Array.from({ length: 12_000 }, (_, i) => i + 5));
    expect(sent.map((s) => s.query.getAll('filter[id]'))).toEqual([...Array.from({ length: 11 }, () => ['5..12004']), ['11005..12004']]);
    expect(sent.every((s) => s.query.get('sort') === 'id')).toBe(true);
  });

  it('knows a page that ends at the offset cap: a next link past it, or none after a full page short of the last', () => {
    const at = (q: string) => new URL(`prospects?${q}`, BASE);
    const page = at('page[limit]=500&page[offset]=10000');
    expect(endsAtOffsetCap(page, { links: { next: at('page[limit]=500&page[offset]=10500').href } }, 500)).toBe(true);
    expect(endsAtOffsetCap(page, { links: { first: at('').href } }, 500)).toBe(true);
    expect(endsAtOffsetCap(page, { links: { first: at('').href, last: page.href } }, 500)).toBe(false);
    expect(endsAtOffsetCap(page, { links: {} }, 499)).toBe(false);
    expect(endsAtOffsetCap(at('page[limit]=500&page[offset]=9500'), { links: {} }, 500)).toBe(false);
  });

  it('continues by id past the offset cap with ids above 2^53, counting in digits', async () => {
    const first = 2n ** 53n + 1n; // 9007199254740993: a Number would make it …992
    const total = 11_500;
    const sent: URLSearchParams[] = [];
    const client: PageClient = {
      baseUrl: BASE,
      resolve: (p: string) => new URL(p.replace(/^\/+/, ''), BASE),
      async request(req: ApiRequest): Promise<ApiResponse> {
        const url = new URL(req.path);
        const q = url.searchParams;
        sent.push(q);
        const limit = Number(q.get('page[limit]'));
        const offset = BigInt(q.get('page[offset]') ?? 0);
        const from = BigInt((q.get('filter[id]') ?? `${first}..inf`).split('..')[0]!);
        const data = [];
        for (let id = from + offset; id < first + BigInt(total) && data.length < limit; id++)
          data.push({ type: 'prospect', id: String(id) });
        const next = new URL(url);
        next.searchParams.set('page[offset]', String(offset + BigInt(limit)));
        const doc = { data, links: data.length === limit ? { next: next.toString() } : {} };
        return { status: 200, url: url.toString(), headers: {}, doc, text: '', rateLimit: {} };
      },
    };
    const got: string[] = [];
    for await (const page of paginate(client, 'prospects', { query: {}, all: true })) got.push(...page.records.map((r) => String(r.id)));
    expect(got).toHaveLength(total);
    expect(new Set(got).size).toBe(total);
    expect(got.at(-1)).toBe(String(first + BigInt(total - 1)));
    expect(sent[11]!.get('filter[id]')).toBe(`${first + 11_000n}..inf`);
  });
});
