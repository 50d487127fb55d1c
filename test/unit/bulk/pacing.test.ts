/** The pacer: full speed with budget, spread out near the end, wait for the reset, blocks. */
import { describe, expect, it } from 'vitest';
import { Pacer } from '../../../src/bulk/run/pacing.js';
import { ServerWaitError } from '../../../src/api/server-wait.js';
import { clock } from '../../../src/bulk/run/progress.js';

/** A fake clock whose sleeps advance time instantly. */
function fakeTime(start = 1_700_000_000_000) {
  let t = start;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleeps,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
}

const never = new AbortController().signal;

describe('Pacer', () => {
  it('does not wait while the budget is large', async () => {
    const t = fakeTime();
    const p = new Pacer({ concurrency: 4, now: t.now, sleep: t.sleep });
    p.observe({ limit: 10_000, remaining: 9_000, reset: String(Math.ceil(t.now() / 1000) + 3600) }, 200);
    for (let i = 0; i < 100; i++) {
      expect(await p.acquire(never)).toBe(true);
      p.release();
    }
    expect(t.sleeps).toEqual([]);
  });

  it('never lets more requests start than the window has left, counting those in flight', async () => {
    const t = fakeTime();
    const waits: string[] = [];
    const p = new Pacer({ concurrency: 4, now: t.now, sleep: t.sleep, onWait: (_ms, why) => waits.push(why) });
    const reset = Math.ceil(t.now() / 1000) + 10;
    p.observe({ limit: 100, remaining: 3, reset: String(reset) }, 200);
    // Three may start before the reset (spread out, as they are the window's last); they stay
    // in flight (not answered), so the fourth may start only once the window has reset.
    const starts: number[] = [];
    for (let i = 0; i < 3; i++) {
      expect(await p.acquire(never)).toBe(true);
      starts.push(t.now());
    }
    const fourth = p.acquire(never).then((ok) => {
      starts.push(t.now());
      return ok;
    });
    // After the reset the window is probed, not assumed full: the fourth waits while the three
    // are unanswered, and goes once they are.
    await new Promise((r) => setTimeout(r, 20));
    expect(starts).toHaveLength(3);
    for (let i = 0; i < 3; i++) p.release();
    expect(await fourth).toBe(true);
    expect(starts.filter((s) => s < reset * 1000)).toHaveLength(3);
    expect(starts[3]).toBeGreaterThanOrEqual(reset * 1000);
    expect(waits.some((w) => w.includes('slowing down'))).toBe(true);
  });

  it('probes a window before trusting it: one request alone until an answer tells the budget', async () => {
    const t = fakeTime();
    const p = new Pacer({ concurrency: 4, now: t.now, sleep: t.sleep });
    expect(await p.acquire(never)).toBe(true);
    let second = false;
    const next = p.acquire(never).then(() => (second = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(second).toBe(false);
    p.observe({ limit: 100, remaining: 99, reset: String(Math.ceil(t.now() / 1000) + 60) }, 200);
    await next;
    expect(second).toBe(true);
  });

  it('a reading showing more left than a late answer could means the window was reset', async () => {
    const t = fakeTime();
    const p = new Pacer({ concurrency: 2, now: t.now, sleep: t.sleep });
    const r = String(Math.ceil(t.now() / 1000) + 1);
    p.observe({ limit: 30, remaining: 1, reset: r }, 200);
    // Same announced reset second (short windows), but 29 left: a new window.
    p.observe({ limit: 30, remaining: 29, reset: r }, 200);
    for (let i = 0; i < 5; i++) expect(await p.acquire(never)).toBe(true);
    expect(t.sleeps).toEqual([]);
  });

  it('waits for the reset when the budget is spent', async () => {
    const t = fakeTime();
    const waits: string[] = [];
    const p = new Pacer({ concurrency: 4, now: t.now, sleep: t.sleep, onWait: (_ms, why) => waits.push(why) });
    const reset = Math.ceil(t.now() / 1000) + 30;
    p.observe({ limit: 100, remaining: 0, reset: String(reset) }, 200);
    expect(await p.acquire(never)).toBe(true);
    expect(t.now()).toBeGreaterThanOrEqual(reset * 1000);
    expect(waits).toEqual(['rate limit: no requests left in this window, waiting for it to reset']);
  });

  it('spreads the last requests of a window evenly instead of spending them at once', async () => {
    const t = fakeTime(1_700_000_000_000);
    const p = new Pacer({ concurrency: 2, now: t.now, sleep: t.sleep });
    // 4 left (below the low-water mark of 2 × concurrency... 4), 8 s to the reset.
    p.observe({ limit: 1000, remaining: 4, reset: String(1_700_000_008) }, 200);
    const starts: number[] = [];
    for (let i = 0; i < 3; i++) {
      await p.acquire(never);
      starts.push(t.now());
      p.release();
      p.observe({ limit: 1000, remaining: 3 - i, reset: String(1_700_000_008) }, 200);
    }
    expect(starts[1]! - starts[0]!).toBeGreaterThan(1000);
    expect(starts[2]! - starts[1]!).toBeGreaterThan(1000);
  });

  it('a block stops everyone until it ends; abort ends waits', async () => {
    const t = fakeTime();
    const p = new Pacer({ concurrency: 1, now: t.now, sleep: t.sleep });
    p.block(t.now() + 5000, 'HTTP 503');
    const before = t.now();
    expect(await p.acquire(never)).toBe(true);
    expect(t.now() - before).toBe(5000);
    p.release();
    p.observe({ limit: 10, remaining: 5, reset: String(Math.ceil(t.now() / 1000) + 60) }, 429);
    const ac = new AbortController();
    ac.abort();
    expect(await p.acquire(ac.signal)).toBe(false);
  });

  it("a 429 leaves the server's own count standing: 9,999 left means no wait for the window", async () => {
    const t = fakeTime();
    const p = new Pacer({ concurrency: 4, now: t.now, sleep: t.sleep });
    p.observe({ limit: 10_000, remaining: 9_999, reset: String(Math.ceil(t.now() / 1000) + 3600) }, 429);
    p.block(t.now() + 1000, 'rate limited (HTTP 429)');
    expect(await p.acquire(never)).toBe(true);
    expect(t.sleeps).toEqual([1000]);
  });

  it('a spent window whose reset cannot be meant stops every worker with an error naming it', async () => {
    const t = fakeTime();
    const p = new Pacer({ concurrency: 2, now: t.now, sleep: t.sleep });
    const ms = String(t.now() + 60_000); // epoch milliseconds
    p.observe({ limit: 100, remaining: 0, reset: ms }, 200);
    await expect(p.acquire(never)).rejects.toThrow(new RegExp(`X-RateLimit-Reset: ${ms} is a time in epoch milliseconds`));
    await expect(p.acquire(never)).rejects.toBeInstanceOf(ServerWaitError);
    expect(t.sleeps).toEqual([]);
  });

  it('the same reset with requests left is no reason to stop (nothing to wait for)', async () => {
    const t = fakeTime();
    const p = new Pacer({ concurrency: 2, now: t.now, sleep: t.sleep });
    p.observe({ limit: 100, remaining: 50, reset: String(t.now() + 60_000) }, 200);
    expect(await p.acquire(never)).toBe(true);
  });

  it('fail() ends the waits in progress and every later acquire throws', async () => {
    let wakeSleep!: () => void;
    const p = new Pacer({
      concurrency: 2,
      sleep: (_ms, signal) =>
        new Promise<void>((resolve) => {
          wakeSleep = resolve;
          signal?.addEventListener('abort', () => resolve(), { once: true });
        }),
    });
    p.block(Date.now() + 3600_000, 'HTTP 503');
    const waiting = p.acquire(never);
    await new Promise((r) => setTimeout(r, 10));
    const err = new Error('stop');
    p.fail(err);
    await expect(waiting).rejects.toBe(err);
    await expect(p.acquire(never)).rejects.toBe(err);
    expect(wakeSleep).toBeTypeOf('function');
  });

  it('ignores a late reading from the previous window', async () => {
    const t = fakeTime();
    const p = new Pacer({ concurrency: 1, now: t.now, sleep: t.sleep });
    const now = Math.ceil(t.now() / 1000);
    p.observe({ limit: 100, remaining: 90, reset: String(now + 60) }, 200);
    p.observe({ limit: 100, remaining: 0, reset: String(now - 10) }, 200);
    expect(await p.acquire(never)).toBe(true);
    expect(t.sleeps).toEqual([]);
  });
});

describe('clock()', () => {
  it('formats durations', () => {
    expect(clock(7_000)).toBe('0:07');
    expect(clock(65_000)).toBe('1:05');
    expect(clock(3_723_000)).toBe('1:02:03');
  });
});
