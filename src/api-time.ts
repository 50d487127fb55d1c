/**
 * The instant of a date-time as the API writes it. Most payloads carry `YYYY-MM-DDThh:mm:ss`
 * with no zone, meaning UTC (the spec's Conventions); `Date.parse` reads a zone-less date-time
 * as local time, which on a machine outside UTC moved every such time by hours. One reading for
 * every module that compares or orders the API's times.
 */

/** An ISO date-time without a zone (`T` or SQL's space between date and time). */
const ZONELESS = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;

/**
 * Epoch milliseconds of an API date-time (zone-less is UTC), a date, or any other form
 * `Date.parse` reads with its zone (an HTTP date's GMT); NaN when there is none.
 */
export function apiTime(value: unknown): number {
  if (typeof value !== 'string' || value === '') return Number.NaN;
  const m = ZONELESS.exec(value);
  return Date.parse(m ? `${m[1]}T${m[2]}Z` : value);
}

/**
 * An instant as a date-time the API's filters take: `YYYY-MM-DDThh:mm:ssZ`, whole seconds (the
 * API's times have no fractions), UTC said with `Z`.
 */
export function apiDateTime(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

/**
 * An API date-time as people read it in a message: zone-less (UTC) gets its `Z`, so that a reader
 * in Tokyo does not take `11:27:48` for local time, nine hours off (a trial); other text as it is.
 */
export function utcMarked(value: string): string {
  const m = ZONELESS.exec(value);
  return m ? `${m[1]}T${m[2]}Z` : value;
}

/** A date written day first, as European spreadsheets and people do (`30.11.2026`, `30/11/2026`, `30-11-2026`), a time after it or not. */
const DAY_FIRST = /^(\d{1,2})([./-])(\d{1,2})\2(\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * The fix of a date svc refuses because it is not ISO, for the one line of its refusal, wherever a
 * date is read from a user (filters, `--since`, `--attr`, `--input` cells, report ranges): svc
 * never guesses a date's order, but a German or European one it can read without doubt is named
 * as it must be written: `write dates as YYYY-MM-DD: 30.11.2026 → 2026-11-30`. Without doubt is
 * the dotted German form (always day first), or a day above 12; `05/06/2026` is either of two
 * days, so only the form is named. Undefined for text that is no such date (the caller's own
 * message stands).
 * @param dateTime the field takes a date-time: the fix has the time, `Thh:mm:ss` when none was given
 */
export function isoDateFix(text: string, dateTime = false): string | undefined {
  const m = DAY_FIRST.exec(text.trim());
  if (!m) return undefined;
  const [, d, sep, mo, y, h, mi, sec] = m;
  const form = dateTime ? 'date-times as YYYY-MM-DDThh:mm:ss' : h === undefined ? 'dates as YYYY-MM-DD' : 'dates as YYYY-MM-DDThh:mm:ss';
  const [day, month] = [Number(d), Number(mo)];
  const iso = `${y}-${mo!.padStart(2, '0')}-${d!.padStart(2, '0')}`;
  const real =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(Number(y), month) &&
    (h === undefined || (Number(h) < 24 && Number(mi) < 60 && Number(sec ?? 0) < 60));
  if (!real) return `write ${form}`;
  if (sep !== '.' && day <= 12) return `write ${form} (${text.trim()}: whether the day or the month comes first cannot be told)`;
  const time = h === undefined ? (dateTime ? 'Thh:mm:ss' : '') : `T${h.padStart(2, '0')}:${mi}:${sec ?? '00'}`;
  return `write ${form}: ${text.trim()} → ${iso}${time}`;
}

/**
 * The days of a month (1–12) of a year, from the two alone: a Date made of `2026-11-32` is
 * invalid, and its toISOString threw past every caller's error handling (exit 1); `Date.UTC`
 * reads years 0–99 as 1900–1999.
 */
export function daysInMonth(year: number, month: number): number {
  const last = new Date(0);
  last.setUTCFullYear(year, month, 0);
  return last.getUTCDate();
}
