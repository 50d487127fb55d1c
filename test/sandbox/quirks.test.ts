/**
 * The quirks a mirror's tests switch on, off by default: `silentCascade` (a delete unlinks and
 * deletes dependents without touching `updatedAt` or recording events, as a server that cascades
 * silently would) and `futureUpdatedAt` (updates stamped minutes ahead of the clock). Set by the
 * `quirks` option or `POST /_sandbox/quirks`, checked over HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { type Client, doc, start } from '../helpers/sandbox.js';

let c: Client | undefined;
afterEach(async () => {
  await c?.sb.close();
  c = undefined;
});

const nowText = (ms = Date.now()) => new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19);
const quirks = (query = '') => c!.req(query ? 'POST' : 'GET', `${c!.sb.authUrl}/_sandbox/quirks${query ? `?${query}` : ''}`);
const eventsSince = async (t0: string) =>
  (await c!.get(`/events?filter[eventAt]=${t0}..inf&page[limit]=1000`)).body.data.map((e: any) => e.attributes.name as string);

/** An account with prospects, and a prospect of it with mailings. */
function fixture() {
  const store = c!.sb.store;
  const account = [...store.table('account').keys()].find(
    (id) => (store.referrers('prospect', 'account', { type: 'account', id })?.size ?? 0) > 0,
  )!;
  const prospects = [...store.referrers('prospect', 'account', { type: 'account', id: account })!];
  const withMail = [...store.table('prospect').keys()].find(
    (id) => (store.referrers('mailing', 'prospect', { type: 'prospect', id })?.size ?? 0) > 0,
  )!;
  const mailings = [...store.referrers('mailing', 'prospect', { type: 'prospect', id: withMail })!];
  return { account, prospects, withMail, mailings };
}

describe('quirks', () => {
  it('are off by default, and the control endpoint says so', async () => {
    c = await start();
    const r = await quirks();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ silentCascade: false, futureUpdatedAt: 0 });
  });

  it('silentCascade (option): referrers are unlinked and dependents deleted with no updatedAt moved and no event', async () => {
    c = await start({ seed: 120, quirks: { silentCascade: true } });
    const { account, prospects, withMail, mailings } = fixture();
    const before = new Map<string, string>();
    for (const id of prospects) before.set(String(id), (await c.get(`/prospects/${id}`)).body.data.attributes.updatedAt);
    const t0 = nowText();
    expect((await c.del(`/accounts/${account}`)).status).toBe(204);
    for (const id of prospects) {
      const p = (await c.get(`/prospects/${id}`)).body.data;
      expect(p.relationships.account.data).toBeNull();
      expect(p.attributes.updatedAt).toBe(before.get(String(id)));
    }
    expect((await c.del(`/prospects/${withMail}`)).status).toBe(204);
    for (const id of mailings) expect((await c.get(`/mailings/${id}`)).status).toBe(404);
    // Only the deletes asked for are recorded.
    expect(await eventsSince(t0)).toEqual(['account_destroyed', 'prospect_destroyed']);
  });

  it('silentCascade switched on and off while running', async () => {
    c = await start({ seed: 120 });
    const { account, prospects } = fixture();
    expect((await quirks('silentCascade=true')).body).toEqual({ silentCascade: true, futureUpdatedAt: 0 });
    const t0 = nowText();
    expect((await c.del(`/accounts/${account}`)).status).toBe(204);
    expect(await eventsSince(t0)).toEqual(['account_destroyed']);
    expect((await quirks('silentCascade=false')).body.silentCascade).toBe(false);
    const other = [...c.sb.store.table('account').keys()].find(
      (id) => (c!.sb.store.referrers('prospect', 'account', { type: 'account', id })?.size ?? 0) > 0,
    )!;
    const members = c.sb.store.referrers('prospect', 'account', { type: 'account', id: other })!.size;
    const t1 = nowText();
    expect((await c.del(`/accounts/${other}`)).status).toBe(204);
    const names: string[] = await eventsSince(t1);
    expect(names[0]).toBe('account_destroyed');
    expect(names.filter((n) => n === 'prospect_updated')).toHaveLength(members);
    // The silent delete's prospects were left as they were.
    for (const id of prospects) expect((await c.get(`/prospects/${id}`)).body.data.attributes.updatedAt < t0).toBe(true);
  });

  it('futureUpdatedAt: an update is stamped minutes ahead of the clock, a create is not; off again, updates are on time', async () => {
    c = await start();
    expect((await quirks('futureUpdatedAt=10')).body).toEqual({ silentCascade: false, futureUpdatedAt: 10 });
    const made = await c.post('/prospects', doc('prospect', { firstName: 'F' }));
    const id = made.body.data.id;
    expect(made.body.data.attributes.updatedAt <= nowText()).toBe(true);
    const t = Date.now();
    const up = await c.patch(`/prospects/${id}`, doc('prospect', { title: 'CEO' }, {}, id));
    expect(up.status).toBe(200);
    const ahead = Date.parse(`${up.body.data.attributes.updatedAt}Z`) - t;
    expect(ahead).toBeGreaterThan(9 * 60_000);
    expect(ahead).toBeLessThan(11 * 60_000);
    // A range ending at the server's clock misses it: what a mirror's watermark must survive.
    const r = await c.get(`/prospects?filter[id]=${id}&filter[updatedAt]=neginf..${nowText()}`);
    expect(r.body.data).toEqual([]);
    expect((await quirks('futureUpdatedAt=false')).body.futureUpdatedAt).toBe(0);
    const again = await c.patch(`/prospects/${id}`, doc('prospect', { title: 'CTO' }, {}, id));
    expect(again.body.data.attributes.updatedAt <= nowText()).toBe(true);
    // `true` means five minutes.
    expect((await quirks('futureUpdatedAt=true')).body.futureUpdatedAt).toBe(5);
  });

  it('futureUpdatedAt (option) leaves the seed dated as the API would and is reported by the control endpoint', async () => {
    c = await start({ seed: 120, quirks: { futureUpdatedAt: 30 } });
    expect((await quirks()).body).toEqual({ silentCascade: false, futureUpdatedAt: 30 });
    const now = nowText();
    for (const type of ['sequenceStates', 'prospects', 'mailings']) {
      const r = await c.get(`/${type}?sort=-updatedAt&page[limit]=1`);
      expect(r.body.data[0].attributes.updatedAt <= now, type).toBe(true);
    }
  });

  it('bad quirk values are refused with the parameter named, and change nothing; other tokens are refused', async () => {
    c = await start();
    const bad = await quirks('silentCascade=true&futureUpdatedAt=soon');
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].detail).toContain('futureUpdatedAt must be');
    expect(bad.body.errors[0].source).toEqual({ parameter: 'futureUpdatedAt' });
    const unknown = await quirks('slowClock=true');
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].detail).toContain('Unknown quirk slowClock');
    expect((await quirks()).body).toEqual({ silentCascade: false, futureUpdatedAt: 0 });
    const other = c.sb.issueToken({ userId: 2 });
    expect((await c.req('POST', `${c.sb.authUrl}/_sandbox/quirks?silentCascade=true`, { token: other })).status).toBe(403);
    await expect(startSandbox({ port: 0, quirks: { futureUpdatedAt: -1 } })).rejects.toThrow(/futureUpdatedAt must be/);
  });
});
