/**
 * Delivery rates and the A/B significance test: pure arithmetic, the same for the terminal, the
 * HTML page and the numbers of `-o json`.
 *
 * Every rate is a count over the mailings delivered (`deliverCount`), except bounces and failures,
 * which happen to mailings that were not (all) delivered: those are over scheduled + delivered.
 * A rate with a zero denominator is null (shown as "–"), never 0 or NaN.
 */

/** The eleven counters of steps, templates and enrolments (missing ones read as 0). */
export const COUNTER_NAMES = [
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
] as const;

type CounterName = (typeof COUNTER_NAMES)[number];
export type Counters = Record<CounterName, number>;

/** The rates a report can chart (`--by`). */
export const RATE_NAMES = ['open', 'click', 'reply', 'positive', 'bounce', 'optout', 'failure'] as const;
export type RateName = (typeof RATE_NAMES)[number];
type Rates = Record<RateName, number | null>;

/** How each rate is computed, for help texts, the HTML page and the README. */
export const RATE_FORMULAS: Record<RateName, string> = {
  open: 'openCount ÷ deliverCount',
  click: 'clickCount ÷ deliverCount',
  reply: 'replyCount ÷ deliverCount',
  positive: 'positiveReplyCount ÷ deliverCount',
  optout: 'optOutCount ÷ deliverCount',
  bounce: 'bounceCount ÷ (scheduleCount + deliverCount)',
  failure: 'failureCount ÷ (scheduleCount + deliverCount)',
};

/** Counters read from attributes; absent or non-numeric ones are 0. */
export function countersOf(attrs: Record<string, unknown> | undefined): Counters {
  const c = {} as Counters;
  for (const k of COUNTER_NAMES) {
    const v = attrs?.[k];
    c[k] = typeof v === 'number' && Number.isFinite(v) ? v : 0;
  }
  return c;
}

/** Element-wise sum of counters. */
export function addCounters(list: readonly Counters[]): Counters {
  const c = countersOf(undefined);
  for (const x of list) for (const k of COUNTER_NAMES) c[k] += x[k];
  return c;
}

/** `n ÷ d`, or null when `d` is 0. */
export function ratio(n: number, d: number): number | null {
  return d > 0 ? n / d : null;
}

/** All rates of a set of counters. */
export function ratesOf(c: Counters): Rates {
  const sent = c.scheduleCount + c.deliverCount;
  return {
    open: ratio(c.openCount, c.deliverCount),
    click: ratio(c.clickCount, c.deliverCount),
    reply: ratio(c.replyCount, c.deliverCount),
    positive: ratio(c.positiveReplyCount, c.deliverCount),
    optout: ratio(c.optOutCount, c.deliverCount),
    bounce: ratio(c.bounceCount, sent),
    failure: ratio(c.failureCount, sent),
  };
}

/** A rate as a percentage with one decimal ("12.5%"), "–" for none. */
export function pct(r: number | null): string {
  return r === null ? '–' : `${(r * 100).toFixed(1)}%`;
}

/** Rates rounded to 4 decimals for machine output (0.1234 = 12.34%). */
export function roundRates(r: Rates): Rates {
  const out = {} as Rates;
  for (const k of RATE_NAMES) out[k] = r[k] === null ? null : Math.round(r[k]! * 10_000) / 10_000;
  return out;
}

/** The rule of the A/B test, stated where its result is shown. */
export const AB_RULE =
  'two-sided two-proportion z-test on reply rates (pooled); run when each template has ≥ 30 deliveries and ≥ 5 expected replies and non-replies; significant when p < 0.05';

/** Outcome of comparing two templates' reply rates. */
type AbResult = { tested: false; reason: string } | { tested: true; z: number; p: number; significant: boolean; better: 0 | 1 | null };

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 for erf; error below 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}

/** Compares replies `x1/n1` against `x2/n2` (replies / deliveries). */
export function twoProportionTest(x1: number, n1: number, x2: number, n2: number): AbResult {
  if (n1 < 30 || n2 < 30) return { tested: false, reason: `too few deliveries to compare (need ≥ 30 each; have ${n1} and ${n2})` };
  const pooled = (x1 + x2) / (n1 + n2);
  for (const n of [n1, n2]) {
    if (n * pooled < 5 || n * (1 - pooled) < 5)
      return { tested: false, reason: 'too few replies (or non-replies) for the normal approximation (need ≥ 5 expected each)' };
  }
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  const z = (x1 / n1 - x2 / n2) / se;
  const p = Math.min(1, 2 * (1 - normalCdf(Math.abs(z))));
  const significant = p < 0.05;
  return { tested: true, z, p, significant, better: significant ? (z > 0 ? 0 : 1) : null };
}
