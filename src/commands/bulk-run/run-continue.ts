/**
 * The record a rerun of a bulk run continues. A run killed mid-way, stopped (Ctrl-C, the
 * breaker), or ended with rows failed or in doubt (an answer lost) is finished by running it
 * again: its journal skips the rows done. Without this the rerun would be a second run, and `svc
 * runs undo` of "the last run" would leave the first part in place (an update's first rows, a
 * merge's deleted duplicates). So the rerun appends to the unfinished run's record: one run, one
 * record, one undo. That run is found by its journal (named in the record's first line) and its
 * org and command: the latest record of them decides — continued when it is not undone and cut
 * short (no end line: killed) or ended unfinished; a run that finished is never continued. A
 * journal that is gone or empty (the user started afresh) continues nothing.
 *
 * A row the continued record holds keeps its first before-image (see run-recorder.ts): a row in
 * doubt (sent, answer lost) is read again by the rerun, and its value now is what that first
 * attempt wrote, not what the undo must set back.
 */
import path from 'node:path';
import { isUndone, listRunIds, peekRunMeta, readRunRecord, type RunMeta, type RunRecord } from '../../bulk/run/run-record.js';
import { sameOwner, type SideOwner } from '../../bulk/run/side-owner.js';
import { RunRecordError } from '../../errors.js';
import { grouped } from '../../grouped.js';

/** The journal path as recorded (absolute: the same journal named from another directory is the same). */
export function journalKey(journalPath: string): string {
  return path.resolve(journalPath);
}

/** True when a record's run did not finish: killed, stopped, or rows failed or in doubt. */
function unfinished(rec: RunRecord): boolean {
  const { end } = rec;
  return !end || end.interrupted === true || (end.counts['failed'] ?? 0) + (end.counts['unknown'] ?? 0) > 0;
}

/** The first lines of the runs of `label` in `owner`'s org with this journal (and shard), oldest first. */
function journalRuns(dir: string, label: string, journalPath: string, owner?: SideOwner, shard?: string): RunMeta[] {
  const journal = journalKey(journalPath);
  // The first lines pick the runs (the records of other commands and journals are not read whole).
  const metas: RunMeta[] = [];
  for (const id of listRunIds(dir)) {
    const meta = peekRunMeta(dir, id);
    if (!meta || meta.id !== id || meta.label !== label || meta.journal !== journal || meta.shard !== shard) continue;
    if (owner && !sameOwner(meta.owner, { ...owner, command: label })) continue;
    metas.push(meta);
  }
  // By the time each started (milliseconds): ids order runs of the same second at random.
  return metas.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** A run's record read whole; undefined when it fails its check (no one's to continue: svc runs list says so). */
function readChecked(dir: string, meta: RunMeta | undefined): RunRecord | undefined {
  if (!meta) return undefined;
  try {
    return readRunRecord(dir, meta.id);
  } catch (err) {
    if (err instanceof RunRecordError) return undefined;
    throw err;
  }
}

/** The latest record of the run of `label` in `owner`'s org with this journal (and shard); undefined when there is none. */
function latestRunOf(dir: string, label: string, journalPath: string, owner?: SideOwner, shard?: string): RunRecord | undefined {
  return readChecked(dir, journalRuns(dir, label, journalPath, owner, shard).at(-1));
}

/** The record of the run of `label` in `owner`'s org with this journal (and shard) left unfinished; undefined when there is none. */
export function unfinishedRunOf(dir: string, label: string, journalPath: string, owner?: SideOwner, shard?: string): RunRecord | undefined {
  const rec = latestRunOf(dir, label, journalPath, owner, shard);
  // The latest run of this journal decides: one that finished, or was undone, is not continued.
  return rec && unfinished(rec) && rec.undoneBy.length === 0 ? rec : undefined;
}

/**
 * The latest run of this journal when `svc runs undo` took it back (and no undo of the undo
 * redid it): its rows are in the journal as done, so a rerun would skip every one of them and
 * write nothing, while the org no longer holds what they wrote. With it, the earlier runs of the
 * journal that still stand: starting afresh would write their rows a second time.
 */
export function undoneRunOf(
  dir: string,
  label: string,
  journalPath: string,
  owner?: SideOwner,
  shard?: string,
): { undone: RunRecord; by: string; partly?: number; standing: RunRecord[] } | undefined {
  const metas = journalRuns(dir, label, journalPath, owner, shard);
  const last = readChecked(dir, metas.at(-1));
  if (!last) return undefined;
  let by = last.undoneBy.at(-1);
  let partly: number | undefined;
  if (!isUndone(dir, last)) {
    // A partial undo (conflicts left) marks no run undone, but the rows it set back are still
    // done in the journal: a rerun skipped them, and they stayed undone without a word (a trial).
    const part = takenBackInPart(dir, last);
    if (!part) return undefined;
    ({ by, rows: partly } = part);
  }
  // Only then the earlier runs are read whole.
  const standing = metas
    .slice(0, -1)
    .map((m) => readChecked(dir, m))
    .filter((r): r is RunRecord => r !== undefined && !isUndone(dir, r));
  return { undone: last, by: by!, ...(partly !== undefined ? { partly } : {}), standing };
}

/** Outcomes of an undo's rows that took nothing back. */
const NOT_TAKEN_BACK = new Set(['skipped', 'failed', 'unknown']);

/** The undo (not itself undone) that took back some of `rec`'s rows, and how many; undefined when none did. */
function takenBackInPart(dir: string, rec: RunRecord): { by: string; rows: number } | undefined {
  for (const id of listRunIds(dir)) {
    const meta = peekRunMeta(dir, id);
    if (!meta || meta.id !== id || meta.undoes !== rec.meta.id) continue;
    const undo = readChecked(dir, meta);
    if (!undo || isUndone(dir, undo)) continue;
    let rows = 0;
    for (const r of undo.rows.values()) if (r.done && !NOT_TAKEN_BACK.has(r.done.status)) rows++;
    if (rows > 0) return { by: id, rows };
  }
  return undefined;
}

/** The line a continuing rerun says: `continuing run … (killed after 120 of 300 rows of x.csv)`. */
export function continuingLine(rec: RunRecord, total: number, rows: string, units = false): string {
  const done = new Set<number | string>();
  let failed = 0;
  const count = (at: number | string, status: string) => {
    done.add(at);
    if (status === 'failed' || status === 'unknown') failed++;
  };
  // Rows that are not the record's rows (a dedupe cluster) by their own outcome: a cluster
  // stopped between two steps has steps done, and read as done ("stopped after 5 of 5 clusters"
  // after 4 merged, a review).
  if (units) for (const [key, status] of rec.units) count(key, status);
  else for (const r of rec.rows.values()) if (r.done) count(r.row.row, r.done.status);
  const n = grouped;
  // A run that went through every row but failed some did not end "after 5 of 6 rows" (it read
  // as cut short while `runs list` said done, a trial): what it left is said instead.
  const how =
    rec.end && !rec.end.interrupted
      ? `it ended with ${n(failed + Math.max(total - done.size, 0))} of ${n(total)} ${rows} failed or not reached`
      : `${rec.end ? 'stopped' : 'killed'} after ${n(done.size)} of ${n(total)} ${rows}`;
  return `continuing run ${rec.meta.id} (${how}): its record holds the whole run, one undo takes it back`;
}
