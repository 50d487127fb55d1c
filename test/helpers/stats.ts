/**
 * Figures of the reliability suite (cases run, faults injected, interruptions, rows lost,
 * duplicates) for bench/README.md (Reliability figures): with `SVC_RELIABILITY_STATS=FILE` each test file appends its
 * figures to FILE as NDJSON lines; `node test/reliability/stats.mjs FILE` adds them up.
 */
import fs from 'node:fs';

/** Appends one line of figures (no-op without SVC_RELIABILITY_STATS). */
export function recordStats(source: string, figures: Record<string, number>): void {
  const file = process.env.SVC_RELIABILITY_STATS;
  if (!file) return;
  fs.appendFileSync(file, JSON.stringify({ source, ...figures }) + '\n');
}
