/** Rules of the spec: sequence states, rulesets, tasks, calls, mailboxes, mailings, prospects, compliance, events. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doc, one, start, until, type Client } from '../helpers/sandbox.js';

let c: Client;
beforeAll(async () => {
  c = await start({ seed: 12, deliveryMs: 20, complianceStepMs: 50 });
});
afterAll(() => c.sb.close());

async function prospect(): Promise<number> {
  const r = await c.post(
    '/prospects',
    doc('prospect', { firstName: 'Rule', emails: [`r${Math.random()}@x.test`] }, { account: one('account', 1) }),
  );
  return r.body.data.id;
}
async function sequence(ruleset?: Record<string, string>): Promise<number> {
  const s = await c.post('/sequences', doc('sequence', { name: 'S', description: 'd', sequenceType: 'interval' }));
  const id = s.body.data.id;
  const step = await c.post(
    '/sequenceSteps',
    doc('sequenceStep', { stepType: 'auto_email', interval: 0 }, { sequence: one('sequence', id) }),
  );
  const tpl = await c.post('/templates', doc('template', { name: 'T', subject: 'Hi', bodyHtml: '<p>Hello <b>there</b></p>' }));
  await c.post(
    '/sequenceTemplates',
    doc('sequenceTemplate', {}, { sequenceStep: one('sequenceStep', step.body.data.id), template: one('template', tpl.body.data.id) }),
  );
  if (ruleset) {
    const rs = await c.post('/rulesets', doc('ruleset', { name: 'R', ...ruleset }));
    await c.patch(`/sequences/${id}`, doc('sequence', {}, { ruleset: one('ruleset', rs.body.data.id) }, id));
  }
  return id;
}
const enrol = (p: number, s: number) =>
  c.post(
    '/sequenceStates',
    doc('sequenceState', {}, { prospect: one('prospect', p), sequence: one('sequence', s), mailbox: one('mailbox', 1) }),
  );

describe('sequence states', () => {
  it('creation → active, first step attached, stateChangedAt set', async () => {
    const s = await sequence();
    const r = await enrol(await prospect(), s);
    expect(r.status).toBe(201);
    expect(r.body.data.attributes.state).toBe('active');
    expect(r.body.data.attributes.stateChangedAt).toBeTruthy();
    expect(r.body.data.relationships.sequenceStep.data).toMatchObject({ type: 'sequenceStep' });
  });

  it('needs prospect, sequence and mailbox (422)', async () => {
    const r = await c.post('/sequenceStates', doc('sequenceState', {}, { prospect: one('prospect', 1) }));
    expect(r.status).toBe(422);
    expect(r.body.errors[0].source.pointer).toBe('/data/relationships/sequence');
  });

  it('finish, pause, resume with their conditions (422 otherwise)', async () => {
    const st = (await enrol(await prospect(), await sequence())).body.data.id;
    expect((await c.post(`/sequenceStates/${st}/actions/resume`)).status).toBe(422);
    const paused = await c.post(`/sequenceStates/${st}/actions/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body.data.attributes.state).toBe('paused');
    expect((await c.post(`/sequenceStates/${st}/actions/finish`)).status).toBe(422);
    expect((await c.post(`/sequenceStates/${st}/actions/resume`)).body.data.attributes.state).toBe('active');
    expect((await c.post(`/sequenceStates/${st}/actions/finish`)).body.data.attributes.state).toBe('finished');
    const again = await c.post(`/sequenceStates/${st}/actions/pause`);
    expect(again.status).toBe(422);
    expect(again.body.errors[0].id).toBe('validationError');
  });

  it('400 for an action parameter the action does not accept', async () => {
    const st = (await enrol(await prospect(), await sequence())).body.data.id;
    const r = await c.post(`/sequenceStates/${st}/actions/finish?actionParams[reason]=x`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].source.parameter).toBe('actionParams[reason]');
  });

  it('activeSequenceStates of the prospect lists active enrolments only', async () => {
    const p = await prospect();
    const st = (await enrol(p, await sequence())).body.data.id;
    const before = await c.get(`/prospects/${p}`);
    expect(before.body.data.relationships.activeSequenceStates.data).toEqual([{ type: 'sequenceState', id: st }]);
    await c.post(`/sequenceStates/${st}/actions/finish`);
    expect((await c.get(`/prospects/${p}`)).body.data.relationships.activeSequenceStates.data).toEqual([]);
  });
});

describe('rulesets', () => {
  it('permitDuplicateProspects: disallow (default) refuses a second enrolment', async () => {
    const s = await sequence();
    const p = await prospect();
    expect((await enrol(p, s)).status).toBe(201);
    const r = await enrol(p, s);
    expect(r.status).toBe(422);
    expect(r.body.errors[0].source.pointer).toBe('/data/relationships/prospect');
  });

  it('permitDuplicateProspects: allow and only_if_inactive', async () => {
    const allow = await sequence({ permitDuplicateProspects: 'allow' });
    const p = await prospect();
    expect((await enrol(p, allow)).status).toBe(201);
    expect((await enrol(p, allow)).status).toBe(201);
    const inactive = await sequence({ permitDuplicateProspects: 'only_if_inactive' });
    const first = await enrol(p, inactive);
    expect((await enrol(p, inactive)).status).toBe(422);
    await c.post(`/sequenceStates/${first.body.data.id}/actions/finish`);
    expect((await enrol(p, inactive)).status).toBe(201);
  });

  it('sequenceExclusivity: all_sequences and exclusive_sequences', async () => {
    const all = await sequence({ sequenceExclusivity: 'all_sequences' });
    const plain = await sequence();
    const p = await prospect();
    expect((await enrol(p, plain)).status).toBe(201);
    expect((await enrol(p, all)).status).toBe(422);
    const q = await prospect();
    expect((await enrol(q, all)).status).toBe(201);
    expect((await enrol(q, plain)).status).toBe(422);
    const ex1 = await sequence({ sequenceExclusivity: 'exclusive_sequences' });
    const ex2 = await sequence({ sequenceExclusivity: 'exclusive_sequences' });
    const r = await prospect();
    expect((await enrol(r, ex1)).status).toBe(201);
    expect((await enrol(r, plain)).status).toBe(201);
    expect((await enrol(r, ex2)).status).toBe(422);
  });
});

describe('tasks and calls', () => {
  const task = async () =>
    (
      await c.post(
        '/tasks',
        doc('task', { action: 'call', subject: 'Ring', dueAt: '2030-01-01T10:00:00' }, { prospect: one('prospect', 1) }),
      )
    ).body.data;

  it('markComplete with actionParams[completionNote]; twice is 422', async () => {
    const t = await task();
    expect(t.attributes.state).toBe('incomplete');
    const r = await c.post(`/tasks/${t.id}/actions/markComplete?actionParams[completionNote]=done%20deal`);
    expect(r.status).toBe(200);
    expect(r.body.data.attributes).toMatchObject({ state: 'completed', completed: true, note: 'done deal' });
    expect(r.body.data.attributes.completedAt).toBeTruthy();
    expect((await c.post(`/tasks/${t.id}/actions/markComplete`)).status).toBe(422);
  });

  it('snooze moves dueAt a day on; parameters are refused (400)', async () => {
    const t = await task();
    const r = await c.post(`/tasks/${t.id}/actions/snooze`);
    expect(r.body.data.attributes.dueAt).toBe('2030-01-02T10:00:00');
    expect((await c.post(`/tasks/${t.id}/actions/snooze?actionParams[until]=x`)).status).toBe(400);
  });

  it('a call with task meta complete: true completes the task; without it the task is unchanged', async () => {
    const t1 = await task();
    const call = await c.post(
      '/calls',
      doc(
        'call',
        { direction: 'outbound', outcome: 'completed' },
        { prospect: one('prospect', 1), user: one('user', 1), task: one('task', t1.id, { complete: true }) },
      ),
    );
    expect(call.status).toBe(201);
    expect((await c.get(`/tasks/${t1.id}`)).body.data.attributes.state).toBe('completed');
    const t2 = await task();
    await c.post(
      '/calls',
      doc('call', { direction: 'outbound', outcome: 'no_answer' }, { prospect: one('prospect', 1), task: one('task', t2.id) }),
    );
    expect((await c.get(`/tasks/${t2.id}`)).body.data.attributes.state).toBe('incomplete');
  });
});

describe('mailboxes', () => {
  it('testSend / testSync succeed on a configured mailbox and set the success times', async () => {
    const s = await c.post('/mailboxes/1/actions/testSend');
    expect(s.status).toBe(200);
    expect(s.body.data.attributes.sendSuccessAt).toBeTruthy();
    const y = await c.post('/mailboxes/1/actions/testSync');
    expect(y.body.data.attributes.syncSuccessAt).toBeTruthy();
  });

  it('testSend is 422 when sending is not configured; errorSync records the error', async () => {
    const m = await c.post('/mailboxes', doc('mailbox', { email: 'new@x.test', sendMethod: 'smtp' }));
    expect(m.status).toBe(201);
    const r = await c.post(`/mailboxes/${m.body.data.id}/actions/testSend`);
    expect(r.status).toBe(422);
    const e = await c.post(`/mailboxes/${m.body.data.id}/actions/errorSync`);
    expect(e.body.data.attributes.syncErroredAt).toBeTruthy();
  });

  it('validateSend on save refuses an unusable configuration (write-only, never returned)', async () => {
    const r = await c.post('/mailboxes', doc('mailbox', { email: 'v@x.test', validateSend: true }));
    expect(r.status).toBe(422);
    expect(r.body.errors[0].source.pointer).toBe('/data/attributes/validateSend');
    const ok = await c.post(
      '/mailboxes',
      doc('mailbox', { email: 'v@x.test', validateSend: true, smtpHost: 'h', smtpPort: 25, password: 'pw' }),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.data.attributes).not.toHaveProperty('validateSend');
    expect(ok.body.data.attributes).not.toHaveProperty('password');
  });
});

describe('prospects', () => {
  it('optedOut true sets optedOutAt; false clears it', async () => {
    const p = await prospect();
    const on = await c.patch(`/prospects/${p}`, doc('prospect', { optedOut: true }, {}, p));
    expect(on.body.data.attributes.optedOutAt).toBeTruthy();
    const off = await c.patch(`/prospects/${p}`, doc('prospect', { optedOut: false }, {}, p));
    expect(off.body.data.attributes.optedOutAt).toBeNull();
  });

  it('a template without a name is hidden from template lists but still usable', async () => {
    const t = await c.post('/templates', doc('template', { subject: 'nameless' }));
    const list = await c.get('/templates?page[limit]=1000');
    expect(list.body.data.map((x: any) => x.id)).not.toContain(t.body.data.id);
    expect((await c.get(`/templates/${t.body.data.id}`)).status).toBe(200);
  });
});

describe('mailings and counters', () => {
  it('an enrolment on an auto_email step sends a mailing that is delivered; opens and replies move the counters', async () => {
    const s = await sequence();
    const p = await prospect();
    const st = (await enrol(p, s)).body.data.id;
    const m = await until(async () =>
      (await c.get(`/mailings?filter[state]=delivered&page[limit]=1000`)).body.data.find(
        (x: any) => x.relationships.sequenceState.data?.id === st,
      ),
    );
    expect(m.attributes.bodyText).toBe('Hello there');
    const auth = { Authorization: `Bearer ${c.sb.token}` };
    const open = await fetch(`${c.sb.authUrl}/_sandbox/mailings/${m.id}/open`, { method: 'POST', headers: auth });
    expect(open.status).toBe(200);
    await fetch(`${c.sb.authUrl}/_sandbox/mailings/${m.id}/reply`, { method: 'POST', headers: auth });
    const mailing = (await c.get(`/mailings/${m.id}`)).body.data.attributes;
    expect(mailing).toMatchObject({ openCount: 1, state: 'replied' });
    const state = (await c.get(`/sequenceStates/${st}`)).body.data.attributes;
    expect(state).toMatchObject({ deliverCount: 1, openCount: 1, replyCount: 1 });
    expect((await c.get(`/prospects/${p}`)).body.data.attributes).toMatchObject({ openCount: 1, replyCount: 1 });
    expect((await c.get(`/sequences/${s}`)).body.data.attributes.deliverCount).toBe(1);
  });

  it('a single mailing is queued then delivered', async () => {
    const r = await c.post(
      '/mailings',
      doc('mailing', { subject: 'One-off', bodyHtml: '<p>x</p>' }, { mailbox: one('mailbox', 1), prospect: one('prospect', 1) }),
    );
    expect(r.status).toBe(201);
    expect(r.body.data.attributes.state).toBe('queued');
    await until(async () => (await c.get(`/mailings/${r.body.data.id}`)).body.data.attributes.state === 'delivered');
  });
});

describe('compliance requests and events', () => {
  it('pending → running → done, and a Delete removes the prospect', async () => {
    const p = await prospect();
    const r = await c.post(
      '/complianceRequests',
      doc('complianceRequest', { requestType: 'Delete', objectType: 'Prospect', requestObjectId: String(p) }),
    );
    expect(r.status).toBe(201);
    expect(r.body.data.attributes.state).toBe('pending');
    const seen = new Set<string>();
    await until(async () => {
      const s = (await c.get(`/complianceRequests/${r.body.data.id}`)).body.data.attributes.state;
      seen.add(s);
      return s === 'done';
    });
    expect((await c.get(`/prospects/${p}`)).status).toBe(404);
  });

  it('activity is recorded as event resources, latest first with sort=-updatedAt', async () => {
    const p = await prospect();
    const r = await c.get('/events?sort=-id&page[limit]=5');
    const ev = r.body.data.find((e: any) => e.attributes.name === 'prospect_created' && e.relationships.prospect.data?.id === p);
    expect(ev).toBeTruthy();
    expect((await c.get('/events?sort=-updatedAt&page[limit]=1')).status).toBe(200);
  });
});
