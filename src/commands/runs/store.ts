/**
 * The recorded runs of `svc runs` as the commands see them: a run read and checked by id, whether
 * it stands undone (an undo run took it back, and that undo was not itself undone: a redo), its
 * rows counted by outcome, and the undo run of it left unfinished (resumed, not started anew).
 */
import { ExitCode, RunRecordError, UsageError } from '../../errors.js';
import { isRunId, listRunIds, peekRunMeta, readRunRecord, unknownRun, type RunRecord } from '../../bulk/run/run-record.js';

/** Reads a run by the id the user gave. */
export function loadRun(dir: string, id: string): RunRecord {
  if (!isRunId(id)) {
    if (/^\d{8}-\d{6}-/.test(id) || id.length > 0) throw unknownRun(id);
    throw new UsageError('give a run id (svc runs list shows them)');
  }
  return readRunRecord(dir, id);
}

/**
 * True when an undo took the run back and was not undone itself. `read` reads and checks an undo's
 * record: `svc runs list` passes the records it has already read and checked, so that each is read
 * once.
 */
export function isUndone(
  dir: string,
  rec: RunRecord,
  read: (id: string) => RunRecord = (id) => readRunRecord(dir, id),
  depth = 0,
): boolean {
  if (depth > 50) return true;
  for (const by of rec.undoneBy) {
    let u: RunRecord;
    try {
      u = read(by);
    } catch {
      // An undo whose record is gone or changed: the run counts as undone (it was).
      return true;
    }
    if (!isUndone(dir, u, read, depth + 1)) return true;
  }
  return false;
}

/** Rows by outcome: `{ updated: 10, failed: 1, "cut short": 2 }`. */
export function rowCounts(rec: RunRecord): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { done } of rec.rows.values()) {
    const k = done ? done.status : 'cut short';
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** Every readable run, newest first; a record that fails its check is listed as such. */
export function allRuns(dir: string): ({ id: string; rec: RunRecord } | { id: string; error: RunRecordError })[] {
  return listRunIds(dir).map((id) => {
    try {
      return { id, rec: readRunRecord(dir, id) };
    } catch (err) {
      if (err instanceof RunRecordError) return { id, error: err };
      throw err;
    }
  });
}

/**
 * The undo of `rec` left unfinished — killed, stopped, or ended with conflicts or failures (it
 * did not mark the run undone): the next undo continues its record and its journal, so that the
 * rows it did are not done again and one run holds the whole undo.
 */
export function openUndoOf(dir: string, rec: RunRecord): RunRecord | undefined {
  for (const id of listRunIds(dir)) {
    if (rec.undoneBy.includes(id)) continue;
    // Only the records whose first line says they undo this run are read whole and checked (a
    // first line that cannot be peeked at is read whole too): not every record of every run.
    const meta = peekRunMeta(dir, id);
    if (meta !== undefined && meta.undoes !== rec.meta.id) continue;
    let r: RunRecord;
    try {
      r = readRunRecord(dir, id);
    } catch (err) {
      // A record that fails its check is no open undo (as allRuns lists it: an error).
      if (err instanceof RunRecordError) continue;
      throw err;
    }
    if (r.meta.undoes !== rec.meta.id) continue;
    if (!isUndone(dir, r)) return r;
  }
  return undefined;
}

/** Refuses a run already undone. */
export function checkNotUndone(dir: string, rec: RunRecord): void {
  if (!isUndone(dir, rec)) return;
  const by = rec.undoneBy[rec.undoneBy.length - 1]!;
  throw new RunRecordError(`run ${rec.meta.id} is already undone (by run ${by})`, ExitCode.RUN_UNDONE).hint(
    `nothing was sent; to do it again, undo the undo: svc runs undo ${by}`,
  );
}
