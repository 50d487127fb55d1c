/**
 * Listing pages read into recycled buffers (page-buffers.ts): memory is used again once a page is
 * released, never while its records may still be read, and a record read after its page was
 * released fails loudly instead of showing another page's bytes. Paging over a real sandbox
 * with the buffers gives exactly the records paging without them gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { PageBuffers } from '../../src/listing/page-buffers.js';
import { paginate } from '../../src/api/paginate.js';
import { listPages } from '../../src/listing/pages.js';
import { parseCollection, attributesRegion } from '../../src/listing/page-parse.js';
import type { ResourceObject } from '../../src/api/jsonapi.js';
import { recordText, indexIncluded } from '../../src/listing/record-text.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';

describe('PageBuffers', () => {
  it('hands a released buffer out again and detaches every view of the released one', () => {
    const pool = new PageBuffers();
    const a = pool.take(1000);
    a.fill(65);
    const view = a.subarray(10, 20);
    pool.release(a);
    expect(a.length).toBe(0);
    expect(view.length).toBe(0);
    const b = pool.take(900);
    expect(pool.reused).toBe(1);
    expect(b.length).toBe(900);
    // The same memory: what the released buffer held is still there.
    expect(b[0]).toBe(65);
  });

  it('makes a new buffer when none released is large enough, and keeps the last two released', () => {
    const pool = new PageBuffers();
    const big = pool.take(10_000);
    const [x, y, z] = [pool.take(10), pool.take(10), pool.take(10)];
    for (const b of [big, x, y, z]) pool.release(b);
    // `big` and `x` were pushed out by `y` and `z`: none of 5,000 is left, two small ones are.
    pool.take(5000);
    expect(pool.reused).toBe(0);
    pool.take(10);
    pool.take(10);
    expect(pool.reused).toBe(2);
    pool.take(10);
    expect(pool.reused).toBe(2);
  });

  it('leaves alone buffers it did not make, and releases each of its own once', () => {
    const pool = new PageBuffers();
    // A slice of Node's shared pool: detaching it would empty every small buffer of the process.
    const shared = Buffer.from('shared pool');
    const other = Buffer.from('also shared');
    pool.release(shared);
    expect(shared.toString()).toBe('shared pool');
    expect(other.toString()).toBe('also shared');
    const own = pool.take(50);
    pool.release(own);
    pool.release(own);
    pool.take(50);
    pool.take(50);
    expect(pool.reused).toBe(1);
  });

  it('makes a record read after its page was released fail with an internal error', () => {
    const pool = new PageBuffers();
    const data = Array.from({ length: 400 }, (_, i) => ({
      type: 'prospect',
      id: i + 1,
      attributes: { firstName: `Name ${i}`, notes: 'x'.repeat(700) },
      relationships: { account: { data: { type: 'account', id: 7 } } },
    }));
    const text = JSON.stringify({ data });
    const body = pool.take(Buffer.byteLength(text));
    body.write(text);
    const doc = parseCollection(body) as { data: ResourceObject[] };
    // Unparsed (the scanner's path), and read correctly while the page is live.
    expect(attributesRegion(doc.data[0]!)).toBeDefined();
    expect(JSON.parse(recordText(doc.data[0]!, undefined))).toMatchObject({ id: 1, firstName: 'Name 0' });
    pool.release(body);
    expect(() => doc.data[1]!.attributes).toThrow(/internal error: a listing page's records were read after its memory was reused/);
    expect(() => recordText(doc.data[2]!, undefined)).toThrow(/internal error/);
  });
});

describe('paging with recycled buffers, over HTTP', () => {
  let sb: Sandbox;
  let client: ApiClient;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, seed: 700 });
    client = new ApiClient({ baseUrl: sb.baseUrl, tokens: { getToken: async () => sb.token } });
  });
  afterAll(async () => {
    await client.close();
    await sb.close();
  });

  /** Every record's flat JSON, paging by 100 (pages of ~600 KB: the scanner's path). */
  async function list(recycled: boolean): Promise<string[]> {
    const lines: string[] = [];
    const opts = { query: { include: ['account'] }, all: true, pageSize: 100 };
    let previous: ResourceObject | undefined;
    for await (const page of recycled ? listPages(client, 'prospects', opts) : paginate(client, 'prospects', opts)) {
      // Asking for this page handed the one before back: its records are gone, loudly.
      if (recycled && previous) expect(() => previous!.attributes).toThrow(/internal error/);
      const included = indexIncluded(page.doc);
      for (const r of page.records) lines.push(recordText(r, included));
      previous = page.records[0];
    }
    // Stopping hands the last page back too.
    if (recycled && previous) expect(() => previous!.attributes).toThrow(/internal error/);
    return lines;
  }

  it('gives the same records as paging without them, each page handed back when the next is asked for', async () => {
    const recycled = await list(true);
    const plain = await list(false);
    expect(recycled).toHaveLength(700);
    expect(recycled).toEqual(plain);
  });
});
