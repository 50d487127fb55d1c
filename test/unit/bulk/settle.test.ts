/** The settle window's schedule, and reading an update back (pure logic, a fake clock). */
import { describe, expect, it } from 'vitest';
import { lookupQuery } from '../../../src/bulk/rows/lookup.js';
import { prepareRow } from '../../../src/bulk/rows/resource-rows.js';
import { Stopped } from '../../../src/bulk/run/requester.js';
import { settle, settleSchedule, type SettleClock } from '../../../src/bulk/run/settle.js';
import { readBackQuery, updateApplied } from '../../../src/bulk/rows/write-check.js';
import { resourceByType } from '../../../src/registry/index.js';

/** A clock whose sleeps move time on at once; records when each lookup ran. */
function fakeClock(windowMs: number, start = 1_000_000): SettleClock & { t: number } {
  const c = {
    t: start,
    windowMs,
    now: () => c.t,
    sleep: async (ms: number) => {
      c.t += ms;
    },
    signal: new AbortController().signal,
  };
  return c;
}

describe('settle window', () => {
  it('looks at once, then at 1/8, 1/4, 1/2 and the end of the window; 0 looks once', () => {
    expect(settleSchedule(30_000)).toEqual([0, 3750, 7500, 15_000, 30_000]);
    expect(settleSchedule(0)).toEqual([0]);
  });

  it('stops at the first verdict; "not there" only after the last look, at the end of the window', async () => {
    const c = fakeClock(8000);
    const at: number[] = [];
    expect(
      await settle(c, c.t, async () => {
        at.push(c.t - 1_000_000);
      }),
    ).toBeUndefined();
    expect(at).toEqual([0, 1000, 2000, 4000, 8000]);
    const c2 = fakeClock(8000);
    let n = 0;
    expect(await settle(c2, c2.t, async () => (++n === 3 ? 'found' : undefined))).toBe('found');
    expect(c2.t - 1_000_000).toBe(2000);
  });

  it('a window started by an earlier run: only the looks still to come, and always the last', async () => {
    const c = fakeClock(8000);
    const at: number[] = [];
    // Sent 3 s ago: the looks at 0, 1 and 2 s are past; the one due at 2 s stands for them.
    await settle(c, c.t - 3000, async () => {
      at.push(c.t - 1_000_000);
    });
    expect(at).toEqual([0, 1000, 5000]);
    // Sent long ago: one look, now.
    const c2 = fakeClock(8000);
    const at2: number[] = [];
    await settle(c2, c2.t - 60_000, async () => {
      at2.push(c2.t - 1_000_000);
    });
    expect(at2).toEqual([0]);
  });

  it('Ctrl-C during the wait: Stopped, and no further lookup', async () => {
    const ac = new AbortController();
    const c = { ...fakeClock(8000), signal: ac.signal };
    let looks = 0;
    const p = settle(c, c.now(), async () => {
      looks++;
      ac.abort();
      return undefined;
    });
    await expect(p).rejects.toBeInstanceOf(Stopped);
    expect(looks).toBe(1);
  });
});

describe('reading an update back', () => {
  const prospect = resourceByType('prospect')!;
  const data = {
    type: 'prospect',
    id: 5,
    attributes: { title: 'CEO', emails: ['a@x.test'] },
    relationships: { account: { data: { type: 'account', id: 3 } } },
  };

  it('asks for what the update sets', () => {
    expect(readBackQuery(prospect, data)).toBe('fields[prospect]=title,emails,account');
  });

  it('applied when every comparable value matches (ids as numbers or strings); not when one differs', () => {
    const rec = (title: string, account: number | string) => ({
      type: 'prospect',
      id: 5,
      attributes: { title, emails: ['a@x.test'] },
      relationships: { account: { data: { type: 'account', id: account } } },
    });
    expect(updateApplied(prospect, data, rec('CEO', 3))).toBe(true);
    expect(updateApplied(prospect, data, rec('CEO', '3'))).toBe(true);
    expect(updateApplied(prospect, data, rec('CTO', 3))).toBe(false);
    expect(updateApplied(prospect, data, rec('CEO', 4))).toBe(false);
    // Nothing comparable (a relationship given only as links): unknown, the window is waited out.
    const only = { type: 'prospect', id: 5, attributes: {}, relationships: { account: { data: { type: 'account', id: 3 } } } };
    expect(
      updateApplied(prospect, only, { type: 'prospect', id: 5, relationships: { account: { links: { related: 'x' } } } }),
    ).toBeUndefined();
  });
});

describe('lookup after a lost create', () => {
  it('leaves dates and times out of the filter (the server may write them back in another form)', () => {
    const mailing = resourceByType('mailing')!;
    const row = (value: Record<string, unknown>) =>
      (prepareRow(mailing, 'create', { row: 1, value }) as { write: { data: Parameters<typeof lookupQuery>[1] } }).write.data;
    const q = lookupQuery(mailing, row({ scheduledAt: '2026-01-02T03:04:05Z', state: 'drafted' }), 0);
    expect(q?.map(([k]) => k)).toEqual(['filter[state]', 'filter[createdAt]', 'page[limit]', 'fields[mailing]']);
    // With only a date to go by, the row cannot be looked up: it would be reported unknown.
    expect(lookupQuery(mailing, row({ scheduledAt: '2026-01-02T03:04:05Z' }), 0)).toBeUndefined();
  });
});
