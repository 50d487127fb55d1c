/**
 * The API's date-times are UTC without a zone (`2026-01-05T10:00:00`); `Date.parse` reads such a
 * string as local time. Run here in a zone five hours behind UTC (process.env.TZ, which Node
 * applies at once), where that reading is off by hours: the instants and the comparisons that use
 * them (an upsert's "nothing changed", a dedupe plan's `updatedAt` against the API's, how old
 * `svc sql` says the mirror is) hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiTime } from '../../src/api-time.js';
import { diffRecord } from '../../src/bulk/rows/record-diff.js';
import { age } from '../../src/mirror/reader.js';
import { retryAfterMs } from '../../src/api/jsonapi.js';
import { readServerWait } from '../../src/api/server-wait.js';

let tz: string | undefined;
beforeAll(() => {
  tz = process.env.TZ;
  process.env.TZ = 'America/New_York';
});
afterAll(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
});

describe('API date-times outside UTC', () => {
  it('reads a zone-less date-time as UTC, in every spelling', () => {
    // The zone is in force: Date.parse alone is off by five hours.
    expect(Date.parse('2026-01-05T10:00:00')).toBe(Date.UTC(2026, 0, 5, 15));
    const at = Date.UTC(2026, 0, 5, 10);
    for (const v of [
      '2026-01-05T10:00:00',
      '2026-01-05T10:00:00Z',
      '2026-01-05T10:00:00.000Z',
      '2026-01-05T05:00:00-05:00',
      '2026-01-05 10:00:00',
    ])
      expect(apiTime(v), v).toBe(at);
    expect(apiTime('2026-01-05')).toBe(Date.UTC(2026, 0, 5));
    expect(apiTime('Mon, 05 Jan 2026 10:00:00 GMT')).toBe(at);
    expect(apiTime('')).toBeNaN();
    expect(apiTime(null)).toBeNaN();
  });

  it('the age of a mirror (its times written zone-less, as the API writes them) is not off by the zone', () => {
    expect(age('2026-01-05T10:00:00', Date.UTC(2026, 0, 5, 10, 0, 30))).toBe('30 s');
    expect(age('2026-01-05T10:00:00', Date.UTC(2026, 0, 5, 12))).toBe('2 h');
  });

  it('a Retry-After or reset given as a zone-less ISO time is waited for from UTC', () => {
    const now = Date.UTC(2026, 0, 5, 10);
    expect(retryAfterMs('2026-01-05T10:00:30', now)).toBe(30_000);
    expect(readServerWait('2026-01-05T10:00:30', now)).toEqual({ ms: 30_000 });
    expect(retryAfterMs('Mon, 05 Jan 2026 10:00:30 GMT', now)).toBe(30_000);
  });

  it('an upsert sends no change for a date-time the service holds in another spelling', () => {
    const record = { id: '7', attributes: { foundedAt: '2026-01-05T10:00:00' }, relationships: {} };
    const same = diffRecord({ type: 'account', attributes: { foundedAt: '2026-01-05T10:00:00Z' }, relationships: {} }, record as never);
    expect(same.changes).toEqual([]);
    const later = diffRecord({ type: 'account', attributes: { foundedAt: '2026-01-05T11:00:00Z' }, relationships: {} }, record as never);
    expect(later.changes.map((c) => c.field)).toEqual(['foundedAt']);
  });
});
