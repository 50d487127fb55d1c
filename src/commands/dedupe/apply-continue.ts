/**
 * The record a rerun of `svc dedupe apply` continues. An apply killed mid-run is finished by
 * running it again (its journal skips the steps done); without this, the rerun would be a second
 * run, and `svc runs undo` of it would not take back what the killed one did — the duplicates it
 * deleted were never re-created. So the rerun appends to the killed run's record: one apply, one
 * record, one undo. The killed run is found by its journal (named in the record's first line), its
 * record cut short (no end line: killed) and not undone.
 */
import path from 'node:path';
import type { RunRecord } from '../../bulk/run/run-record.js';
import { allRuns } from '../runs/store.js';

/** The journal path as recorded (absolute: the same journal named from another directory is the same). */
export function journalKey(journalPath: string): string {
  return path.resolve(journalPath);
}

/** The record of an apply with this journal that was killed before its end; undefined when there is none. */
export function killedApplyOf(dir: string, label: string, journalPath: string): RunRecord | undefined {
  const journal = journalKey(journalPath);
  for (const r of allRuns(dir)) {
    if (!('rec' in r)) continue;
    const { meta, end, undoneBy } = r.rec;
    if (meta.label !== label || meta.journal !== journal) continue;
    // Newest first: the latest run of this journal decides (one that ended is not continued).
    return end || undoneBy.length ? undefined : r.rec;
  }
  return undefined;
}
