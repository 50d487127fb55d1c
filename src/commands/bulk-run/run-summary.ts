/**
 * A bulk run's summary as one JSON object on stdout, for scripts that asked for JSON (`-o json`,
 * `-o ndjson`, `--json`, `--query`): the id of the run's record — what `svc runs undo` and `runs
 * show` take — with its counts and how it ended. A CI step read the id from the `recorded as run …`
 * line, or took `[0]` of `runs list`, where the runs of parallel jobs sharing a data folder
 * interleave (a trial). Printed before the exit code is decided, so a run with failed rows (exit
 * 5) or one stopped (130) prints it too. Never with `--report -`, whose lines are stdout's: the two
 * together are refused before the run reads its input (shared/output.ts refuseRunOutput).
 */
import type { PoolResult } from '../../bulk/run/engine.js';
import type { Context } from '../../runtime/context.js';
import { printJsonResult, runSummaryAsked } from '../shared/output.js';
import type { BulkSetup } from './session.js';

/** What the summary says of one run. */
interface RunSummary {
  /** The run's record (`svc runs undo RUN`); null when nothing was written, so none was kept. */
  run: string | null;
  /** `prospects upsert`, `enroll`, `runs undo`. */
  command: string;
  /** Rows of the input (null when not counted ahead), and those whose outcome was recorded. */
  rows: number | null;
  processed: number;
  /** What the rows did; for a run of units (a dedupe's clusters), what their records did (see {@link unitCounts}). */
  counts: Record<string, number>;
  /** Why the run ended before its last row, else null. */
  stopped: 'interrupted' | 'max-failures' | null;
  journal: string | null;
  report: string | null;
}

/**
 * Whether the run ends with the summary: JSON asked for and stdout not closed (`| head`); asked
 * beside `--report -` the run was refused before it began. A run whose own data goes to stdout (an
 * undo's re-created ids) puts it in the summary instead then (`extra`), so that stdout holds one
 * JSON document.
 */
export function runSummaryWanted(ctx: Context): boolean {
  return runSummaryAsked(ctx) && ctx.io.closedOutput?.closed !== 'stdout';
}

/**
 * The counts of a run whose rows are units of several writes (a dedupe cluster: a fill, moves, finishes, a
 * delete), as stderr's line says them: `counts` are the records' outcomes (`in their records: 7 updated,
 * 2 finished, 2 deleted`), as the summary defines `counts` for every run, and the units' own go under
 * their noun (`clusters`: merged, skipped, failed, unknown). `counts` said the clusters: `"updated":2`
 * for 7 updates, 2 finishes and 2 deletes (a new user's trial).
 */
interface Units {
  /** `cluster`: the key of the units' counts is its plural. */
  noun: string;
  /** The word of a unit done (`merged`). */
  done: string;
  /** What this process's rows of the record did, by word (bulk/run/run-counts.ts `partCounts`). */
  wrote: Record<string, number>;
}

function unitCounts(
  units: Units,
  pool: PoolResult['counts'],
): { counts: Record<string, number>; of: Record<string, Record<string, number>> } {
  const { created = 0, updated = 0, finished = 0, deleted = 0, skipped = 0, failed = 0, unknown = 0, ...rest } = units.wrote;
  const done = pool.created + pool.updated + pool.deleted;
  return {
    counts: { created, updated, finished, deleted, ...rest, skipped, failed, unknown },
    of: { [`${units.noun}s`]: { [units.done]: done, skipped: pool.skipped, failed: pool.failed, unknown: pool.unknown } },
  };
}

/** Prints the summary when it is wanted (see the module header), with the run's `extra` fields. */
export async function printRunSummary(
  ctx: Context,
  setup: BulkSetup,
  command: string,
  run: string | undefined,
  result: PoolResult,
  total: number | undefined,
  extra: Record<string, unknown> = {},
  units?: Units,
): Promise<void> {
  if (!runSummaryWanted(ctx)) return;
  const u = units && unitCounts(units, result.counts);
  const summary: RunSummary = {
    run: run ?? null,
    command,
    rows: total ?? null,
    processed: result.processed,
    counts: u?.counts ?? result.counts,
    ...u?.of,
    stopped: result.interrupted ? 'interrupted' : result.tripped ? 'max-failures' : null,
    journal: setup.journalPath ?? null,
    report: setup.reportPath ?? null,
  };
  await printJsonResult(ctx, { ...summary, ...extra });
}
