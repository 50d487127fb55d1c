/**
 * The zone reports count days in (src/time-zone.ts): local dates and the first
 * instant of a local date, across daylight-saving changes (days of 23, 24.5 and 25 hours, a day
 * that begins at 01:00), checked against `Intl`'s own offsets (`longOffset`, read apart from the
 * module's per-day cache); calendar arithmetic; `--tz` and `TZ`.
 */
import { describe, expect, it } from 'vitest';
import { calendar, daysInRange } from '../../../src/commands/report/mailings.js';
import { addDays, mondayOf, resolveZone, wallTime, zoneNamed, zoneText } from '../../../src/time-zone.js';
import { UsageError } from '../../../src/errors.js';

const HOUR = 3_600_000;
const ZONES = [
  'Asia/Tokyo',
  'America/New_York',
  'Europe/London',
  'Australia/Lord_Howe',
  'America/Santiago',
  'Asia/Kathmandu',
  'Pacific/Chatham',
];

/** The offsets `Intl` names for instants of a zone (`GMT+09:00`, `GMT-04:00`, `GMT`), in ms. */
function intlOffsets(zone: string): (t: number) => number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  return (t) => {
    const name = format.formatToParts(t).find((p) => p.type === 'timeZoneName')!.value;
    const m = /^GMT(?:([+-])(\d\d):(\d\d))?$/.exec(name)!;
    return m[1] ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000 : 0;
  };
}

describe('a zone', () => {
  it('puts 2026-03-01T15:33:00 UTC on 2 March in Tokyo, on 1 March in UTC', () => {
    const t = Date.parse('2026-03-01T15:33:00Z');
    expect(zoneNamed('Asia/Tokyo').date(t)).toBe('2026-03-02');
    expect(zoneNamed('UTC').date(t)).toBe('2026-03-01');
    expect(wallTime(zoneNamed('Asia/Tokyo'), t)).toBe('2026-03-02 00:33');
  });

  // Every 367 minutes (a step that visits every hour of the day over the year) and each change
  // found within 6-hour windows, not hourly: Intl's formatToParts is ~10 µs, and the hourly scan
  // of seven zones was 2.4 CPU-s of the suite.
  it.each(ZONES)('%s: offsets equal Intl’s every 367 minutes of 2026, and on either side of each change', (name) => {
    const zone = zoneNamed(name);
    const intl = intlOffsets(name);
    const wrong: string[] = [];
    const check = (t: number) => {
      if (zone.offset(t) !== intl(t)) wrong.push(`${new Date(t).toISOString()}: ${zone.offset(t)} ≠ ${intl(t)}`);
    };
    const end = Date.parse('2027-01-01T00:00:00Z');
    for (let t = Date.parse('2026-01-01T00:00:00Z'); t < end; t += 367 * 60_000) check(t);
    let changes = 0;
    const WINDOW = 6 * HOUR;
    for (let t = Date.parse('2026-01-01T00:00:00Z'); t < end; t += WINDOW) {
      if (intl(t) === intl(t + WINDOW)) continue;
      let [lo, hi] = [t, t + WINDOW];
      while (hi - lo > 1000) {
        const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
        if (intl(mid) === intl(t)) lo = mid;
        else hi = mid;
      }
      check(hi - 1000);
      check(hi);
      changes++;
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(changes).toBe(['Asia/Tokyo', 'Asia/Kathmandu'].includes(name) ? 0 : 2);
  });

  it.each(ZONES)('%s: each day of 2025–2027 starts at its first second: the second before is the day before', (name) => {
    const zone = zoneNamed(name);
    const wrong: string[] = [];
    for (let d = '2025-01-01'; d < '2028-01-01'; d = addDays(d, 1)) {
      const start = zone.startOf(d);
      if (zone.date(start) !== d || zone.date(start - 1000) !== addDays(d, -1)) wrong.push(d);
    }
    expect(wrong).toEqual([]);
  });

  it('days of 23 and 25 hours in New York, 24.5 on Lord Howe; Santiago’s 6 September 2026 starts at 01:00', () => {
    const hours = (zone: string, d: string) => (zoneNamed(zone).startOf(addDays(d, 1)) - zoneNamed(zone).startOf(d)) / HOUR;
    expect(hours('America/New_York', '2026-03-07')).toBe(24);
    expect(hours('America/New_York', '2026-03-08')).toBe(23);
    expect(hours('America/New_York', '2026-11-01')).toBe(25);
    expect(hours('Australia/Lord_Howe', '2026-04-05')).toBe(24.5);
    const santiago = zoneNamed('America/Santiago');
    expect(wallTime(santiago, santiago.startOf('2026-09-06'))).toBe('2026-09-06 01:00');
    expect(new Date(zoneNamed('America/New_York').startOf('2026-03-09')).toISOString()).toBe('2026-03-09T04:00:00.000Z');
  });

  it('says its name and offset, with the changes over a range', () => {
    const now = Date.parse('2026-03-02T00:00:00Z');
    expect(zoneText(zoneNamed('Asia/Tokyo'), now)).toBe('Asia/Tokyo (UTC+09:00)');
    expect(zoneText(zoneNamed('Asia/Kathmandu'), now)).toBe('Asia/Kathmandu (UTC+05:45)');
    expect(zoneText(zoneNamed('UTC'), now)).toBe('UTC');
    const ny = zoneNamed('America/New_York');
    expect(zoneText(ny, now, ['2026-02-01', '2026-03-07'])).toBe('America/New_York (UTC-05:00)');
    expect(zoneText(ny, now, ['2026-02-01', '2026-03-31'])).toBe('America/New_York (UTC-05:00, UTC-04:00 from 2026-03-08)');
    expect(zoneText(ny, now, ['2026-01-01', '2026-12-31'])).toBe(
      'America/New_York (UTC-05:00, UTC-04:00 from 2026-03-08, UTC-05:00 from 2026-11-01)',
    );
    expect(zoneText(ny, now, ['2025-01-01', '2026-12-31'])).toBe('America/New_York (UTC-05:00 or UTC-04:00)');
  });
});

describe('calendar arithmetic', () => {
  it('Mondays, days and weeks of a range, across months and years', () => {
    expect(mondayOf('2026-03-08')).toBe('2026-03-02'); // a Sunday
    expect(mondayOf('2026-03-09')).toBe('2026-03-09');
    expect(mondayOf('2027-01-01')).toBe('2026-12-28');
    expect(calendar('2026-02-27', '2026-03-02', 'day')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    expect(calendar('2026-03-04', '2026-03-16', 'week')).toEqual(['2026-03-02', '2026-03-09', '2026-03-16']);
    expect(daysInRange('2026-03-02', ['2026-03-04', '2026-03-16'])).toBe(5);
    expect(daysInRange('2026-03-16', ['2026-03-04', '2026-03-16'])).toBe(1);
    expect(daysInRange('2026-03-09', ['2026-03-04', '2026-03-16'])).toBe(7);
  });
});

describe('--tz and TZ', () => {
  const warnings: string[] = [];
  const zone = (flag: string | undefined, env: NodeJS.ProcessEnv = {}) => resolveZone(flag, env, (m) => warnings.push(m)).name;

  it('--tz takes an IANA name in any case, UTC, or local (the machine’s)', () => {
    expect(zone('asia/tokyo')).toBe('Asia/Tokyo');
    expect(zone('utc', { TZ: 'Asia/Tokyo' })).toBe('UTC');
    expect(zone('local', { TZ: 'Asia/Tokyo' })).toBe('Asia/Tokyo');
    expect(zone(' Europe/Paris ')).toBe('Europe/Paris');
  });

  it('without --tz the command’s TZ (`:` and all), an empty TZ is UTC, no TZ is Intl’s default', () => {
    expect(zone(undefined, { TZ: 'America/New_York' })).toBe('America/New_York');
    expect(zone(undefined, { TZ: ':Asia/Tokyo' })).toBe('Asia/Tokyo');
    expect(zone(undefined, { TZ: '' })).toBe('UTC');
    expect(zone(undefined, {})).toBe(new Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(warnings).toEqual([]);
  });

  it('a TZ Intl does not know (a POSIX rule) counts UTC days, with a warning', () => {
    expect(zone(undefined, { TZ: 'JST-9' })).toBe('UTC');
    expect(warnings.splice(0)).toEqual([
      'TZ=JST-9 is not a time zone svc knows: days are counted in UTC (--tz Asia/Tokyo or another IANA name picks one)',
    ]);
  });

  it('an unknown --tz is a usage error (exit 2) with a hint', () => {
    const e = (() => {
      try {
        zone('Asia/Tokio');
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(UsageError);
    expect(e).toMatchObject({ exitCode: 2, message: '--tz Asia/Tokio: not a time zone' });
    expect((e as UsageError).hints[0]).toMatch(/^did you mean --tz Asia\/Tokyo\? /);
  });
});
