/**
 * The time zone days are counted in: a report's (`--tz`, else the machine's) and a filter's day
 * on a date-time field (the machine's: `list --filter updatedAt=today`). Local dates of instants,
 * the first instant of a local date, and the zone's name with its UTC offset for the views.
 *
 * The API's date-times are UTC (src/api-time.ts); people read days, weeks and months in their
 * own zone, and a mailing delivered at 00:33 in Tokyo fell on the day before when reports counted
 * UTC days (a trial); `--filter updatedAt=today` sent as a bare date found nothing in Sydney
 * before 11:00, the API reading it as a UTC day not yet begun (a trial). Local dates come from
 * `Intl.DateTimeFormat` (the zone data Node ships), so a day is 23 or 25 hours across a
 * daylight-saving change; dates themselves (`YYYY-MM-DD`: the calendar, weeks from Monday) are
 * counted by calendar arithmetic, never by adding 24 hours.
 */
import { UsageError } from './errors.js';
import { nearMiss } from './suggest.js';

const DAY = 86_400_000;

/** A time zone days are counted in. */
export interface Zone {
  /** The IANA name (`Asia/Tokyo`), or `UTC`. */
  readonly name: string;
  /** The offset from UTC at an instant, in milliseconds (east of Greenwich positive). */
  offset(t: number): number;
  /** The local date of an instant, `YYYY-MM-DD`. */
  date(t: number): string;
  /** The first instant of a local date (where a day starts at 01:00 after a change, then). */
  startOf(date: string): number;
}

/** The format whose parts give a wall time; `hourCycle` h23, so midnight is 00, never 24. */
function wallClock(name: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone: name,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
}

/** The zone's canonical name when `Intl` knows it (`asia/tokyo` → `Asia/Tokyo`, `utc` → `UTC`). */
function knownZone(name: string): string | undefined {
  // Without Intl: its first time zone costs ~25 ms of CPU (ICU's zone data), and UTC needs none.
  if (name.toLowerCase() === 'utc') return 'UTC';
  try {
    const z = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    return z && z !== 'Etc/Unknown' ? z : undefined;
  } catch {
    return undefined;
  }
}

/** A zone by a name `Intl` knows. */
export function zoneNamed(name: string): Zone {
  if (name === 'UTC') return { name, offset: () => 0, date: (t) => isoDate(t), startOf: (date) => Date.parse(`${date}T00:00:00Z`) };
  const clock = wallClock(name);
  const exact = (t: number): number => {
    const p: Record<string, number> = {};
    for (const part of clock.formatToParts(t)) if (part.type !== 'literal') p[part.type] = Number(part.value);
    const wall = Date.UTC(p['year']!, p['month']! - 1, p['day']!, p['hour']!, p['minute']!, p['second']!);
    return wall - (t - (((t % 1000) + 1000) % 1000));
  };
  // formatToParts costs ~50 µs, and a year of mailings is tens of thousands: offsets are kept per
  // UTC day, with the instant of the change on a day that has one (zones change at most once a day).
  const days = new Map<number, { before: number; after: number; at: number }>();
  const offset = (t: number): number => {
    const k = Math.floor(t / DAY);
    let d = days.get(k);
    if (!d) {
      const before = exact(k * DAY);
      const after = exact((k + 1) * DAY);
      let at = (k + 1) * DAY;
      if (before !== after) {
        // The change: the first second of the day whose offset is no longer `before`.
        let lo = k * DAY;
        while (at - lo > 1000) {
          const mid = lo + Math.floor((at - lo) / 2000) * 1000;
          if (exact(mid) === before) lo = mid;
          else at = mid;
        }
      }
      days.set(k, (d = { before, after, at }));
    }
    return t < d.at ? d.before : d.after;
  };
  const date = (t: number) => isoDate(t + offset(t));
  const startOf = (target: string): number => {
    // The first second whose local date is `target`: offsets lie within −12 and +14 hours, so
    // 15 hours before its UTC midnight the date is earlier and 13 hours after it has come.
    const midnight = Date.parse(`${target}T00:00:00Z`);
    let lo = midnight - 15 * 3_600_000;
    let hi = midnight + 13 * 3_600_000;
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (date(mid) < target) lo = mid;
      else hi = mid;
    }
    return hi;
  };
  return { name, offset, date, startOf };
}

/** `YYYY-MM-DD` of an instant read as UTC. */
function isoDate(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

/** `date` plus `n` calendar days. */
export function addDays(date: string, n: number): string {
  return isoDate(Date.parse(`${date}T00:00:00Z`) + n * DAY);
}

/** Calendar days from `a` to `b` (negative when `b` is earlier). */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY);
}

/** The Monday of a date's week (weeks start on Monday, as ISO weeks do). */
export function mondayOf(date: string): string {
  return addDays(date, -((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7));
}

/** `UTC+09:00`, `UTC-04:00`, `UTC+05:45`. */
function offsetText(ms: number): string {
  const m = Math.round(Math.abs(ms) / 60_000);
  return `UTC${ms < 0 ? '-' : '+'}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/**
 * The zone with its offset over the local days `from`..`to` (or at `now`), for a report's line:
 * `Asia/Tokyo (UTC+09:00)`; across a daylight-saving change `America/New_York (UTC-05:00,
 * UTC-04:00 from 2026-03-08)`; `UTC` alone.
 */
export function zoneText(zone: Zone, now: number, days?: [string, string]): string {
  if (zone.name === 'UTC') return 'UTC';
  if (!days) return `${zone.name} (${offsetText(zone.offset(now))})`;
  // The offset at each day's noon: changes happen at night, so the day a change happens on gets the new one.
  const noon = (d: string) => zone.startOf(d) + 12 * 3_600_000;
  const changes: string[] = [offsetText(zone.offset(noon(days[0])))];
  let last = changes[0]!;
  for (let d = days[0], n = 0; d <= days[1] && n < 1000; d = addDays(d, 1), n++) {
    const o = offsetText(zone.offset(noon(d)));
    if (o !== last) changes.push(`${(last = o)} from ${d}`);
  }
  // A range of years: the offsets only, not every change.
  const shown = changes.length <= 3 ? changes.join(', ') : [...new Set(changes.map((c) => c.slice(0, 9)))].join(' or ');
  return `${zone.name} (${shown})`;
}

/** The local wall time of an instant to the minute, `2026-03-02 00:33`. */
export function wallTime(zone: Zone, t: number): string {
  return new Date(t + zone.offset(t)).toISOString().slice(0, 16).replace('T', ' ');
}

/**
 * The zone of `--tz`: an IANA name (any case), `UTC`, or `local`; without it (or `local`) the
 * machine's: the command's `TZ` (what Node reads its local zone from), else `Intl`'s default.
 * A `TZ` that is no zone `Intl` knows (a POSIX rule such as `JST-9`) counts UTC days, and says so.
 * @param pick how the user picks a zone, for that warning: `--tz` where the command has it, else `TZ=`
 * @throws UsageError for an unknown `--tz`, naming the fix
 */
export function resolveZone(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  warn: (m: string) => void,
  pick: '--tz ' | 'TZ=' = '--tz ',
): Zone {
  const given = flag?.trim();
  if (given !== undefined && given.toLowerCase() !== 'local') {
    const known = given === '' ? undefined : knownZone(given);
    if (known) return zoneNamed(known);
    const near = suggestZone(given);
    throw new UsageError(`--tz ${flag === '' ? '""' : flag}: not a time zone`).hint(
      `${near ? `did you mean --tz ${near}? ` : ''}give an IANA name such as Asia/Tokyo or America/New_York, UTC, or local (the machine's zone)`,
    );
  }
  const tz = env['TZ'];
  if (tz !== undefined) {
    // `TZ=` empty is UTC for the C library and Node; `:Asia/Tokyo` is the POSIX way to name a file.
    if (tz === '' || tz === ':') return zoneNamed('UTC');
    const known = knownZone(tz.replace(/^:/, ''));
    if (known) return zoneNamed(known);
    warn(`TZ=${tz} is not a time zone svc knows: days are counted in UTC (${pick}Asia/Tokyo or another IANA name picks one)`);
    return zoneNamed('UTC');
  }
  const machine = knownZone(new Intl.DateTimeFormat().resolvedOptions().timeZone ?? '');
  if (machine) return zoneNamed(machine);
  warn(`the machine's time zone is not known: days are counted in UTC (${pick}Asia/Tokyo or another IANA name picks one)`);
  return zoneNamed('UTC');
}

/** The zone meant by a misspelt or partial name: `Tokyo`, `new york`, `Asia/Tokio`. */
function suggestZone(given: string): string | undefined {
  const names = [...Intl.supportedValuesOf('timeZone'), 'UTC'];
  const city = given.replace(/ /g, '_').toLowerCase();
  return (
    names.find((n) => n.slice(n.lastIndexOf('/') + 1).toLowerCase() === city) ?? (given.length >= 4 ? nearMiss(given, names) : undefined)
  );
}
