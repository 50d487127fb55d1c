/**
 * The one-line view of an event for people (`events tail` on a terminal, or `-o table`):
 * `11:18:07  12s ago  prospect_updated  prospect 42  user 1  #812`. Relative times only on a
 * terminal: a file keeps the absolute time alone, which stays true after it is written.
 */
import type { ResourceObject } from '../../api/jsonapi.js';
import { relativeTime } from '../../output/relative-time.js';
import { terminalSafe } from '../../output/terminal-text.js';

function relId(r: ResourceObject, name: string): string | undefined {
  const rel = r.relationships?.[name];
  const data = rel && 'data' in rel ? rel.data : undefined;
  return data && !Array.isArray(data) ? String(data.id) : undefined;
}

/** One event as one line (no newline). */
export function eventLine(r: ResourceObject, t: number, opts: { now: number; relative: boolean }): string {
  const attrs = r.attributes ?? {};
  const p = (typeof attrs['payload'] === 'object' && attrs['payload'] !== null ? attrs['payload'] : {}) as Record<string, unknown>;
  const iso = new Date(t).toISOString();
  // Today's events by their time alone; older ones with the date.
  const when =
    new Date(opts.now).toISOString().slice(0, 10) === iso.slice(0, 10) ? iso.slice(11, 19) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  const parts = [when];
  if (opts.relative) parts.push(relativeTime(t, opts.now).padEnd(7));
  parts.push(String(attrs['name'] ?? '(no name)').padEnd(22));
  if (p['type'] !== undefined) parts.push(`${String(p['type'])} ${String(p['id'] ?? '?')}`);
  const prospect = relId(r, 'prospect');
  if (prospect !== undefined && p['type'] !== 'prospect') parts.push(`prospect ${prospect}`);
  const user = relId(r, 'user');
  if (user !== undefined) parts.push(`user ${user}`);
  parts.push(`#${String(r.id)}`);
  return terminalSafe(parts.join('  '));
}
