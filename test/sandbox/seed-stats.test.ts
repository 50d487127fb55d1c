/**
 * The seeded org's statistics agree with each other: sequence = Σ steps = Σ states, step = Σ its
 * templates = its mailings, deliver ≥ open ≥ click, replies split by sentiment, A/B steps, and a
 * contact histogram with a seasonal shape.
 */
import { describe, expect, it } from 'vitest';
import { seedOrg } from '../../src/sandbox/data/seed.js';
import { contactHistogram } from '../../src/sandbox/rules/crm.js';
import { Store } from '../../src/sandbox/data/store.js';
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

  it('the same seed gives the same statistics', () => {
    const again = new Store();
    seedOrg(again, 900);
    expect([...again.table('sequenceStep').values()].map((s) => s.attributes)).toEqual(steps.map((s) => s.attributes));
  });
});
