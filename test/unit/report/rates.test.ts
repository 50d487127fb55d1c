import { describe, expect, it } from 'vitest';
import { addCounters, countersOf, normalCdf, pct, ratesOf, twoProportionTest } from '../../../src/commands/report/rates.js';

describe('rates', () => {
  it('are counts over delivered; bounce and failure over scheduled + delivered', () => {
    const c = countersOf({
      deliverCount: 200,
      openCount: 100,
      clickCount: 20,
      replyCount: 30,
      positiveReplyCount: 12,
      optOutCount: 4,
      bounceCount: 10,
      failureCount: 2,
      scheduleCount: 50,
    });
    expect(ratesOf(c)).toEqual({ open: 0.5, click: 0.1, reply: 0.15, positive: 0.06, optout: 0.02, bounce: 10 / 250, failure: 2 / 250 });
  });

  it('are null, never NaN, over zero', () => {
    const r = ratesOf(countersOf({}));
    expect(Object.values(r).every((v) => v === null)).toBe(true);
    expect(pct(null)).toBe('–');
    expect(pct(0.125)).toBe('12.5%');
  });

  it('counters ignore what is missing or not a number, and add up', () => {
    const a = countersOf({ deliverCount: 3, openCount: 'x' });
    expect(a.openCount).toBe(0);
    expect(addCounters([a, countersOf({ deliverCount: 4, openCount: 1 })])).toMatchObject({ deliverCount: 7, openCount: 1 });
  });
});

describe('two-proportion test', () => {
  it('normal CDF matches known values', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 6);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 5);
    expect(normalCdf(-2.5)).toBeCloseTo(0.00621, 5);
  });

  it('30/200 against 50/200: z = -2.5, p ≈ 0.0124, the second is better', () => {
    const r = twoProportionTest(30, 200, 50, 200);
    expect(r.tested).toBe(true);
    if (!r.tested) return;
    expect(r.z).toBeCloseTo(-2.5, 6);
    expect(r.p).toBeCloseTo(0.0124, 4);
    expect(r.significant).toBe(true);
    expect(r.better).toBe(1);
  });

  it('close rates are not significant', () => {
    const r = twoProportionTest(30, 200, 33, 200);
    expect(r).toMatchObject({ tested: true, significant: false, better: null });
  });

  it('is not run on too few deliveries or replies', () => {
    expect(twoProportionTest(1, 10, 5, 10)).toMatchObject({ tested: false });
    expect(twoProportionTest(0, 40, 1, 40)).toMatchObject({ tested: false });
  });
});
