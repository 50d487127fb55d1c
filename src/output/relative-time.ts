/**
 * An instant as people read its age on a terminal (`events tail`, `runs list`): a file or a pipe
 * keeps the absolute time, which stays true after it is written.
 */

/** `12s ago`, `3m ago`, `2h ago`, `4d ago`; `now` under a second (and for clocks a little ahead). */
export function relativeTime(ms: number, now: number): string {
  const s = Math.floor((now - ms) / 1000);
  if (s < 1) return 'now';
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

/**
 * svc's own instant (`2026-11-30T16:07:03.938Z`, a run's `at`) to the second for people's text,
 * as tables show the API's date-times (`2026-06-17T07:01:45Z`); json, ndjson and csv keep it whole.
 */
export function toSecond(iso: string): string {
  return iso.replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.\d+Z$/, '$1Z');
}
