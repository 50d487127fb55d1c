/**
 * Filters that look right and silently answer wrong are refused or fixed before anything is
 * sent: impossible dates, two filters on one field (the service reads one filter per field, and
 * two equalities never both hold), a bare date on a date-time field, which would match only
 * records stamped exactly at midnight, a value outside an enum's list or in another case, a
 * boolean written as `yes`, and ranges (of numbers, dates or ids) that end before they start.
 */
import { apiDateTime, isoDateFix } from '../../api-time.js';
import type { Filter } from '../../api/filter.js';
import { checkValue, coerceString } from '../../api/validate.js';
import { UsageError } from '../../errors.js';
import { asciiForms } from '../../ascii-forms.js';
import type { AttributeSpec } from '../../registry/index.js';
import { closest } from '../../suggest.js';
import { addDays, type Zone } from '../../time-zone.js';

/**
 * The clock of days in filters: the moment relative dates count back from, and the zone a day is
 * local to (asked for only when a filter names a day: a zone's data costs ~25 ms to load).
 */
export interface FilterDays {
  /** Epoch milliseconds. */
  now: number;
  zone: () => Zone;
}

/** A parsed filter with the expression the user wrote. */
interface GivenFilter {
  given: string;
  filter: Filter;
}

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_SPEC: AttributeSpec = { name: 'date', type: 'date' };

/** Escapes what a list value needs escaped to be written back as one value. */
function escapeValue(v: string): string {
  return v.replace(/[\\,]/g, '\\$&').replace(/\.\./g, '\\..');
}

/** The one filter that says what two filters on the same field were most likely meant to say. */
function combined(name: string, a: Filter, b: Filter): string | undefined {
  if (a.kind !== 'range' && b.kind !== 'range') return `${name}=${[...new Set([...a.values, ...b.values])].map(escapeValue).join(',')}`;
  if (a.kind === 'range' && b.kind === 'range') {
    const from = a.from ?? b.from;
    const to = a.to ?? b.to;
    // Only two half-open ranges that close each other have an obvious union-free reading.
    if ((a.from === undefined) !== (b.from === undefined) && from !== undefined && to !== undefined) return `${name}=${from}..${to}`;
  }
  return undefined;
}

/**
 * Refuses a second filter on a field: the service reads one `filter[field]`, and two equalities
 * on one field would match nothing anyway.
 * @throws UsageError naming both expressions and the single filter to use instead
 */
export function refuseRepeatedFields(filters: GivenFilter[]): void {
  const seen = new Map<string, GivenFilter>();
  for (const g of filters) {
    const name = g.filter.path.join('.');
    const first = seen.get(name);
    if (!first) {
      seen.set(name, g);
      continue;
    }
    const err = new UsageError(
      `two filters on ${name} ("${first.given}", "${g.given}"): a field takes one filter, and both cannot hold at once`,
    );
    const one = combined(name, first.filter, g.filter);
    throw err.hint(
      one
        ? `${first.filter.kind === 'range' ? 'for the range' : 'to match any of the values'} use one filter: --filter '${one}'`
        : `give one --filter for ${name}: a list a,b matches any value, a range a..b everything between`,
    );
  }
}

function problemOf(spec: AttributeSpec, v: string): string | undefined {
  if (v === 'inf' || v === 'neginf') return undefined;
  if (spec.type === 'date-time' && BARE_DATE.test(v)) return checkValue(DATE_SPEC, v);
  return checkValue(spec, v);
}

/**
 * Checks the values of a filter against its field's type before anything is sent: numbers,
 * booleans, enums, dates (see each function) and ranges of ids the right way round. Other types
 * pass unchanged (the service checks them and answers 400, which is not silent).
 * @param spec the field's attribute, when known (none for `id` and `rel.id`)
 * @param given the expression as the user wrote it, for messages
 * @param days the moment relative dates count from, and the zone of days
 * @returns the filter to send: values written the way the API writes them
 * @throws UsageError for an impossible or malformed value, or a reversed range
 */
export function checkFilterValues(spec: AttributeSpec | undefined, given0: Filter, given: string, days: FilterDays): Filter {
  if (!spec) return given0.path.at(-1) === 'id' ? checkIdRange(given0, given) : given0;
  if (spec.type === 'number' || spec.type === 'integer') return checkNumbers(spec, given0, given);
  if (spec.type === 'boolean') return checkBooleans(spec, given0, given);
  // As text, as a filter writes its values (an integer, whose enum holds numbers, was checked as a number above).
  if (spec.enum) return checkEnum(spec.enum.map(String), given0, given);
  if (spec.type === 'date' || spec.type === 'date-time') return checkDates(spec, given0, given, days);
  return given0;
}

/**
 * Checks the values of a filter on a date or date-time field. On a date-time field a day (a bare
 * date, or a relative one) means that whole day in the user's zone, sent as the UTC instants it
 * begins and ends at, as the API's date-times are UTC: in Asia/Tokyo `createdAt=2026-11-07` is
 * sent as `2026-11-06T15:00:00Z..2026-11-07T14:59:59Z` (bounds inclusive), a range's bare bounds
 * the start of its first day and the end of its last. Sent as dates they meant UTC days:
 * `updatedAt=today` in Sydney before 11:00 asked for a UTC day not yet begun (a trial). Relative
 * dates (`today`, `yesterday`, `7d`, `2w`, and `2h`, `30m` on a date-time field) become dates or
 * date-times first (see {@link resolveRelativeDates}); a date field keeps plain dates.
 * @throws UsageError for an impossible or malformed date
 */
function checkDates(spec: AttributeSpec, given0: Filter, given: string, days: FilterDays): Filter {
  const f = resolveRelativeDates(spec, given0, given, days);
  const values = f.kind === 'range' ? [f.from, f.to].filter((v): v is string => v !== undefined) : f.values;
  for (const v of values) {
    const problem = problemOf(spec, v);
    // A date written the German or European way (`30.11.2026`): the error names it as it must be written.
    const fix = problem ? isoDateFix(v) : undefined;
    if (fix) throw new UsageError(`filter "${given}": ${fix}`);
    if (problem) {
      const wanted =
        spec.type === 'date'
          ? 'YYYY-MM-DD, or today, yesterday, 7d (days ago), 2w (weeks ago)'
          : 'YYYY-MM-DD (a whole day) or YYYY-MM-DDThh:mm:ss, or today, yesterday, 7d (days ago), 2w (weeks ago), 2h or 30m (hours or minutes ago)';
      throw new UsageError(`filter "${given}": "${v}" is not a valid ${spec.type} on ${f.path.join('.')}`).hint(`write ${wanted}`);
    }
  }
  // A range whose start is after its end matches nothing: a typo, never meant (days compared
  // first: a bare date as an end covers its whole day).
  if (
    f.kind === 'range' &&
    f.from !== undefined &&
    f.to !== undefined &&
    !['inf', 'neginf'].includes(f.from) &&
    !['inf', 'neginf'].includes(f.to)
  ) {
    const [a, b] = [f.from, f.to];
    const reversed = a.slice(0, 10) > b.slice(0, 10) || (a.slice(0, 10) === b.slice(0, 10) && a.length > 10 && b.length > 10 && a > b);
    if (reversed) throw reversedRange(given, f, a, b);
  }
  if (spec.type === 'date') return f;
  if (f.kind === 'list' && f.values.some((v) => BARE_DATE.test(v))) {
    throw new UsageError(`filter "${given}": a date on ${f.path.join('.')} means a whole day, which a list of values cannot say`).hint(
      `filter one day (${f.path.join('.')}=${f.values.find((v) => BARE_DATE.test(v))}), or days in a row with a range a..b`,
    );
  }
  const day = f.kind === 'eq' && BARE_DATE.test(f.values[0]!) ? f.values[0]! : undefined;
  const range = day === undefined ? f : { ...f, kind: 'range' as const, values: [], from: day, to: day };
  return range.kind === 'range' ? localDays(range, days.zone) : range;
}

/**
 * A range's bare dates as the instants of the local days they name: a start as its day's first
 * second, an end as its day's last (the API's bounds are inclusive, its times whole seconds).
 */
function localDays(f: Filter, zoneOf: () => Zone): Filter {
  const start = (d: string | undefined) => (d !== undefined && BARE_DATE.test(d) ? apiDateTime(zoneOf().startOf(d)) : d);
  const end = (d: string | undefined) => (d !== undefined && BARE_DATE.test(d) ? apiDateTime(zoneOf().startOf(addDays(d, 1)) - 1000) : d);
  return { ...f, from: start(f.from), to: end(f.to) };
}

/** A range that ends before it starts. */
function reversedRange(given: string, f: Filter, from: string, to: string): UsageError {
  const name = f.path.join('.');
  return new UsageError(`filter "${given}": the range starts (${from}) after it ends (${to}), so it matches nothing`).hint(
    `write the earlier bound first: --filter '${name}=${to}..${from}'`,
  );
}

/**
 * Numbers checked here (the service would refuse them with exit 1), and a range the right way
 * round. A value is sent as it was checked: the check reads full-width digits as theirs
 * (coerceString), and `１` passed it and was sent as typed, which the service refused.
 */
function checkNumbers(spec: AttributeSpec, given0: Filter, given: string): Filter {
  const f = mapValues(given0, asciiForms);
  const values = f.kind === 'range' ? [f.from, f.to].filter((v): v is string => v !== undefined) : f.values;
  for (const v of values) {
    if (v === 'inf' || v === 'neginf') continue;
    const c = coerceString(spec, v);
    if ('problem' in c)
      throw new UsageError(
        `filter "${given}": "${v}" is not ${spec.type === 'integer' ? 'an integer' : 'a number'} (${f.path.join('.')} is ${spec.type === 'integer' ? 'an integer' : 'a number'})`,
      );
  }
  if (f.kind === 'range' && f.from !== undefined && f.to !== undefined && Number(f.from) > Number(f.to))
    throw reversedRange(given, f, f.from, f.to);
  return f;
}

/**
 * A range of ids (`id=9..2`, `account.id=4..2`) the right way round, as for numbers. Only whole
 * numbers are compared: what else an id may be is the service's business.
 */
function checkIdRange(f: Filter, given: string): Filter {
  const whole = (v: string | undefined): v is string => v !== undefined && /^\d+$/.test(v);
  if (f.kind === 'range' && whole(f.from) && whole(f.to) && BigInt(f.from) > BigInt(f.to)) throw reversedRange(given, f, f.from, f.to);
  return f;
}

/** The filter with each value, or each bound of a range, passed through `fn`. */
function mapValues(f: Filter, fn: (v: string) => string): Filter {
  if (f.kind !== 'range') return { ...f, values: f.values.map(fn) };
  return { ...f, from: f.from === undefined ? undefined : fn(f.from), to: f.to === undefined ? undefined : fn(f.to) };
}

/**
 * A boolean's values as the API writes them: what `--attr` reads as true or false (yes/no, 1/0,
 * any case) is sent as `true`/`false`; anything else is refused (the service answers 422, or
 * another might match nothing).
 */
function checkBooleans(spec: AttributeSpec, f: Filter, given: string): Filter {
  const name = f.path.join('.');
  const one = (v: string): string => {
    if (v === 'inf' || v === 'neginf') return v;
    const c = coerceString(spec, v);
    if ('problem' in c)
      throw new UsageError(`filter "${given}": "${v}" is not true or false (${name} is a boolean)`).hint(
        `write ${name}=true or ${name}=false (yes/no and 1/0 are read as those)`,
      );
    return String(c.value);
  };
  return mapValues(f, one);
}

/**
 * A field with a closed list of values (the registry's enum, which `--attr` checks): a value
 * written in another case is sent as the list writes it (`state=Active` matched nothing while
 * looking right, a trial), any other value of an equality or list is refused with the values.
 * Range bounds are only set in the list's case: a range compares text, any bound may be meant.
 */
function checkEnum(allowed: readonly string[], f: Filter, given: string): Filter {
  const name = f.path.join('.');
  const fold = (v: string) => (allowed.includes(v) ? v : (allowed.find((a) => a.toLowerCase() === v.toLowerCase()) ?? v));
  if (f.kind === 'range') return mapValues(f, fold);
  const values = f.values.map(fold);
  const bad = values.find((v) => !allowed.includes(v));
  if (bad === undefined) return { ...f, values };
  const err = new UsageError(`filter "${given}": "${bad}" is not a value of ${name}, which is one of: ${allowed.join(', ')}`);
  const near = closest(bad, allowed);
  if (near === undefined) throw err;
  const fixed = [...new Set(values.map((v) => (v === bad ? near : v)))].map(escapeValue).join(',');
  throw err.hint(`did you mean ${near}? --filter '${name}=${fixed}'`);
}

const RELATIVE = /^(?:(today)|(yesterday)|(\d{1,5})([dw]))$/i;

/**
 * A relative date as the calendar date it names, counted in the user's zone from `now`:
 * `today`, `yesterday`, `7d` (7 days ago), `2w` (14 days ago). Undefined for anything else.
 */
export function relativeDate(value: string, days: FilterDays): string | undefined {
  const m = RELATIVE.exec(value.trim());
  if (!m) return undefined;
  const back = m[1] ? 0 : m[2] ? 1 : Number(m[3]) * (m[4]!.toLowerCase() === 'w' ? 7 : 1);
  // Calendar arithmetic (not 24-hour steps), so that a daylight-saving change does not shift the day.
  return addDays(days.zone().date(days.now), -back);
}

const RELATIVE_TIME = /^(\d{1,5})([hm])$/i;

/**
 * A span of hours or minutes back from `now` (`2h`, `30m`, as `events tail --since` reads them)
 * as the UTC date-time it names, written as the API writes date-times. Undefined for anything else.
 */
function relativeTime(value: string, now: number): string | undefined {
  const m = RELATIVE_TIME.exec(value.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * (m[2]!.toLowerCase() === 'h' ? 3_600_000 : 60_000);
  return new Date(now - ms).toISOString().slice(0, 19);
}

/**
 * A date filter with its relative values (`updatedAt=7d..`, `createdAt=today`) resolved to
 * dates before anything is sent: the service knows only absolute ones. On a date-time field the
 * resulting bare date then means its whole local day, as a typed date does; hours and minutes
 * (`updatedAt=2h..`) are resolved to the date-time itself there, and only as a range bound: an
 * equality with one moment would match only records stamped in that very second.
 * @throws UsageError for hours or minutes as an equality or list value
 */
function resolveRelativeDates(spec: AttributeSpec, f: Filter, given: string, days: FilterDays): Filter {
  const time = (v: string) => (spec.type === 'date-time' ? relativeTime(v, days.now) : undefined);
  const one = (v: string | undefined) => (v === undefined ? v : (relativeDate(v, days) ?? time(v) ?? v));
  if (f.kind === 'range') return { ...f, from: one(f.from), to: one(f.to) };
  const moment = f.values.find((v) => time(v) !== undefined);
  if (moment !== undefined) {
    const name = f.path.join('.');
    throw new UsageError(`filter "${given}": ${moment} ago is one moment, which only a record stamped in that very second matches`).hint(
      `for everything since then write a range: --filter '${name}=${moment}..'`,
    );
  }
  return { ...f, values: f.values.map((v) => one(v)!) };
}
