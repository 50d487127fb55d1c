/**
 * The seeded org's statistics agree with each other: sequence = Σ steps = Σ states, step = Σ its
 * templates = its mailings, deliver ≥ open ≥ click, replies split by sentiment, A/B steps, and a
 * contact histogram with a seasonal shape.
 */
import { describe, expect, it } from 'vitest';
import { seedOrg } from '../../src/sandbox/data/seed.js';
import { contactHistogram } from '../../src/sandbox/rules/crm.js';
import { Store } from '../../src/sandbox/data/store.js';
import { RESOURCES } from '../../src/registry/index.js';
import type { Rec, Ref } from '../../src/sandbox/data/store.js';

const store = new Store();
seedOrg(store, 900);
const all = (type: string) => [...store.table(type).values()];
const rel = (r: Rec, name: string) => (r.rels[name] as Ref | null | undefined)?.id;
const n = (r: Rec, k: string) => (r.attributes[k] as number | undefined) ?? 0;
const sum = (recs: Rec[], k: string) => recs.reduce((a, r) => a + n(r, k), 0);
const COUNTERS = [
  'deliverCount',
  'openCount',
  'clickCount',
  'replyCount',
  'positiveReplyCount',
  'neutralReplyCount',
  'negativeReplyCount',
  'bounceCount',
  'failureCount',
  'optOutCount',
  'scheduleCount',
];

describe('seeded delivery statistics', () => {
  const steps = all('sequenceStep');
  const templates = all('sequenceTemplate');
  const states = all('sequenceState');
  const mailings = all('mailing').filter((m) => rel(m, 'sequenceState'));

  it('a step is the sum of its templates, of its enrolments, and of its mailings', () => {
    for (const step of steps) {
      const tpls = templates.filter((t) => rel(t, 'sequenceStep') === step.id);
      const ms = mailings.filter((m) => rel(m, 'sequenceStep') === step.id);
      for (const k of COUNTERS) if (tpls.length) expect(sum(tpls, k), `${k} of step ${step.id}`).toBe(n(step, k));
      expect(ms.filter((m) => m.attributes['deliveredAt']).length).toBe(n(step, 'deliverCount'));
      expect(ms.filter((m) => m.attributes['openedAt']).length).toBe(n(step, 'openCount'));
      expect(ms.filter((m) => m.attributes['repliedAt']).length).toBe(n(step, 'replyCount'));
      expect(ms.filter((m) => m.attributes['bouncedAt']).length).toBe(n(step, 'bounceCount'));
      expect(ms.filter((m) => m.attributes['state'] === 'scheduled').length).toBe(n(step, 'scheduleCount'));
    }
  });

  it('a sequence is the sum of its steps and of its enrolments', () => {
    for (const seq of all('sequence')) {
      const own = steps.filter((s) => rel(s, 'sequence') === seq.id);
      const ss = states.filter((s) => rel(s, 'sequence') === seq.id);
      for (const k of ['deliverCount', 'clickCount', 'bounceCount', 'failureCount']) expect(sum(own, k), k).toBe(n(seq, k));
      for (const k of COUNTERS) expect(sum(ss, k), k).toBe(sum(own, k));
    }
  });

  it('deliver ≥ open ≥ click, replies split into sentiments, some bounces and opt-outs', () => {
    for (const r of [...steps, ...templates, ...states]) {
      expect(n(r, 'deliverCount')).toBeGreaterThanOrEqual(n(r, 'openCount'));
      expect(n(r, 'openCount')).toBeGreaterThanOrEqual(n(r, 'clickCount'));
      expect(n(r, 'openCount')).toBeGreaterThanOrEqual(n(r, 'replyCount'));
      expect(n(r, 'positiveReplyCount') + n(r, 'neutralReplyCount') + n(r, 'negativeReplyCount')).toBe(n(r, 'replyCount'));
    }
    for (const k of ['bounceCount', 'optOutCount', 'positiveReplyCount', 'negativeReplyCount', 'scheduleCount'])
      expect(sum(steps, k), k).toBeGreaterThan(0);
  });

  it('some steps test two templates with different reply rates', () => {
    const ab = steps.map((s) => templates.filter((t) => rel(t, 'sequenceStep') === s.id)).filter((t) => t.length === 2);
    expect(ab.length).toBeGreaterThan(0);
    const rates = ab.map(([a, b]) => Math.abs(n(a!, 'replyCount') / n(a!, 'deliverCount') - n(b!, 'replyCount') / n(b!, 'deliverCount')));
    expect(Math.max(...rates)).toBeGreaterThan(0.05);
  });

  it('prospect counters are the sums of their enrolments', () => {
    for (const p of all('prospect').slice(0, 300)) {
      const ss = states.filter((s) => rel(s, 'prospect') === p.id);
      expect(n(p, 'replyCount')).toBe(sum(ss, 'replyCount'));
      expect(n(p, 'openCount')).toBe(sum(ss, 'openCount'));
    }
  });

  it('contact histograms over the org have a seasonal shape (August below spring)', () => {
    const total: number[] = Array(12).fill(0);
    for (const p of all('prospect')) for (const [k, [i, o]] of contactHistogram(store, p).entries()) total[k] += i + o;
    expect(total.filter((x) => x > 0).length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...total)).toBeGreaterThan(1.5 * Math.min(...total.filter((x) => x > 0)));
  });

  it('plausible: most mail goes out in sequences; delivered ≥ opened ≥ clicked, replied; reply rates below open rates', () => {
    const every = all('mailing');
    const oneOff = every.filter((m) => !rel(m, 'sequenceState'));
    expect(mailings.length).toBeGreaterThan(every.length / 2);
    const count = (ms: Rec[], k: string) => ms.filter((m) => m.attributes[k]).length;
    for (const ms of [mailings, oneOff]) {
      const delivered = count(ms, 'deliveredAt');
      const [opened, clicked, replied] = ['openedAt', 'clickedAt', 'repliedAt'].map((k) => count(ms, k)) as [number, number, number];
      expect(opened / delivered).toBeGreaterThan(0.25);
      expect(opened / delivered).toBeLessThan(0.75);
      for (const x of [clicked, replied]) {
        expect(x / delivered).toBeGreaterThan(0.02);
        expect(x / delivered).toBeLessThan(opened / delivered / 2);
      }
      // Every click and reply is of an opened mailing.
      for (const m of ms) if (m.attributes['clickedAt'] || m.attributes['repliedAt']) expect(m.attributes['openedAt']).toBeTruthy();
    }
  });

  it('the demo org (25 prospects) has delivery statistics in every sequence', () => {
    const demo = new Store();
    seedOrg(demo);
    for (const seq of demo.table('sequence').values()) expect(n(seq, 'deliverCount'), `sequence ${seq.id}`).toBeGreaterThanOrEqual(8);
    const steps = [...demo.table('sequenceStep').values()];
    expect(sum(steps, 'replyCount') + sum(steps, 'clickCount')).toBeGreaterThan(3);
  });

  it('nothing that has happened is dated after the clock (only due dates, schedules and close dates lie ahead)', () => {
    const forward = new Set(['dueAt', 'scheduledAt', 'closeDate', 'expiresAt']);
    // Seeded at 06:00 UTC (before noon, when a seed dated from noon put the morning's activity
    // ahead of the clock), and at 23:30; updatedAt is stamped by the store's clock too.
    for (const clock of [Date.parse('2026-03-10T06:00:00Z'), Date.parse('2026-08-01T23:30:00Z')]) {
      for (const prospects of [25, 900]) {
        const org = new Store();
        org.now = () => clock;
        seedOrg(org, prospects);
        const now = new Date(clock).toISOString().slice(0, 19);
        const future: string[] = [];
        for (const rt of RESOURCES)
          for (const r of org.table(rt.type).values())
            for (const [k, v] of Object.entries(r.attributes))
              if (!forward.has(k) && typeof v === 'string' && /^\d{4}-\d\d-\d\d(T|$)/.test(v) && v > now)
                future.push(`${rt.type} ${r.id} ${k} ${v}`);
        expect(future.slice(0, 10), `${prospects} prospects at ${now}`).toEqual([]);
      }
    }
  });

  it('the same seed gives the same statistics', () => {
    const again = new Store();
    seedOrg(again, 900);
    expect([...again.table('sequenceStep').values()].map((s) => s.attributes)).toEqual(steps.map((s) => s.attributes));
  });
});
