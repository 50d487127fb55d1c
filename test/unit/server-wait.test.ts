/** Reading the waits a server asks for, and the ones that cannot be meant. */
import { describe, expect, it } from 'vitest';
import { readServerWait, refusalWait } from '../../src/api/server-wait.js';
import { systemClock } from '../../src/runtime/context.js';

const NOW = Date.parse('2026-01-10T12:00:00Z');

describe('readServerWait', () => {
  it('reads a delay in seconds, epoch seconds, an HTTP date and an ISO time', () => {
    expect(readServerWait('1', NOW)).toEqual({ ms: 1000 });
    expect(readServerWait('0', NOW)).toEqual({ ms: 0 });
    expect(readServerWait(String(NOW / 1000 + 30), NOW)).toEqual({ ms: 30_000 });
    expect(readServerWait(new Date(NOW + 90_000).toUTCString(), NOW)).toEqual({ ms: 90_000 });
    expect(readServerWait('2026-01-10T13:00:00Z', NOW)).toEqual({ ms: 3600_000 });
    expect(readServerWait('86400', NOW)).toEqual({ ms: 86_400_000 });
  });

  it('a reset a few seconds ago (clock skew) means now', () => {
    expect(readServerWait(String(NOW / 1000 - 5), NOW)).toEqual({ ms: 0 });
  });

  it('nothing, or something unreadable, is undefined (the caller backs off)', () => {
    expect(readServerWait(undefined, NOW)).toBeUndefined();
    expect(readServerWait(' ', NOW)).toBeUndefined();
    expect(readServerWait('soon', NOW)).toBeUndefined();
  });

  it('over a day, well in the past, or epoch milliseconds: absurd, saying why', () => {
    expect(readServerWait('86401', NOW)).toEqual({ absurd: 'a wait of 1 day, over 24 hours' });
    expect(readServerWait('2592000', NOW)).toEqual({ absurd: 'a wait of 30 days, over 24 hours' });
    expect(readServerWait('129600', NOW)).toEqual({ absurd: 'a wait of 1.5 days, over 24 hours' });
    expect(readServerWait(String(NOW + 5000), NOW)).toEqual({ absurd: 'a time in epoch milliseconds (2026-01-10T12:00:05Z), not seconds' });
    expect(readServerWait(String(NOW / 1000 - 3600), NOW)).toEqual({
      absurd: 'a time in the past (2026-01-10T11:00:00Z, 60 minutes ago)',
      past: true,
    });
    expect(readServerWait('2027-01-10T12:00:00Z', NOW)).toMatchObject({ absurd: expect.stringMatching(/over 24 hours/) });
    expect(readServerWait('9'.repeat(400), NOW)).toMatchObject({ absurd: expect.stringMatching(/epoch milliseconds \(beyond any date\)/) });
  });
});

describe('refusalWait', () => {
  it("a 503's maintenance end long past means it overran: no wait to read; a 429's is absurd", () => {
    const past = new Date(NOW - 120_000).toISOString();
    expect(refusalWait(503, past, NOW)).toBeUndefined();
    expect(refusalWait(429, past, NOW)).toMatchObject({ absurd: expect.stringMatching(/in the past/) });
    expect(refusalWait(503, '2592000', NOW)).toMatchObject({ absurd: expect.stringMatching(/over 24 hours/) });
    expect(refusalWait(503, '2', NOW)).toEqual({ ms: 2000 });
  });
});

describe('systemClock.sleep', () => {
  it('a wait longer than a timer holds (~24.8 days) does not end after 1 ms; abort ends it', async () => {
    const ac = new AbortController();
    let ended = false;
    const p = systemClock.sleep(30 * 86400_000, ac.signal).then(() => (ended = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(ended).toBe(false);
    ac.abort();
    await p;
    expect(ended).toBe(true);
  });
});
