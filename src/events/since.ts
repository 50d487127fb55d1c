/**
 * Times of `--since` and `--until` (`events tail`, `events replay`): a span back from now
 * (`90s`, `15m`, `2h`, `7d`), `today` or `yesterday` (local midnight: the day on your calendar), or a date-time (`2026-11-28T09:00:00Z`, a date alone is its
 * midnight UTC). One rule for every flag that takes a time, so the same text means the same
 * moment everywhere.
 */

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Clock skew tolerated before a time counts as "in the future". */
const FUTURE_SLACK_MS = 5000;

/** What is wrong with a time, for the caller's usage error. */
type TimeProblem = { problem: string };

/**
 * Reads a time flag into epoch milliseconds.
 * @returns the time, or a problem (unparsable, or in the future) in words that name the fix
 */
export function parseTimeFlag(value: string, flag: string, now: number): number | TimeProblem {
  const text = value.trim();
  const span = /^(\d+(?:\.\d+)?)\s*([smhd])$/i.exec(text);
  let at: number;
  const day = /^(today|yesterday)$/i.exec(text);
  if (span) {
    at = now - Number(span[1]) * UNIT_MS[span[2]!.toLowerCase()]!;
  } else if (day) {
    // Local midnight, the start of the day on your calendar (it was refused here, a trial). Not
    // UTC's: at 08:00 in Tokyo, UTC's today starts an hour later, in the future.
    const d = new Date(now);
    d.setHours(0, 0, 0, 0);
    if (day[1]!.toLowerCase() === 'yesterday') d.setDate(d.getDate() - 1);
    at = d.getTime();
  } else if (/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/i.test(text)) {
    // A date-time without a zone is UTC, as the API writes them.
    const zoned = /T|\s/.test(text) && !/(?:Z|[+-]\d{2}:?\d{2})$/i.test(text) ? `${text.replace(' ', 'T')}Z` : text;
    at = Date.parse(zoned);
  } else {
    at = Number.NaN;
  }
  if (!Number.isFinite(at))
    return {
      problem: `${flag} ${value}: expected a span back from now (30s, 15m, 2h, 7d), today, yesterday or a date-time (2026-11-28T09:00:00Z)`,
    };
  if (at > now + FUTURE_SLACK_MS) return { problem: `${flag} ${value}: that is in the future (now is ${isoTime(now)})` };
  return at;
}

/** `YYYY-MM-DDThh:mm:ss.sssZ`, UTC. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
