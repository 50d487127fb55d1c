/**
 * The follower over HTTP against the sandbox, with a small poll limit standing in for the
 * service's offset cap: a window of more events than one poll reads is read over several polls,
 * each event once and in order, and a dense second does not keep it reading the same page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { EventFollower, type FollowOptions } from '../../src/events/follow.js';
import { doc, start, type Client } from '../helpers/sandbox.js';
import { indexEvents, isoSecond, writes } from './helpers.js';

let c: Client;
let api: ApiClient;

beforeAll(async () => {
  c = await start({ seed: 5 });
  api = new ApiClient({ baseUrl: c.sb.baseUrl, tokens: { getToken: async () => c.sb.token } });
});
afterAll(async () => {
  await api.close();
  await c.sb.close();
});

async function readAll(opts: Omit<FollowOptions, 'filters'>): Promise<{ ids: string[]; polls: number }> {
  const f = new EventFollower(api, { filters: [], ...opts });
  const ids: string[] = [];
  let polls = 0;
  do {
    polls++;
    for await (const batch of f.poll()) ids.push(...batch.map((e) => e.id));
  } while (f.more && polls < 100);
  return { ids, polls };
}

describe('EventFollower', () => {
  it('reads a window larger than a poll over several polls, each event once, in order', async () => {
    const t0 = Date.now() - 1000;
    await writes(c, 45, 4);
    const index = await indexEvents(c, isoSecond(t0));
    const { ids, polls } = await readAll({ start: { from: t0 - (t0 % 1000) }, pollLimit: 10, pageSize: 4 });
    expect(ids).toEqual(index.map((e) => e.id));
    expect(polls).toBeGreaterThan(4);
  });

  it('moves past a second holding more events than a poll reads instead of reading it forever', async () => {
    const at = Date.now() - 5000;
    const realNow = c.sb.store.now;
    try {
      c.sb.store.now = () => at;
      await writes(c, 12, 1);
    } finally {
      c.sb.store.now = realNow;
    }
    const { ids, polls } = await readAll({ start: { from: at - 1000 }, pollLimit: 5, pageSize: 5 });
    expect(polls).toBeLessThan(100);
    // Every event from there on, once each: the 12 of that second and those after it.
    expect(ids).toEqual((await indexEvents(c, isoSecond(at - 1000))).map((e) => e.id));
    expect(ids.length).toBeGreaterThanOrEqual(12);
  });

  it("hands on each event once when a prospect's delete touches its earlier events, long after them", async () => {
    const t0 = Date.now() - 1000;
    const f = new EventFollower(api, { filters: [], start: { from: t0 - (t0 % 1000) }, overlapMs: 1000 });
    const names = async () => {
      const out: string[] = [];
      for await (const batch of f.poll()) out.push(...batch.map((e) => String(e.record.attributes?.['name'])));
      return out;
    };
    const realNow = c.sb.store.now;
    /** Runs `fn` with the sandbox's clock `ms` ahead: the org's life goes on while the follower reads. */
    const later = async <T>(ms: number, fn: () => Promise<T>): Promise<T> => {
      c.sb.store.now = () => realNow.call(c.sb.store) + ms;
      try {
        return await fn();
      } finally {
        c.sb.store.now = realNow;
      }
    };
    const id = Number((await c.post('/prospects', doc('prospect', { firstName: 'Ingrid', lastName: 'Bergström' }))).body.data.id);
    expect(await names()).toContain('prospect_created');
    // Other events move the follower past its overlap window: Ingrid's event is out of its memory.
    await later(20_000, () => c.post('/prospects', doc('prospect', { firstName: 'Åke' })));
    expect(await names()).toEqual(['prospect_created']);
    // Her delete 30 s on unlinks her events from her, which touches them. Read by updatedAt, her
    // created event came back after the destroyed one.
    expect((await later(30_000, () => c.del(`/prospects/${id}`))).status).toBe(204);
    expect(await names()).toEqual(['prospect_destroyed']);
  });
});
