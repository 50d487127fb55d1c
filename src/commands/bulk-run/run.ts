/**
 * The one skeleton of every bulk run — `create|update|delete --input`, `upsert` and `update
 * --match`, `enroll` — which each fill in its parts: the first pass over the rows (`scan`: every
 * row checked before anything is sent), the plan (what the run will do; `--dry-run` and `--plan`
 * stop there), the rows for the workers (`items`) and how one row is done (`perform`). The
 * skeleton does the rest the same way for all of them: the invalid rows and `--strict`, the
 * session (client, journal, report, progress), the worker pool, `--failed`, the summary line and
 * the exit code (5 when rows failed, 130 with a resume hint on Ctrl-C).
 */
import type { FailedRows } from '../../bulk/run/failed-rows.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { ReadOptions } from '../../bulk/input/readers.js';
import type { Outcome, Parked, PoolResult } from '../../bulk/run/engine.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { collectFailed, failedRows, writeFailedRows } from './input-file.js';
import { HeldImages, recordOutcomes, recordRows, type RecordableItem } from '../../bulk/rows/run-recorder.js';
import { readRunRecord, RunRecordWriter, type RowOp, type RunMeta, type RunRecord } from '../../bulk/run/run-record.js';
import { countsText, ofTotal, partCounts, recordCounts, runRowsText, unitCounts, wroteStatus } from '../../bulk/run/run-counts.js';
import { grouped } from '../../grouped.js';
import {
  finishRun,
  openSession,
  readThrough,
  runOwnerOf,
  runRows,
  sessionWrites,
  type BulkSession,
  type BulkSetup,
  type SessionWrites,
} from './session.js';
import { endRunRecord, openRunRecord, recordId, runsDirOf } from './run-recording.js';
import { printRunSummary } from './run-summary.js';
import { continuingLine, journalKey, undoneRunOf, unfinishedRunOf } from './run-continue.js';

/** What the first pass found. */
interface RowScan {
  /** Rows of this shard. */
  total: number;
  invalid: number;
  /** Blank CSV rows (every cell empty), skipped: neither to do nor failed. */
  blank: number;
  /** `row N: field: reason` for the first invalid rows. */
  problems: string[];
  /** Lines said after the problems (before `--strict` refuses). */
  notes?: string[];
}

/** The parts a bulk command fills in. */
interface BulkRun<S extends RowScan, T extends RecordableItem> {
  setup: BulkSetup;
  /** `prospects upsert by email`, `enroll`: the progress bar's label and the summary's first words. */
  label: string;
  /** The rows as `--strict` names them: `rows of leads.csv`. */
  rows: string;
  /** The input file, read again for `--failed`; undefined when the rows came as flags. */
  input?: { file: string; read: ReadOptions; bareKey: string };
  /** `--failed`, when the command checked it before its first request (else checked when the session opens). */
  failed?: FailedRows;
  /**
   * The plan prints every row as text, the invalid ones with their error, and stdout and stderr
   * are one terminal: the first pass's problems are not said on stderr as well. Off a terminal
   * (data and messages apart) and when `--strict` refuses, they are.
   */
  problemsInPlan?: boolean;
  /**
   * The plan needs the session (read-only lookups, paced with the run's requests). With
   * `--dry-run` it opens without journal and report: a dry run writes no side file.
   */
  planInSession?: boolean;
  /**
   * With `planInSession`, the journal and report are opened once the plan says go: a plan that
   * asks (an undo that deletes records) leaves no side file when answered no or refused.
   */
  sideFilesAfterPlan?: boolean;
  /** First pass: every row checked (and counted, for the progress bar) before anything is sent. */
  scan(): Promise<S>;
  /** Says what the run will do; false ends the command there (a dry run, a plan, a "no" to the question). */
  plan(scan: S, session: BulkSession | undefined): Promise<boolean>;
  /** The rows for the workers (a lookup through the session may come first). */
  items(session: BulkSession): AsyncIterable<T> | Promise<AsyncIterable<T>>;
  /**
   * How one row is done, with the session's requester, journal and settle window; `continued` is
   * the unfinished run's record this rerun appends to (run-continue.ts), whose rows keep their first image.
   * A row's first write calls `writes.leaving(key)` right before it leaves (the requester's
   * `beforeSend`): its before-image goes to the record then, never for a row that was not sent.
   */
  perform(writes: SessionWrites, record?: RunRecordWriter, continued?: RunRecord): (item: T) => Promise<Outcome | Parked>;
  /**
   * Told of each update's record as the recorder read it for its image (undefined: no such
   * record), before the row goes to the workers: what the command says of a row by the record,
   * with no read of its own (run-recorder.ts, `onRead`).
   */
  onRead?(item: T, record: { attributes?: Record<string, unknown> } | undefined): void;
  /** Lines said after the run, before the summary. */
  after?(): void | Promise<void>;
  /** Fields of the run's own added to the JSON summary for scripts (run-summary.ts). */
  summaryExtra?(): Record<string, unknown>;
  /**
   * For `svc runs`: what a row without a request does (`enroll`: creates a sequenceState); the
   * rows with one are recorded from their request (every run is recorded, see run-recording.ts).
   */
  records?: { op: RowOp; type: string };
  /** A record to continue instead of starting one (an undo left unfinished: one run holds the whole undo). */
  recordInto?: RunRecord;
  /** More of the record's first line (an undo names the run it takes back); the journal is named by the skeleton. */
  recordMeta?: Pick<RunMeta, 'undoes'>;
  /** Called with the run's record and counts once the rows are done, before the summary. */
  recorded?(record: RunRecordWriter, result: PoolResult): void;
  /**
   * The rows are not the record's rows (a dedupe cluster is several writes, each a row of the
   * record keyed `<cluster>/<step>`): what the summary calls one and one done, and the row a
   * record's key belongs to.
   */
  rowsAre?: { noun: string; done: string; keyOf(recordKey: string): string };
}

/** Runs a bulk command from its parts. */
export async function bulkRun<S extends RowScan, T extends RecordableItem>(ctx: Context, run: BulkRun<S, T>): Promise<void> {
  const { setup } = run;
  const scan = await run.scan();
  if (!run.problemsInPlan || (scan.invalid > 0 && setup.strict)) {
    for (const p of scan.problems) ctx.info(p);
    if (scan.invalid > scan.problems.length) ctx.info(`… and ${scan.invalid - scan.problems.length} more invalid rows`);
  }
  for (const note of scan.notes ?? []) ctx.info(note);
  if (scan.invalid > 0 && setup.strict)
    throw new UsageError(`${scan.invalid} of ${scan.total} ${run.rows} are invalid; nothing was sent (--strict)`);

  refuseUndoneJournal(ctx, setup, run);
  let session: BulkSession | undefined;
  let record: RunRecordWriter | undefined;
  let release: (() => void) | undefined;
  try {
    const sideFilesLater = run.sideFilesAfterPlan === true && !ctx.globals.dryRun;
    if (run.planInSession) {
      const side = ctx.globals.dryRun ? { ...setup, journalPath: undefined, reportPath: undefined } : setup;
      session = await openSession(ctx, side, run.label, scan.total, sideFilesLater, sending(scan));
    }
    if (!(await run.plan(scan, session))) return;
    if (session && sideFilesLater) await session.openSideFiles();
    // From here rows are written: a closed stdout (`--report - | head`) winds the run down as
    // Ctrl-C does, never ends it where it stands (output/io.ts, ClosedOutput).
    release = ctx.io.closedOutput?.windDown();
    const failed = run.failed ?? failedRows(setup, run.input?.file);
    session ??= await openSession(ctx, setup, run.label, scan.total, false, sending(scan));
    // Timed from the answer: the plan's question waited on a person (a trial's "1 of 1 row in 11.9 s").
    session.started = ctx.clock.now();
    collectFailed(session, failed);
    // The rate in what a row is (`dedupe apply`: clusters, each several writes), not "rows/s".
    if (run.rowsAre) session.progress.countAs(`${run.rowsAre.noun}s`);
    session.progress.start();
    // Aborted by the pool when the run stops for an error every row would meet.
    const halt = new AbortController();
    // Every run is recorded (svc runs): its rows' before-images go to the record before their writes leave.
    const s = session;
    // A rerun of a run left unfinished continues its record (run-continue.ts): one run, one undo.
    // (An undo continues its own unfinished undo, `recordInto`, as it always has: its rows bring their images.)
    const rerunOf = run.recordInto ? undefined : continuedRun(ctx, setup, run);
    if (rerunOf) ctx.info(continuingLine(rerunOf, scan.total, run.rows, run.rowsAre !== undefined));
    const continued = run.recordInto ?? rerunOf;
    record = continued
      ? RunRecordWriter.append(runsDirOf(ctx), continued, () => ctx.clock.now())
      : await openRunRecord(
          ctx,
          run.label,
          await runOwnerOf(ctx, setup, readThrough(s.requester)),
          {
            ...run.recordMeta,
            ...(setup.journalPath ? { journal: journalKey(setup.journalPath) } : {}),
            ...(setup.shard ? { shard: shardText(setup) } : {}),
            rows: scan.total,
          },
          // Made with the run's first row: a run that writes nothing (a rerun of one that finished)
          // leaves no record to come first in `svc runs list`. An undo is recorded even so: it
          // marks the run it took back undone, and undoing it redoes.
          run.recordMeta?.undoes === undefined,
        );
    // Rows the part before of the continued run did (the journal skips them), counted as the pool
    // records them: counted as they were read, a stopped rerun counted the rows read ahead too
    // ("this part: nothing to do (7 of 200 rows; 24 done by the part before)", a review).
    const before = { done: 0 };
    const did = continued ? doneKeys(continued, run.rowsAre?.keyOf) : undefined;
    // Each row's image is read ahead with its page and written as its first write leaves: a row
    // the run never sent (stopped first) is not in the record, neither cut short nor to undo.
    const images = new HeldImages(record);
    const items = recordRows(await run.items(session), {
      images,
      requester: session.requester,
      ...(run.records ? { bare: run.records } : {}),
      ...(rerunOf ? { had: rerunOf } : {}),
      ...(run.onRead ? { onRead: (item: T, rec: { attributes?: Record<string, unknown> } | undefined) => run.onRead!(item, rec) } : {}),
    });
    const writes = sessionWrites(ctx, session, setup, halt, images.leaving);
    const perform = recordOutcomes(run.perform(writes, record, rerunOf), record, images, rerunOf);
    const result = await runRows(ctx, session, setup, {
      halt,
      items,
      perform,
      ...(did
        ? {
            onOutcome: (item: T, o: Outcome, worked: boolean) => {
              if (!worked && o.status === 'skipped' && did.has(item.key)) before.done++;
            },
          }
        : {}),
    });
    session.progress.stop();
    run.recorded?.(record, result);
    endRunRecord(ctx, record, result);
    const early = result.interrupted || result.tripped !== undefined;
    if (run.input) await writeFailedRows(ctx, failed, run.input.file, run.input.read, run.input.bareKey, early);
    await run.after?.();
    const wrote = partCounts(record.partOutcomes(), run.recordMeta?.undoes !== undefined);
    await printRunSummary(
      ctx,
      setup,
      run.label,
      record.made ? recordId(record) : undefined,
      result,
      scan.total,
      run.summaryExtra?.(),
      run.rowsAre && { noun: run.rowsAre.noun, done: run.rowsAre.done, wrote },
    );
    finishRun(ctx, session, setup, run.label, result, scan.total, scan.blank, {
      wrote,
      ...(run.rowsAre ? { rowsAre: run.rowsAre } : {}),
      ...(continued && record.made
        ? {
            continued: {
              id: continued.meta.id,
              doneBefore: before.done,
              inAll: inAllText(readRunRecord(runsDirOf(ctx), continued.meta.id), run.rowsAre?.done),
            },
          }
        : {}),
    });
  } finally {
    record?.close();
    await session?.close();
    release?.();
  }
}

/** The keys of the rows the continued run wrote (the journal skips them now): the summary says them apart, so that its counts add up to the run's in all. */
function doneKeys(continued: RunRecord, keyOf: ((recordKey: string) => string) | undefined): Set<string> {
  const did = new Set<string>();
  for (const [k, { done }] of continued.rows) if (done && wroteStatus(done.status)) did.add(keyOf ? keyOf(k) : k);
  return did;
}

/**
 * A continued run's rows in all its parts, as `svc runs list` says them (`24 updated, 76 cut short
 * (of 200)`); rows that are not the record's rows (dedupe clusters) first in their own word, as
 * the line of the part says them (`4 merged (of 5); in their records: 12 updated, 4 deleted`).
 */
function inAllText(rec: RunRecord, done: string | undefined): string {
  if (done === undefined) return runRowsText(rec, grouped);
  return `${countsText(unitCounts(rec, done), grouped)}${ofTotal(rec, grouped)}; in their records: ${countsText(recordCounts(rec), grouped)}`;
}

/**
 * The unfinished run this one continues: found by the journal it read (a journal gone or empty
 * starts a new run), never for an undo (it continues its own, `recordInto`) nor a dry run.
 */
function continuedRun<S extends RowScan, T extends RecordableItem>(
  ctx: Context,
  setup: BulkSetup,
  run: BulkRun<S, T>,
): RunRecord | undefined {
  if (!setup.journalPath || !setup.journalBytes || run.recordMeta?.undoes !== undefined || ctx.globals.dryRun) return undefined;
  return unfinishedRunOf(runsDirOf(ctx), run.label, setup.journalPath, setup.owner, shardText(setup));
}

/**
 * A rerun over the journal of a run that `svc runs undo` took back would skip every row the
 * journal holds and write nothing, exit 0, while the org no longer holds what they wrote (a new
 * user's trial: an import undone, run again, "150 skipped"). Refused instead, with both ways on.
 */
function refuseUndoneJournal<S extends RowScan, T extends RecordableItem>(ctx: Context, setup: BulkSetup, run: BulkRun<S, T>): void {
  if (!setup.journalPath || !setup.journalBytes || run.recordMeta?.undoes !== undefined) return;
  const found = undoneRunOf(runsDirOf(ctx), run.label, setup.journalPath, setup.owner, shardText(setup));
  if (!found) return;
  const rec = found.undone;
  const undo = found.by;
  const standing = found.standing.map((r) => r.meta.id).join(', ');
  throw new UsageError(
    found.partly !== undefined
      ? `the rows ${setup.journalPath} holds as done include ${found.partly} that run ${rec.meta.id} wrote and \`svc runs undo\` took back (run ${undo}, in part): run again, it would skip them`
      : `the rows ${setup.journalPath} holds as done were written by run ${rec.meta.id}, which \`svc runs undo\` took back (run ${undo}): run again, it would skip them and write nothing`,
  )
    .hint(
      standing
        ? `to write them again, give --journal a new file and an input of only that run's rows: the journal also holds the rows of run(s) ${standing}, which stand and would be written a second time`
        : `to write them again, start afresh: remove ${setup.journalPath}, or give --journal a new file`,
    )
    .hint(`to put that run's changes back instead: ${svcAgain(ctx)} runs undo ${undo}`);
}

/** The run's `--shard` as recorded (`2/4`); undefined without one. */
function shardText(setup: BulkSetup): string | undefined {
  return setup.shard ? `${setup.shard.index}/${setup.shard.count}` : undefined;
}

/** The rows that will send requests: an invalid row sends none (a forecast of 116 requests for 116 invalid rows, a trial). */
function sending(scan: { total: number | undefined; invalid: number }): number | undefined {
  return scan.total === undefined ? undefined : scan.total - scan.invalid;
}
