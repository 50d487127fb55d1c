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
