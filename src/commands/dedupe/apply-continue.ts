/**
 * The record a rerun of `svc dedupe apply` continues. An apply killed mid-run, stopped, or ended
 * with clusters failed or in doubt (a step's answer lost) is finished by running it again (its
 * journal skips the steps done); without this, the rerun would be a second run, and `svc runs
 * undo` of it would not take back what the first one did — the duplicates it deleted were never
 * re-created. So the rerun appends to the unfinished run's record: one apply, one record, one
 * undo. That run is found by its journal (named in the record's first line): the latest record of
 * it, not undone, cut short (no end line: killed) or ended unfinished.
 */
import path from 'node:path';
import type { RunRecord } from '../../bulk/run/run-record.js';
import { allRuns } from '../runs/store.js';

/** The journal path as recorded (absolute: the same journal named from another directory is the same). */
export function journalKey(journalPath: string): string {
  return path.resolve(journalPath);
}

/** The record of an apply with this journal left unfinished; undefined when there is none. */
export function unfinishedApplyOf(dir: string, label: string, journalPath: string): RunRecord | undefined {
  const journal = journalKey(journalPath);
  for (const r of allRuns(dir)) {
    if (!('rec' in r)) continue;
    const { meta, end, undoneBy } = r.rec;
    if (meta.label !== label || meta.journal !== journal) continue;
    // Newest first: the latest run of this journal decides (one that finished is not continued).
    const unfinished = !end || end.interrupted === true || (end.counts['failed'] ?? 0) + (end.counts['unknown'] ?? 0) > 0;
    return unfinished && undoneBy.length === 0 ? r.rec : undefined;
  }
  return undefined;
}
