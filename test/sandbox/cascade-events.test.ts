/**
 * A delete's cascade is recorded as the API's own changes would be, so that a mirror reading by
 * `updatedAt` and by events sees it: a referrer unlinked by a delete has its `updatedAt` moved and
 * an `<type>_updated` event (and webhook), a prospect's mailings and enrolments deleted with it
 * each record `<type>_destroyed` naming their id, and events list in id order, filterable by name,
 * `eventAt` and id ranges. All over HTTP against an in-process sandbox.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ref } from '../../src/sandbox/data/store.js';
import { type Client, doc, start, until } from '../helpers/sandbox.js';

let c: Client;
let receiver: Server;
let url = '';
const got: any[] = [];

beforeAll(async () => {
  c = await start({ seed: 200, webhookTiming: { retryDelayMs: 20, timeoutMs: 500 } });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      got.push(JSON.parse(body));
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await c.sb.close();
  await new Promise((r) => receiver.close(r));
});

/** Now, in the API's date-time format, rounded down to the second (what `updatedAt` holds). */
const nowText = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().slice(0, 19);
const refId = (v: unknown) => (v as Ref | null | undefined)?.id;
/** Every page of a collection path (keyset by id, as a mirror reads it). */
async function all(path: string): Promise<any[]> {
  const out: any[] = [];
  let after = 0;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await c.get(`${path}${sep}filter[id]=${after + 1}..inf&sort=id&page[limit]=1000`);
    expect(r.status, r.text).toBe(200);
    out.push(...r.body.data);
    if (r.body.data.length < 1000) return out;
    after = Number(r.body.data.at(-1).id);
  }
}
/** The id of the latest event: a mirror's event cursor. */
const lastEvent = async () => Number((await c.get('/events?sort=-id&page[limit]=1')).body.data[0]?.id ?? 0);
/** Events of a name recorded after the cursor `mark`. */
const events = async (name: string, mark: number) => (await all(`/events?filter[name]=${name}`)).filter((e) => Number(e.id) > mark);

describe('cascades of a delete', () => {
  it("deleting an account moves its prospects' updatedAt, records prospect_updated events and fires their webhooks", async () => {
    const hook = await c.post('/webhooks', doc('webhook', { url: `${url}/p`, resource: 'prospect', action: 'updated' }));
    expect(hook.status).toBe(201);
    const account = [...c.sb.store.table('account').values()].find(
      (a) => (c.sb.store.referrers('prospect', 'account', { type: 'account', id: a.id })?.size ?? 0) >= 2,
    )!;
    const members = [...c.sb.store.referrers('prospect', 'account', { type: 'account', id: account.id })!].sort((a, b) => a - b);
    const t0 = nowText();
    const m0 = await lastEvent();
    const before = await all(`/prospects?filter[updatedAt]=${t0}..inf`);
    expect(before.map((p) => Number(p.id))).not.toEqual(expect.arrayContaining(members));

    expect((await c.del(`/accounts/${account.id}`)).status).toBe(204);

    for (const id of members) {
      const p = (await c.get(`/prospects/${id}`)).body.data;
      expect(p.relationships.account.data).toBeNull();
      expect(p.attributes.updatedAt >= t0, `${p.attributes.updatedAt} >= ${t0}`).toBe(true);
    }
    // An incremental read by updatedAt finds every one of them.
    const moved = (await all(`/prospects?filter[updatedAt]=${t0}..inf`)).map((p) => Number(p.id));
    expect(moved).toEqual(expect.arrayContaining(members));
    // One prospect_updated event per prospect, after the account_destroyed one, naming it.
    const destroyed = await events('account_destroyed', m0);
    expect(destroyed.map((e) => e.attributes.payload)).toEqual([
      expect.objectContaining({ type: 'account', id: account.id, action: 'destroyed' }),
    ]);
    const updated = (await events('prospect_updated', m0)).filter((e) => members.includes(e.attributes.payload.id));
    expect(updated.map((e) => e.attributes.payload.id).sort((a: number, b: number) => a - b)).toEqual(members);
    for (const e of updated) expect(Number(e.id)).toBeGreaterThan(Number(destroyed[0].id));
    // And the webhook of prospect updates fired for each.
    await until(() => members.every((id) => got.some((b) => b.meta.eventName === 'prospect.updated' && b.data.id === id)));
  });

  it('deleting a prospect deletes its mailings and sequence states, each recorded as <type>_destroyed with its id', async () => {
    const store = c.sb.store;
    const pid = [...store.table('prospect').keys()].find(
      (id) =>
        (store.referrers('mailing', 'prospect', { type: 'prospect', id })?.size ?? 0) > 0 &&
        (store.referrers('sequenceState', 'prospect', { type: 'prospect', id })?.size ?? 0) > 0 &&
        (store.referrers('call', 'prospect', { type: 'prospect', id })?.size ?? 0) > 0,
    )!;
    expect(pid).toBeDefined();
    const mailings = [...store.referrers('mailing', 'prospect', { type: 'prospect', id: pid })!].sort((a, b) => a - b);
    const states = [...store.referrers('sequenceState', 'prospect', { type: 'prospect', id: pid })!].sort((a, b) => a - b);
    const calls = [...store.referrers('call', 'prospect', { type: 'prospect', id: pid })!].sort((a, b) => a - b);
    const t0 = nowText();
    const m0 = await lastEvent();

    expect((await c.del(`/prospects/${pid}`)).status).toBe(204);

    expect((await c.get(`/prospects/${pid}`)).status).toBe(404);
    for (const id of mailings) expect((await c.get(`/mailings/${id}`)).status).toBe(404);
    for (const id of states) expect((await c.get(`/sequenceStates/${id}`)).status).toBe(404);
    const ids = (list: any[]) => list.map((e) => e.attributes.payload.id).sort((a: number, b: number) => a - b);
    expect(ids(await events('prospect_destroyed', m0))).toEqual([pid]);
    expect(ids(await events('mailing_destroyed', m0))).toEqual(mailings);
    expect(ids(await events('sequenceState_destroyed', m0))).toEqual(states);
    for (const e of await events('mailing_destroyed', m0)) {
      expect(e.attributes.payload.type).toBe('mailing');
      // The event links no record that is gone (its prospect was deleted with it).
      expect(e.relationships.prospect.data).toBeNull();
    }
    // Its calls stay, unlinked from the prospect and from its enrolments, and touched once each
    // (one update for the whole cascade, whatever the number of deleted records they named).
    const touched = ids((await events('call_updated', m0)).filter((e) => calls.includes(e.attributes.payload.id)));
    expect(touched).toEqual(calls);
    for (const id of calls) {
      const call = (await c.get(`/calls/${id}`)).body.data;
      expect(call.relationships.prospect.data).toBeNull();
      expect(call.relationships.sequenceState.data).toBeNull();
      expect(call.attributes.updatedAt >= t0).toBe(true);
    }
    // No update of a record in the same request that deleted it.
    const updatedThenGone = (await events('mailing_updated', m0)).filter((e) => mailings.includes(e.attributes.payload.id));
    expect(updatedThenGone).toEqual([]);
    expect(refId(store.get('call', calls[0]!)?.rels['prospect'])).toBeUndefined();
  });

  it('a compliance Delete of a prospect cascades the same way', async () => {
    const store = c.sb.store;
    const pid = [...store.table('prospect').keys()].find(
      (id) => (store.referrers('mailing', 'prospect', { type: 'prospect', id })?.size ?? 0) > 0,
    )!;
    const mailings = [...store.referrers('mailing', 'prospect', { type: 'prospect', id: pid })!].sort((a, b) => a - b);
    const m0 = await lastEvent();
    const r = await c.post(
      '/complianceRequests',
      doc('complianceRequest', { requestType: 'Delete', objectType: 'Prospect', requestObjectId: String(pid) }),
    );
    expect(r.status).toBe(201);
    await until(async () => (await c.get(`/complianceRequests/${r.body.data.id}`)).body.data.attributes.state === 'done', 5000);
    const ids = (list: any[]) => list.map((e) => e.attributes.payload.id).sort((a: number, b: number) => a - b);
    expect(ids(await events('prospect_destroyed', m0))).toEqual([pid]);
    expect(ids(await events('mailing_destroyed', m0))).toEqual(mailings);
  });

  it('events list in id order with non-decreasing eventAt; name, eventAt and id ranges filter them', async () => {
    const t0 = nowText();
    const p = await c.post('/prospects', doc('prospect', { firstName: 'Ev' }));
    const id = Number(p.body.data.id);
    expect((await c.patch(`/prospects/${id}`, doc('prospect', { title: 'CTO' }, {}, id))).status).toBe(200);
    expect((await c.del(`/prospects/${id}`)).status).toBe(204);
    const list = await c.get(`/events?filter[eventAt]=${t0}..inf&page[limit]=1000`);
    const seq = list.body.data.map((e: any) => Number(e.id));
    expect(seq).toEqual([...seq].sort((a, b) => a - b));
    const at = list.body.data.map((e: any) => e.attributes.eventAt);
    expect(at).toEqual([...at].sort());
    const mine = list.body.data.filter((e: any) => e.attributes.payload?.type === 'prospect' && e.attributes.payload.id === id);
    expect(mine.map((e: any) => e.attributes.name)).toEqual(['prospect_created', 'prospect_updated', 'prospect_destroyed']);
    // From the last seen id on, by keyset: only what came after.
    const last = Number(mine[1].id);
    const after = await c.get(`/events?filter[id]=${last + 1}..inf&sort=id`);
    expect(after.body.data.map((e: any) => Number(e.id))[0]).toBeGreaterThan(last);
    expect(after.body.data.some((e: any) => Number(e.id) === Number(mine[2].id))).toBe(true);
    // By name and a closed eventAt window (bounds inclusive).
    const destroyedAt = mine[2].attributes.eventAt;
    const w = await c.get(`/events?filter[name]=prospect_destroyed&filter[eventAt]=${destroyedAt}..${destroyedAt}`);
    expect(w.body.data.map((e: any) => Number(e.id))).toContain(Number(mine[2].id));
    for (const e of w.body.data) expect(e.attributes).toMatchObject({ name: 'prospect_destroyed', eventAt: destroyedAt });
    // The destroyed record's event names it (the relationship to a deleted prospect is null).
    expect(mine[2].attributes.payload).toMatchObject({ type: 'prospect', id, action: 'destroyed' });
    expect(mine[2].relationships.prospect.data).toBeNull();
  });
});
