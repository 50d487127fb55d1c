/**
 * The instant of a date-time as the API writes it. Most payloads carry `YYYY-MM-DDThh:mm:ss`
 * with no zone, meaning UTC (the spec's Conventions); `Date.parse` reads a zone-less date-time
 * as local time, which on a machine outside UTC moved every such time by hours. One reading for
 * every module that compares or orders the API's times.
 */

/** Epoch milliseconds of an API date-time or date (zone-less is UTC); NaN when there is none. */
export function apiTime(value: unknown): number {
  if (typeof value !== 'string' || value === '') return Number.NaN;
  // `2026-01-05 10:00:00` (SQL's spelling) is the same date-time.
  const v = /^\d{4}-\d{2}-\d{2} \d/.test(value) ? value.replace(' ', 'T') : value;
  // A date alone is UTC to Date.parse already; only a zone-less date-time needs the Z.
  return Date.parse(!v.includes('T') || /(?:Z|[+-]\d{2}:?\d{2})$/i.test(v) ? v : `${v}Z`);
}
