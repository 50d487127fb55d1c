/**
 * The words and numbers a run's rows are counted in, one vocabulary for every line that counts
 * them: the summary a run ends with (commands/bulk-run/session.ts `finishRun`), `svc runs list`
 * and `svc runs show`, and an undo's plan. A trial read three pairs that disagreed for one run:
 * `dedupe apply` said "15 updated" where `runs list` said "updated 49, deleted 15", an enroll rerun
 * "141 created, 56 skipped" where the list said "created 174, skipped 23", an undo's plan "174
 * finished" where the undo said "174 updated".
 */
import type { RowLine, RunRecord } from './run-record.js';

/** The order counts are said in: what was written first, then what was not. */
const ORDER = [
  'merged',
  'created',
  're-created',
  'updated',
  'set back',
  'finished',
  'paused',
  'resumed',
  'deleted',
  'skipped',
  'failed',
  'unknown',
  'cut short',
];

/** Statuses of a row that wrote. */
const WROTE = new Set(['created', 'updated', 'deleted']);

/** True for the status of a row that wrote. */
export function wroteStatus(status: string): boolean {
  return WROTE.has(status);
}

/** Words of a row that did not write. */
const UNWRITTEN = new Set(['skipped', 'failed', 'unknown', 'cut short']);

/**
 * The word a row's outcome is counted as: its status, but for a row that wrote, what the write
 * was — an enrolment finished (`finished`, not `updated`), an action's own word, and in an undo
 * what its plan calls it (`set back`, `re-created`), so that the plan, the undo's summary and `svc
 * runs list` say the same.
 */
function outcomeWord(row: Pick<RowLine, 'op' | 'action'>, status: string, undo: boolean): string {
  if (!WROTE.has(status)) return status;
  if (row.op === 'finish' || (row.op === 'action' && row.action === 'finish')) return 'finished';
  if (row.op === 'action' && row.action === 'pause') return 'paused';
  if (row.op === 'action' && row.action === 'resume') return 'resumed';
  if (undo && row.op === 'update') return 'set back';
  if (undo && row.op === 'create') return 're-created';
  return status;
}

/** Adds one to `word` of `counts`. */
function add(counts: Record<string, number>, word: string, n = 1): void {
  counts[word] = (counts[word] ?? 0) + n;
}

/**
 * A run's rows by outcome, in all (every part of a run continued by its reruns): `{ created: 174,
 * skipped: 23, failed: 3 }`; a row without an outcome is `cut short`.
 */
export function recordCounts(rec: RunRecord): Record<string, number> {
  const out: Record<string, number> = {};
  const undo = rec.meta.undoes !== undefined;
  for (const { row, done } of rec.rows.values()) add(out, done ? outcomeWord(row, done.status, undo) : 'cut short');
  // Rows refused before anything was sent (invalid in the file) are not in the record, only in
  // its end's counts: a run that exited 5 read "created 16, done" (a trial).
  const unrecorded = (rec.end?.counts['failed'] ?? 0) - (out['failed'] ?? 0);
  if (unrecorded > 0) add(out, 'failed', unrecorded);
  return out;
}

/**
 * A run's units by outcome when its rows are not the record's rows (a dedupe cluster, whose steps
 * are), in all its parts: `{ merged: 4, failed: 1 }` with `done` the word of one that wrote.
 */
export function unitCounts(rec: RunRecord, done: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const status of rec.units.values()) add(out, WROTE.has(status) ? done : status);
  return out;
}

/**
 * ` (of 200)` for a run that did not finish, of how many rows its input had (a kill's record
 * holds only the rows it reached: "95 created, 5 cut short" of 200 read as the whole run); empty
 * otherwise.
 */
export function ofTotal(rec: RunRecord, n: (x: number) => string = String): string {
  const unfinished = !rec.end || rec.end.interrupted === true;
  return unfinished && rec.meta.rows !== undefined ? ` (of ${n(rec.meta.rows)})` : '';
}

/** A run's rows by outcome in all its parts, as `svc runs list` and a rerun's summary say them: `95 created, 5 cut short (of 200)`. */
export function runRowsText(rec: RunRecord, n: (x: number) => string = String): string {
  return `${countsText(recordCounts(rec), n)}${ofTotal(rec, n)}`;
}

/** The rows this part of a run wrote (the record's `done` lines of this process), by word. */
export function partCounts(rows: Iterable<{ row: Pick<RowLine, 'op' | 'action'>; status: string }>, undo: boolean): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { row, status } of rows) add(out, outcomeWord(row, status, undo));
  return out;
}

/** How many of `counts` wrote (created, updated, finished… but not skipped, failed, unknown, cut short). */
export function wroteCount(counts: Record<string, number>): number {
  return Object.entries(counts).reduce((n, [w, c]) => n + (UNWRITTEN.has(w) ? 0 : c), 0);
}

/** `174 created, 23 skipped, 3 failed` (`no rows` for none), with thousands separators from `n`. */
export function countsText(counts: Record<string, number>, n: (x: number) => string = String): string {
  const words = Object.keys(counts).filter((w) => counts[w]! > 0);
  const rank = (w: string) => (ORDER.includes(w) ? ORDER.indexOf(w) : ORDER.length);
  return (
    words
      .sort((a, b) => rank(a) - rank(b))
      .map((w) => `${n(counts[w]!)} ${w}`)
      .join(', ') || 'no rows'
  );
}
