/**
 * Times of `--since` and `--until` (`events tail`, `events replay`): a span back from now
 * (`90s`, `15m`, `2h`, `7d`), a day — `today`, `yesterday` or a date (`2026-11-28`) — or a
 * date-time (`2026-11-28T09:00:00Z`; zone-less is UTC, as the API writes them). A day is a day
 * of the machine's zone (`TZ`, src/time-zone.ts), as `--filter createdAt=2026-11-28` reads it:
 * `--since` its first instant, `--until` its last. A bare date read as a UTC day started at
 * 11:00 in Sydney, and today's date there was refused as "in the future" (a trial). One rule
 * for every flag that takes a time, so the same text means the same moment everywhere.
 */
import { addDays, type Zone } from '../time-zone.js';
import { daysInMonth, isoDateFix } from '../api-time.js';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Clock skew tolerated before a time counts as "in the future". */
const FUTURE_SLACK_MS = 5000;

/** What is wrong with a time, for the caller's usage error. */
type TimeProblem = { problem: string };

/** How a time flag reads a day: where it starts (`--since`) or ends (`--until`), in which zone. */
interface TimeFlagDays {
  /** The zone days are local to, asked for only when the flag names a day (its data costs ~25 ms). */
  zone: () => Zone;
  /** A day is its last instant (`--until`), else its first. */
  end?: boolean;
}

/** The local date a day flag names, or undefined when the text names no day. */
function dayOf(text: string, now: number, zone: () => Zone): string | undefined {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return Number.isFinite(Date.parse(`${text}T00:00:00Z`)) ? text : '';
  const day = /^(today|yesterday)$/i.exec(text);
  if (!day) return undefined;
  const today = zone().date(now);
  return day[1]!.toLowerCase() === 'yesterday' ? addDays(today, -1) : today;
}

/**
 * Reads a time flag into epoch milliseconds. The end of a day not over yet is now (what is
 * later has not happened): `--until today` is not in the future.
 * @returns the time, or a problem (unparsable, or in the future) in words that name the fix
 */
export function parseTimeFlag(value: string, flag: string, now: number, days: TimeFlagDays): number | TimeProblem {
  const text = value.trim();
  const span = /^(\d+(?:\.\d+)?)\s*([smhd])$/i.exec(text);
  const day = dayOf(text, now, days.zone);
  let at: number;
  if (span) {
    at = now - Number(span[1]) * UNIT_MS[span[2]!.toLowerCase()]!;
  } else if (day !== undefined) {
    // An impossible date (2026-13-45) is '' and no time.
    const zone = day === '' ? undefined : days.zone();
    at = !zone ? Number.NaN : days.end ? Math.min(now, zone.startOf(addDays(day, 1)) - 1) : zone.startOf(day);
  } else if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/i.test(text)) {
    // A date-time without a zone is UTC, as the API writes them.
    at = Date.parse(/(?:Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text.replace(' ', 'T')}Z`);
  } else {
    at = Number.NaN;
  }
  // Date.parse rolls what the calendar lacks into the next day or month (2026-02-30 is 2 March).
  if (Number.isFinite(at) && !onTheCalendar(text)) return { problem: `${flag} ${value}: no such date or time` };
  // `30.11.2026` named as it must be written (api-time.ts): the list of forms did not say how.
  const fix = Number.isFinite(at) ? undefined : isoDateFix(text);
  if (fix) return { problem: `${flag} ${value}: ${fix}` };
  if (!Number.isFinite(at))
    return {
      problem: `${flag} ${value}: expected a span back from now (30s, 15m, 2h, 7d), today, yesterday, a date (2026-11-28, a day of your zone) or a date-time (2026-11-28T09:00:00Z)`,
    };
  if (at > now + FUTURE_SLACK_MS) return { problem: `${flag} ${value}: that is in the future (now is ${isoTime(now)})` };
  return at;
}

/** False when a text's leading date has no such day in its month, or its hour is past 23. */
function onTheCalendar(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}))?/i.exec(text);
  if (!m) return true;
  const [, year, month, day, hour] = m.map(Number) as [number, number, number, number, number];
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) && !(hour > 23);
}

/** `YYYY-MM-DDThh:mm:ss.sssZ`, UTC. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
