/** Date formats of the spec's Conventions. */

/** `YYYY-MM-DDThh:mm:ss` (UTC), the format of most payloads. */
export function isoSeconds(ms: number = Date.now()): string {
  return new Date(ms).toISOString().slice(0, 19);
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
