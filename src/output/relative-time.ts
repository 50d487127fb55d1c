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
