/**
 * No seeded record is dated after the sandbox's clock, whatever the time of day it is seeded at:
 * a mirror's `updatedAt` watermark must never be pushed ahead of the server by the seed. The
 * hardest clock is midnight exactly (the seed dates its history from the start of the day), with
 * an org big enough to have calls whose step fell due in the last hour before it.
 */
import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/registry/index.js';
import { seedOrg } from '../../src/sandbox/data/seed.js';
import { Store } from '../../src/sandbox/data/store.js';

// Dates of what is still to come: a task's due date, a scheduled mailing, an opportunity's close.
const FORWARD = new Set(['dueAt', 'scheduledAt', 'closeDate', 'expiresAt']);

describe('seeded timestamps', () => {
  it.each([
    ['2026-11-28T00:00:00Z', 2000],
    // 3,000 (10,000 before): with the call's date put back to an hour after its step fell due
    // (the bug this file was written for), 10,000 at 00:20 passed and 3,000 fails, as 2,000 at
    // midnight does; a seed of 10,000 was 1.1 CPU-s of the file's 1.4.
    ['2026-11-28T00:20:00Z', 3000],
  ])('seeded at %s with %i prospects, no type has a date after the clock', (at, prospects) => {
    const clock = Date.parse(at);
    const store = new Store();
    store.now = () => clock;
    seedOrg(store, prospects);
    const now = at.slice(0, 19);
    const future: string[] = [];
    for (const rt of RESOURCES)
      for (const r of store.table(rt.type).values())
        for (const [k, v] of Object.entries(r.attributes))
          if (!FORWARD.has(k) && typeof v === 'string' && /^\d{4}-\d\d-\d\d(T|$)/.test(v) && v > now)
            future.push(`${rt.type} ${r.id} ${k} ${v}`);
    // Every type a mirror reads by default is seeded, so every one of them was checked.
    for (const t of ['prospect', 'account', 'mailing', 'call', 'sequenceState', 'sequenceStep', 'sequence', 'task', 'user', 'mailbox'])
      expect(store.table(t).size, t).toBeGreaterThan(0);
    expect(future.slice(0, 10)).toEqual([]);
  });
});
