/**
 * `svc report` against the sandbox: every report's `-o json` numbers equal sums computed here from
 * the records listed straight from the API (mailings' timestamps, calls, histograms), within the
 * request bounds; the simulation moves them; bad input is one usage error with nothing sent (the
 * option checks in-process in test/unit/commands/report/usage.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { json, tempDir } from '../helpers/run-svc.js';
import { sh } from '../helpers/tmux.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: () => Record<string, string>;
type R = { id: string | number; type: string; attributes: Record<string, any>; relationships?: Record<string, { data?: any }> };

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 1500, deliveryMs: 20 }));
});
afterAll(() => sb?.close());

/** Every record of a collection, straight from the API (not through svc). */
async function all(p: string, query = ''): Promise<R[]> {
  const out: R[] = [];
  let url: string | undefined = `${sb.baseUrl}/${p}?page[limit]=1000${query}`;
  while (url) {
    const r = await fetch(url, { headers: { Authorization: `Bearer ${sb.token}` } });
    const doc = (await r.json()) as { data: R[]; links?: { next?: string } };
    out.push(...doc.data);
    url = doc.links?.next;
  }
  return out;
}
async function post(p: string, body: unknown): Promise<R> {
  const r = await fetch(`${sb.baseUrl}/${p}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/vnd.api+json' },
    body: JSON.stringify(body),
  });
  return ((await r.json()) as { data: R }).data;
}
const rel = (r: R, name: string) => (r.relationships?.[name]?.data ? String(r.relationships[name]!.data.id) : undefined);
const one = (type: string, id: string | number) => ({ data: { type, id: Number(id) } });
const round = (x: number) => Math.round(x * 10_000) / 10_000;

async function report(args: string[]) {
  const mark = sb.requests.length;
  const r = await svcInProcess(['report', ...args], { env: env() });
  return { ...r, requests: received(sb, mark).filter((q) => q.path.startsWith('/api/v2/')) };
}

describe('report sequences', () => {
  it('numbers equal the sums over the listed mailings and steps, in 2 requests', async () => {
    const r = await report(['sequences', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.requests).toHaveLength(2);
    expect(r.stderr).toMatch(/report sequences: 2 requests/);
    const rows = json<any[]>(r);
    const mailings = await all('mailings', '&fields[mailing]=deliveredAt,openedAt,repliedAt,bouncedAt,sequence');
    const steps = await all('sequenceSteps');
    const seqs = await all('sequences');
    // Ids are numbers, as list writes them.
    expect(rows.map((x) => x.id).sort()).toEqual(seqs.map((s) => Number(s.id)).sort());
    for (const row of rows) {
      const ms = mailings.filter((m) => rel(m, 'sequence') === String(row.id));
      const own = steps.filter((s) => rel(s, 'sequence') === String(row.id) && s.attributes.stepType.endsWith('_email'));
      const delivered = ms.filter((m) => m.attributes.deliveredAt).length;
      expect(row.delivered).toBeGreaterThan(10);
      expect(row).toMatchObject({
        emailSteps: own.length,
        delivered,
        opened: ms.filter((m) => m.attributes.openedAt).length,
        replied: ms.filter((m) => m.attributes.repliedAt).length,
        bounced: ms.filter((m) => m.attributes.bouncedAt).length,
        positiveReplies: own.reduce((a, s) => a + s.attributes.positiveReplyCount, 0),
        optedOut: own.reduce((a, s) => a + s.attributes.optOutCount, 0),
      });
      expect(row.replyRate).toBe(round(row.replied / delivered));
      expect(row.bounceRate).toBe(round(row.bounced / (row.scheduled + delivered)));
    }
  });

  it('--sort by a rate and --limit sort here; a filter narrows the steps asked for', async () => {
    const r = await report(['sequences', '--sort', '-reply', '--limit', '2', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = json<any[]>(r);
    expect(rows).toHaveLength(2);
    expect(rows[0].replyRate).toBeGreaterThanOrEqual(rows[1].replyRate);
    const f = await report(['sequences', '--filter', 'id=2', '-o', 'csv']);
    expect(f.code, f.stderr).toBe(0);
    expect(f.stdout.split('\n')[0]).toMatch(/^id,name,enabled,emailSteps,delivered,/);
    expect(f.stdout.trim().split('\n')).toHaveLength(2);
    expect(decodeURIComponent(f.requests[1]!.query.raw)).toContain('filter[sequence][id]=2');
  });

  it('an org of 500 sequences, each with two e-mail steps and a call step, takes 2 requests', async () => {
    const { store } = sb;
    const ref = (type: string, id: number) => ({ type, id });
    const seeded = store.table('sequence').size;
    for (let i = seeded; i < 500; i++) {
      const seq = store.insert(
        'sequence',
        { name: `Bulk ${i}`, enabled: true, deliverCount: 10, clickCount: 1, bounceCount: 0, failureCount: 0 },
        {},
        { silent: true },
      );
      for (const [order, stepType] of [
        [1, 'auto_email'],
        [2, 'call'],
        [3, 'manual_email'],
      ] as const) {
        store.insert(
          'sequenceStep',
          { order, stepType, deliverCount: stepType === 'call' ? 0 : 5, openCount: 2, replyCount: 1 },
          { sequence: ref('sequence', seq.id) },
          { silent: true },
        );
      }
    }
    try {
      const r = await report(['sequences', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.requests).toHaveLength(2);
      const rows = json<any[]>(r).filter((x) => x.name.startsWith('Bulk '));
      expect(json<any[]>(r)).toHaveLength(500);
      expect(rows).toHaveLength(500 - seeded);
      expect(rows[0]).toMatchObject({ emailSteps: 2, delivered: 10, opened: 4, replied: 2, replyRate: 0.2 });
    } finally {
      for (const id of [...store.table('sequence').keys()].filter((id) =>
        String(store.get('sequence', id)!.attributes['name']).startsWith('Bulk '),
      ))
        store.remove('sequence', id, { silent: true });
      for (const id of [...store.table('sequenceStep').keys()].filter((id) => !store.get('sequenceStep', id)!.rels['sequence']))
        store.remove('sequenceStep', id, { silent: true });
    }
  });

  it('--query and --json a,b shape the rows like any JSON output', async () => {
    const full = json<{ name: string; replyRate: number | null }[]>(await report(['sequences', '-o', 'json']));
    const names = await report(['sequences', '--query', '[].name', '-o', 'raw']);
    expect(names.code, names.stderr).toBe(0);
    expect(names.stdout.trim().split('\n')).toEqual(full.map((r) => r.name));
    const picked = json<Record<string, unknown>[]>(await report(['sequences', '--json', 'name,replyRate']));
    expect(picked).toEqual(full.map((r) => ({ name: r.name, replyRate: r.replyRate })));
  });
});

describe('report sequence (funnel)', () => {
  it('steps and templates equal the listed mailings; call steps count their calls; 3 requests', async () => {
    const r = await report(['sequence', '1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.requests.length).toBeLessThanOrEqual(4);
    const rows = json<any[]>(r);
    const mailings = await all('mailings', '&filter[sequence][id]=1');
    const calls = await all('calls');
    const sts = await all('sequenceTemplates');
    const steps = rows.filter((x) => x.level === 'step');
    expect(steps.map((s) => s.step)).toEqual([1, 2, 3]);
    for (const s of steps) {
      expect(typeof s.stepId).toBe('number');
      const ms = mailings.filter((m) => rel(m, 'sequenceStep') === String(s.stepId) && m.attributes.deliveredAt);
      expect(s.delivered).toBe(ms.length);
      expect(s.opened).toBe(ms.filter((m) => m.attributes.openedAt).length);
      expect(s.clicked).toBe(ms.filter((m) => m.attributes.clickedAt).length);
      expect(s.replied).toBe(ms.filter((m) => m.attributes.repliedAt).length);
      if (s.stepType === 'call') expect(s.calls).toBe(calls.filter((c) => rel(c, 'sequenceStep') === String(s.stepId)).length);
      for (const t of rows.filter((x) => x.level === 'template' && x.stepId === s.stepId)) {
        const tpl = rel(sts.find((x) => Number(x.id) === t.templateId)!, 'template');
        expect(t.delivered).toBe(ms.filter((m) => rel(m, 'template') === tpl).length);
      }
    }
    const first = rows.filter((x) => x.level === 'template' && x.step === 1);
    expect(first).toHaveLength(2); // the seeded A/B test
    expect(first[0].delivered + first[1].delivered).toBe(steps[0].delivered);
    expect(first[0].abPValue).toBeGreaterThan(0);
    const states = await all('sequenceStates', '&filter[sequence][id]=1');
    expect(steps[0]).toMatchObject({
      enrolments: states.length,
      activeEnrolments: states.filter((x) => x.attributes.state === 'active').length,
    });
    expect(r.requests.map((q) => q.path)).toEqual([
      '/api/v2/sequences/1',
      '/api/v2/sequenceSteps',
      '/api/v2/calls',
      '/api/v2/sequenceStates',
    ]);
  });

  it('by name (any case) gives the same rows; an unknown name is a usage error', async () => {
    const byId = json(await report(['sequence', '2', '-o', 'json']));
    const byName = await report(['sequence', 'outbound enterprise', '-o', 'json']);
    expect(byName.code, byName.stderr).toBe(0);
    expect(json(byName)).toEqual(byId);
    const bad = await report(['sequence', 'No Such Thing']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: no sequence named "No Such Thing"/);
  });

  it('a sequence of 10 steps and 20 templates takes at most 4 requests', async () => {
    const seq = await post('sequences', {
      data: { type: 'sequence', attributes: { name: 'Ten steps', description: 'd', sequenceType: 'interval' } },
    });
    const tpls = await all('templates');
    for (let i = 0; i < 10; i++) {
      const step = await post('sequenceSteps', {
        data: {
          type: 'sequenceStep',
          attributes: { stepType: i === 4 ? 'call' : 'auto_email', interval: i * 1440, order: i + 1 },
          relationships: { sequence: one('sequence', seq.id) },
        },
      });
      if (i === 4) continue;
      for (let k = 0; k < (i === 9 ? 4 : 2); k++) {
        await post('sequenceTemplates', {
          data: {
            type: 'sequenceTemplate',
            attributes: {},
            relationships: { sequenceStep: one('sequenceStep', step.id), template: one('template', tpls[(i + k) % tpls.length]!.id) },
          },
        });
      }
    }
    const r = await report(['sequence', String(seq.id), '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.requests.length).toBeLessThanOrEqual(4);
    const rows = json<any[]>(r);
    expect(rows.filter((x) => x.level === 'step')).toHaveLength(10);
    expect(rows.filter((x) => x.level === 'template')).toHaveLength(20);
  });

  it('counters move when the sandbox delivers: an enrolment adds one delivered mailing to step 1', async () => {
    const before = json<any[]>(await report(['sequence', '3', '-o', 'json'])).find((x) => x.level === 'step' && x.step === 1);
    const p = await post('prospects', {
      data: { type: 'prospect', attributes: { firstName: 'Rep', emails: ['rep@x.test'] }, relationships: { account: one('account', 1) } },
    });
    await post('sequenceStates', {
      data: {
        type: 'sequenceState',
        relationships: { prospect: one('prospect', p.id), sequence: one('sequence', 3), mailbox: one('mailbox', 1) },
      },
    });
    let after: any;
    for (let i = 0; i < 50; i++) {
      after = json<any[]>(await report(['sequence', '3', '-o', 'json'])).find((x) => x.level === 'step' && x.step === 1);
      if (after.delivered > before.delivered) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(after.delivered).toBe(before.delivered + 1);
  });
});

describe('report mailings', () => {
  it('per mailbox over a year: sums of the listed mailings, one request per 1,000', async () => {
    // UTC days, as the listing's filter below reads its date (the grouping is what is checked here).
    const from = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
    const r = await report(['mailings', '--by', 'mailbox', '--filter', `deliveredAt=${from}..`, '--tz', 'UTC', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = json<any[]>(r);
    const ms = (await all('mailings', `&filter[deliveredAt]=${from}..inf`)).filter((m) => m.attributes.deliveredAt);
    expect(r.requests).toHaveLength(Math.ceil(ms.length / 1000) + (ms.length % 1000 === 0 ? 1 : 0));
    expect(rows.reduce((a, x) => a + x.delivered, 0)).toBe(ms.length);
    for (const row of rows) {
      const mine = ms.filter((m) => m.attributes.mailboxAddress === row.group);
      expect(row).toMatchObject({
        delivered: mine.length,
        replied: mine.filter((m) => m.attributes.repliedAt).length,
        bounced: mine.filter((m) => m.attributes.bouncedAt).length,
      });
    }
  });

  it('by day defaults to the last 30 local days (the machine zone, TZ: the suite runs in America/Los_Angeles), every day a row', async () => {
    const r = await report(['mailings', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = json<any[]>(r);
    expect(rows).toHaveLength(30);
    // Local days read with Date's own local-time getters (this process's TZ, which svc's env carries).
    const two = (n: number) => String(n).padStart(2, '0');
    const localDay = (d: Date) => `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
    const now = new Date();
    expect(rows[29].group).toBe(localDay(now));
    const start = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 29);
    expect(rows[0].group).toBe(localDay(start));
    // The range is sent as the UTC instant the first local day begins at.
    const from = `${start.toISOString().slice(0, 19)}Z`;
    expect(decodeURIComponent(r.requests[0]!.query.raw)).toContain(`filter[deliveredAt]=${from}..inf`);
    const ms = (await all('mailings', `&filter[deliveredAt]=${from}..inf`)).filter((m) => m.attributes.deliveredAt);
    expect(rows.reduce((a, x) => a + x.delivered, 0)).toBe(ms.length);
    const dayOf = (m: R) => localDay(new Date(`${m.attributes.deliveredAt}Z`));
    for (const row of rows) {
      expect(row.delivered).toBe(ms.filter((m) => dayOf(m) === row.group).length);
      expect(row.opened).toBe(ms.filter((m) => dayOf(m) === row.group && m.attributes.openedAt).length);
    }
  });
});

describe('report prospect', () => {
  it('the histogram, counters and active states of the prospect, in 1 request', async () => {
    const r = await report(['prospect', '3', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.requests).toHaveLength(1);
    const rows = json<any[]>(r);
    const p = (await (
      await fetch(`${sb.baseUrl}/prospects/3?fields[prospect]=contactHistogram,openCount,replyCount`, {
        headers: { Authorization: `Bearer ${sb.token}` },
      })
    ).json()) as { data: R };
    const months = rows.filter((x) => x.kind === 'month');
    expect(months.map((m) => [m.inbound, m.outbound])).toEqual(p.data.attributes.contactHistogram);
    expect(rows[0]).toMatchObject({
      kind: 'prospect',
      id: 3,
      openCount: p.data.attributes.openCount,
      replyCount: p.data.attributes.replyCount,
    });
    const states = (await all('sequenceStates', '&filter[prospect][id]=3')).filter((s) =>
      ['active', 'paused', 'failed', 'bounced', 'pending', 'disabled'].includes(s.attributes.state),
    );
    expect(
      rows
        .filter((x) => x.kind === 'sequenceState')
        .map((x) => x.id)
        .sort(),
    ).toEqual(states.map((s) => Number(s.id)).sort());
  });

  it('a non-numeric id is a usage error before any request', async () => {
    const r = await report(['prospect', 'abc']);
    expect(r.code).toBe(2);
    expect(r.requests).toHaveLength(0);
  });
});

describe('--html and --open', () => {
  it('--html writes a self-contained page and prints the numbers only when -o is given', async () => {
    const file = path.join(tempDir(), 'r.html');
    const r = await report(['sequences', '--html', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`wrote ${file}`);
    const html = fs.readFileSync(file, 'utf8');
    expect(html).toMatch(/<svg/);
    expect(html).not.toMatch(/<script|https?:\/\//);
    const both = await report(['sequences', '--html', file, '-o', 'json']);
    expect(json<any[]>(both).length).toBeGreaterThan(0);
  });

  it('--html - writes the page to stdout (it wrote a file named "-": a trial)', async () => {
    const dash = path.resolve('-');
    const r = await report(['sequences', '--html', '-']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^<!doctype html>[\s\S]*<svg[\s\S]*<\/html>\n?$/);
    expect(r.stderr).not.toContain('wrote');
    expect(fs.existsSync(dash)).toBe(false);
  });

  it('--open opens the page in $BROWSER', async () => {
    const dir = tempDir();
    const log = path.join(dir, 'opened');
    const browser = path.join(dir, 'browser.sh');
    fs.writeFileSync(browser, `#!/bin/sh\necho "$@" > ${sh(log)}\n`, { mode: 0o755 });
    const file = path.join(dir, 'p.html');
    const mark = sb.requests.length;
    const r = await svcInProcess(['report', 'prospect', '1', '--html', file, '--open'], { env: { ...env(), BROWSER: sh(browser) } });
    expect(r.code, r.stderr).toBe(0);
    expect(received(sb, mark)).toHaveLength(1);
    for (let i = 0; i < 100 && !fs.existsSync(log); i++) await new Promise((res) => setTimeout(res, 50));
    expect(fs.readFileSync(log, 'utf8').trim()).toBe(file);
  });
});
