/** Date formats of the spec's Conventions. */

/** First instant of the year 10000: past it `toISOString` writes six-digit years. */
const YEAR_10000 = 253_402_300_800_000;

/** `YYYY-MM-DDThh:mm:ss` (UTC), the format of most payloads. */
export function isoSeconds(ms: number = Date.now()): string {
  // Instants before 1970 or past 9999, NaN (a RangeError): as `Date` writes them.
  if (!(ms >= 0 && ms < YEAR_10000)) return new Date(ms).toISOString().slice(0, 19);
  // Performance machinery (src/README.md, Build): the same text by arithmetic. Seeding a sandbox
  // dates tens of thousands of records, and a Date and its ISO string per call were a quarter of
  // its time. The calendar is Hinnant's days-to-civil
  // (http://howardhinnant.github.io/date_algorithms.html), for days since 1970-01-01; `Date`
  // truncates a fractional instant, so does this.
  const t = Math.trunc(ms);
  const secs = (t - (t % 1000)) / 1000;
  const sod = secs % 86_400;
  const z = (secs - sod) / 86_400 + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const h = Math.floor(sod / 3600);
  const m = Math.floor((sod % 3600) / 60);
  const s = sod % 60;
  return `${year < 1000 ? String(year).padStart(4, '0') : year}-${two(month)}-${two(day)}T${two(h)}:${two(m)}:${two(s)}`;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Parses an incoming date-time and returns it in the payload format, or undefined when invalid. */
export function normalizeDateTime(v: string): string | undefined {
  if (!DATE_TIME.test(v)) return undefined;
  // A value without zone is UTC, as the service writes it.
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(v);
  const ms = Date.parse(hasZone ? v : v + 'Z');
  return Number.isNaN(ms) ? undefined : isoSeconds(ms);
}

/** True for a valid `YYYY-MM-DD`. */
export function isDate(v: string): boolean {
  return DATE.test(v) && !Number.isNaN(Date.parse(v + 'T00:00:00Z'));
}
