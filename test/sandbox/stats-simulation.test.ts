/**
 * The simulation keeps the counters coherent: a mailing opened or clicked twice counts once on
 * the aggregates, a reply also counts under one sentiment, and delivery takes the mailing off
 * scheduleCount.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doc, one, start, until, type Client } from '../helpers/sandbox.js';

let c: Client;
beforeAll(async () => {
  c = await start({ seed: 12, deliveryMs: 20 });
});
afterAll(() => c.sb.close());

describe('simulated deliveries move coherent counters', () => {
  it('opens and clicks count once per mailing; a reply counts under one sentiment; delivery leaves scheduleCount', async () => {
    const s = (await c.post('/sequences', doc('sequence', { name: 'Sim', description: 'd', sequenceType: 'interval' }))).body.data.id;
    const step = (
      await c.post('/sequenceSteps', doc('sequenceStep', { stepType: 'auto_email', interval: 0 }, { sequence: one('sequence', s) }))
    ).body.data.id;
    const tpl = (await c.post('/templates', doc('template', { name: 'T', subject: 'Hi', bodyHtml: '<p>Hi</p>' }))).body.data.id;
    const st = (
      await c.post(
        '/sequenceTemplates',
        doc('sequenceTemplate', {}, { sequenceStep: one('sequenceStep', step), template: one('template', tpl) }),
      )
    ).body.data.id;
    const p = (await c.post('/prospects', doc('prospect', { firstName: 'Sim', emails: ['sim@x.test'] }, { account: one('account', 1) })))
      .body.data.id;
    const state = (
      await c.post(
        '/sequenceStates',
        doc('sequenceState', {}, { prospect: one('prospect', p), sequence: one('sequence', s), mailbox: one('mailbox', 1) }),
      )
    ).body.data.id;
    const m = await until(async () =>
      (await c.get(`/mailings?filter[state]=delivered&page[limit]=1000`)).body.data.find(
        (x: any) => x.relationships.sequenceState.data?.id === state,
      ),
    );
    const auth = { Authorization: `Bearer ${c.sb.token}` };
    for (const ev of ['open', 'open', 'click', 'click', 'reply', 'reply']) {
      await fetch(`${c.sb.authUrl}/_sandbox/mailings/${m.id}/${ev}`, { method: 'POST', headers: auth });
    }
    expect((await c.get(`/mailings/${m.id}`)).body.data.attributes).toMatchObject({ openCount: 2, clickCount: 2 });
    for (const path of [`/sequenceSteps/${step}`, `/sequenceTemplates/${st}`, `/sequenceStates/${state}`]) {
      const a = (await c.get(path)).body.data.attributes;
      expect(a, path).toMatchObject({ deliverCount: 1, openCount: 1, clickCount: 1, replyCount: 1, scheduleCount: 0 });
      expect(a.positiveReplyCount + a.neutralReplyCount + a.negativeReplyCount, path).toBe(1);
    }
    expect((await c.get(`/prospects/${p}`)).body.data.attributes).toMatchObject({ openCount: 1, replyCount: 1 });
  });
});
