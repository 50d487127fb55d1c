/**
 * The recorded runs of `svc runs` as the commands see them: a run read and checked by id, whether
 * it stands undone (bulk/run/run-record.ts `isUndone`: an undo took it back and was not undone),
 * and the undo run of it left unfinished (resumed, not started anew).
 */
import { ExitCode, RunRecordError, UsageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';
import { undoBlocker } from '../../bulk/rows/undo-reach.js';
import { isRunId, isUndone, listRunIds, peekRunMeta, readRunRecord, unknownRun, type RunRecord } from '../../bulk/run/run-record.js';

/**
 * The profile whose runs `runs list` and `runs prune` show, read without building a connection:
 * both are local, and prune failed offline for want of a base URL (a review). With `--sandbox`,
 * the sandbox's (as a run against it records).
 */
export async function runsProfileOf(ctx: Context): Promise<string> {
  return ctx.globals.sandbox ? 'sandbox' : (await ctx.config()).currentName();
}

/** Reads a run by the id the user gave; `svc` is how hints write svc (runtime/svc-again.ts). */
export function loadRun(dir: string, id: string, svc: string): RunRecord {
  if (!isRunId(id)) {
    if (/^\d{8}-\d{6}-/.test(id) || id.length > 0) throw unknownRun(id, svc);
    throw new UsageError(`give a run id (${svc} runs list shows them)`);
  }
  return readRunRecord(dir, id, svc);
}

/**
 * Every readable run, newest first by the time it started (to the millisecond: the ids of runs of
 * one second end in random hex, so by id they come in a random order); a record that fails its
 * check is listed as such, placed by the time its first line says (unchecked: only to place it),
 * else by its id's second.
 */
export function allRuns(dir: string): ({ id: string; rec: RunRecord } | { id: string; error: RunRecordError })[] {
  const runs = listRunIds(dir).map((id) => {
    try {
      const rec = readRunRecord(dir, id);
      return { run: { id, rec }, at: rec.meta.at };
    } catch (err) {
      if (!(err instanceof RunRecordError)) throw err;
      const at = peekRunMeta(dir, id)?.at;
      return { run: { id, error: err }, at: typeof at === 'string' ? at : idTime(id) };
    }
  });
  // Ties (one millisecond) keep the id order listRunIds gives.
  return runs.sort((a, b) => (a.at === b.at ? 0 : a.at < b.at ? 1 : -1)).map((r) => r.run);
}

/** The second a run id names, as an ISO time (`20261129-203358-…` → `2026-11-29T20:33:58.000Z`). */
function idTime(id: string): string {
  return `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}T${id.slice(9, 11)}:${id.slice(11, 13)}:${id.slice(13, 15)}.000Z`;
}

/** A record read and checked; undefined when it fails its check (a tampered or torn record). */
function readChecked(dir: string, id: string): RunRecord | undefined {
  try {
    return readRunRecord(dir, id);
  } catch (err) {
    if (err instanceof RunRecordError) return undefined;
    throw err;
  }
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
    // A record that fails its check is no open undo (as allRuns lists it: an error).
    const r = readChecked(dir, id);
    if (r?.meta.undoes !== rec.meta.id) continue;
    if (!isUndone(dir, r)) return r;
  }
  return undefined;
}

/** Refuses a run already undone; `svc` is how the hint writes svc (with the user's `--sandbox`). */
export function checkNotUndone(dir: string, rec: RunRecord, svc = 'svc'): void {
  if (!isUndone(dir, rec)) return;
  const by = rec.undoneBy[rec.undoneBy.length - 1]!;
  // An undo none of whose rows can be taken back (it finished enrolments) is no way to do the run
  // again: the hint led to a refusal, exit 2 (a review).
  let why: string | undefined;
  try {
    const rows = [...readRunRecord(dir, by).rows.values()];
    const blocked = rows.map((r) => undoBlocker(r.row));
    if (rows.length && blocked.every(Boolean)) why = blocked[0];
  } catch {
    // An undo's record that cannot be read: the plain hint, whose command says why.
  }
  throw new RunRecordError(`run ${rec.meta.id} is already undone (by run ${by})`, ExitCode.RUN_UNDONE).hint(
    why
      ? `nothing was sent; its undo cannot itself be taken back (${why}): to do it again, run its command again`
      : `nothing was sent; to do it again, undo the undo: ${svc} runs undo ${by}`,
  );
}

/**
 * The runs `profile` made that still stand (not undone, undos left out), for `svc profiles remove`: those whose
 * record names the org (any profile logged in to it undoes them) and those that name only the
 * API (single writes: only a profile of that name undoes them).
 */
export function standingRunsOf(dir: string, profile: string): { orgNamed: number; apiOnly: number } {
  const out = { orgNamed: 0, apiOnly: 0 };
  for (const id of listRunIds(dir)) {
    // The first line picks this profile's records; only those are read whole and checked.
    if (peekRunMeta(dir, id)?.profile !== profile) continue;
    const rec = readChecked(dir, id);
    // An undo left standing is not counted: undoing it would redo what it took back.
    if (!rec || rec.meta.profile !== profile || rec.meta.undoes !== undefined || isUndone(dir, rec)) continue;
    if (rec.meta.owner.instance !== undefined || rec.meta.owner.org !== undefined) out.orgNamed++;
    else out.apiOnly++;
  }
  return out;
}
