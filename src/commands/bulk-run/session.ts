/**
 * What `svc <resource> create|update|delete --input` and `svc enroll` share: the options, the
 * API client with pacing hooks, journal, report and progress, and the summary and exit code at
 * the end (5 when rows failed, 130 with a resume hint on Ctrl-C).
 */
import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import type { ApiClient } from '../../api/client.js';
import { defaultJournalPath, emptyJournal, JournalWriter, lockJournal, readJournal, type JournalState } from '../../bulk/run/journal.js';
import { describeOwner, type SideOwner } from '../../bulk/run/side-owner.js';
import { Pacer } from '../../bulk/run/pacing.js';
import { Progress } from '../../bulk/run/progress.js';
import { NO_REPORT, openReportFile, stdoutReport, type ReportEntry, type ReportWriter } from '../../bulk/run/report.js';
import { Requester, Stopped } from '../../bulk/run/requester.js';
import { DEFAULT_SETTLE_SECONDS, MAX_SETTLE_SECONDS, type SettleClock } from '../../bulk/run/settle.js';
import { parseShard, type Shard } from '../../bulk/run/shard.js';
import { RunLockHeld, type RunLock } from '../../bulk/run/run-lock.js';
import {
  DEFAULT_MAX_FAILURES,
  MAX_PARKED,
  runPool,
  type Outcome,
  type PoolOptions,
  type PoolResult,
  type WorkItem,
} from '../../bulk/run/engine.js';
import { parseDelimiter, parseEncoding, stdinNotSupported } from '../../bulk/input/readers.js';
import type { InputEncoding } from '../../bulk/input/input-encoding.js';
import type { Context } from '../../runtime/context.js';
import { stderrWidth } from '../../output/io.js';
import { ApiError, ExitCode, InterruptedError, PartialError, SvcError, UsageError } from '../../errors.js';
import { interruptedBeforeRows, runOwner } from '../shared/org-owner.js';
import { checkRunFiles } from './run-files.js';
import { grouped, plural } from '../../grouped.js';
import { countsText, wroteCount } from '../../bulk/run/run-counts.js';

/** Options shared by bulk commands. */
export interface BulkFlags {
  input?: string;
  concurrency?: string;
  journal?: string;
  report?: string;
  strict?: boolean;
  shard?: string;
  settle?: string;
  resendUnconfirmed?: boolean;
  skipFailed?: boolean;
  maxFailures?: string;
  failed?: string;
  ignoreColumns?: string;
  delimiter?: string;
  encoding?: string;
  /** `--allow-opt-in` (update and upsert of a type with consent attributes). */
  allowOptIn?: boolean;
}

/** Most workers a run may use (the client's keep-alive pool holds 32 connections). */
const MAX_CONCURRENCY = 32;

/** Parsed bulk options. */
export interface BulkSetup {
  /** The command (`prospects upsert`, `enroll`): a journal belongs to one command and one org. */
  command: string;
  /** The org and command this run's journal entries belong to, once asked (see {@link runOwnerOf}). */
  owner?: SideOwner;
  /** `--journal` was given: a journal of another org or command is refused, not shared. */
  journalGiven: boolean;
  /** The journal's size when {@link loadJournal} read it (under the lock). */
  journalBytes?: number;
  /** The run only plans (`--plan`, `--dry-run`): it writes no journal, so it takes no lock. */
  planning: boolean;
  /** The journal's lock, held from before the journal is read until the command ends (see {@link holdJournal}). */
  lock?: RunLock;
  concurrency: number;
  shard: Shard | undefined;
  /** Journal file; undefined when there is no input file and no `--journal`. */
  journalPath: string | undefined;
  reportPath: string | undefined;
  strict: boolean;
  /** How long a write without a definite answer is watched before it may be sent again (ms). */
  settleMs: number;
  /**
   * `--resend-unconfirmed`: a create whose answer was lost and that a lookup still does not find
   * at the end of the window is sent again (after one more lookup) instead of reported unknown.
   */
  resend: boolean;
  /** Rows an earlier run recorded `failed` are skipped instead of tried again. */
  skipFailed: boolean;
  /** An update may take back an opt-out (bulk/rows/consent.ts). */
  allowOptIn: boolean;
  /** Consecutive rows refused with the same error that stop the run (0: never). */
  maxFailures: number;
  /** `--failed`: where the failed rows go. */
  failedPath: string | undefined;
  /** `--ignore-columns`: input columns left out on purpose. */
  ignoreColumns: ReadonlySet<string>;
  /** `--delimiter`: the CSV delimiter, when forced. */
  delimiter: string | undefined;
  /** `--encoding`: the input's text encoding, when forced. */
  encoding: InputEncoding | undefined;
}

/** `--settle <seconds>`: a number from 0 to an hour. */
function settleMs(v: string | undefined): number {
  if (v === undefined) return DEFAULT_SETTLE_SECONDS * 1000;
  const t = v.trim();
  if (!/^\d+(\.\d+)?$/.test(t) || Number(t) > MAX_SETTLE_SECONDS) {
    throw new UsageError(`--settle ${v}: expected seconds from 0 to ${MAX_SETTLE_SECONDS} (default ${DEFAULT_SETTLE_SECONDS})`);
  }
  return Math.round(Number(t) * 1000);
}

/** `--max-failures <n>`: a whole number, 0 turning the breaker off. */
function maxFailures(v: string | undefined): number {
  if (v === undefined) return DEFAULT_MAX_FAILURES;
  if (!/^\d+$/.test(v.trim()))
    throw new UsageError(`--max-failures ${v}: expected a whole number (default ${DEFAULT_MAX_FAILURES}; 0 never stops)`);
  return Number(v);
}

/** `--ignore-columns a,b`: column names, spaces around the commas ignored. */
function ignoreColumns(v: string | undefined): ReadonlySet<string> {
  const names = (v ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  if (v !== undefined && names.length === 0) throw new UsageError('--ignore-columns: give column names, comma-separated');
  return new Set(names);
}

/**
 * Checks and resolves the bulk options of `command`. A run against the sandbox (a rehearsal on a
 * copy of the org, or a try-out) keeps its own default journal beside the input; whatever the
 * file, a run reads only the entries of its own org and command (see {@link loadJournal}).
 * `planning`: the run only plans (`--plan`, `--dry-run`) and writes no side file.
 */
export function bulkSetup(flags: BulkFlags, command: string, run: { sandbox: boolean; planning: boolean }): BulkSetup {
  const { sandbox } = run;
  const c = flags.concurrency ?? '4';
  if (!/^\d+$/.test(c.trim()) || Number(c) < 1 || Number(c) > MAX_CONCURRENCY) {
    throw new UsageError(`--concurrency ${c}: expected a whole number from 1 to ${MAX_CONCURRENCY}`);
  }
  if (flags.input === '-') throw stdinNotSupported();
  if (flags.input !== undefined && flags.input.trim() === '') throw new UsageError('--input: give a file name');
  const journalPath = flags.journal ?? (flags.input !== undefined ? defaultJournalPath(flags.input, sandbox) : undefined);
  // No file of the run may be another: a report over the input would empty it, a journal over it append to it.
  checkRunFiles([
    { flag: '--input', path: flags.input, out: false },
    { flag: '--journal', path: journalPath, out: true },
    { flag: "the journal's lock", path: journalPath !== undefined ? `${journalPath}.lock` : undefined, out: true },
    { flag: '--report', path: flags.report === '-' ? undefined : flags.report, out: true },
    { flag: '--failed', path: flags.failed, out: true },
  ]);
  return {
    command,
    journalGiven: flags.journal !== undefined,
    planning: run.planning,
    concurrency: Number(c),
    shard: flags.shard !== undefined ? parseShard(flags.shard) : undefined,
    journalPath,
    reportPath: flags.report,
    strict: flags.strict === true,
    settleMs: settleMs(flags.settle),
    resend: flags.resendUnconfirmed === true,
    skipFailed: flags.skipFailed === true,
    allowOptIn: flags.allowOptIn === true,
    maxFailures: maxFailures(flags.maxFailures),
    failedPath: flags.failed,
    ignoreColumns: ignoreColumns(flags.ignoreColumns),
    delimiter: flags.delimiter !== undefined ? parseDelimiter(flags.delimiter) : undefined,
    encoding: flags.encoding !== undefined ? parseEncoding(flags.encoding) : undefined,
  };
}

/** The owner of the run's side files, asked of the API once per run (through `get` when given: see runOwner). */
export async function runOwnerOf(ctx: Context, setup: BulkSetup, get?: (url: string) => Promise<unknown>): Promise<SideOwner> {
  setup.owner ??= await runOwner(ctx, setup.command, get);
  return setup.owner;
}

/**
 * Takes the run's journal lock, held until the command ends: before the journal is read, and
 * before anything is said or sent, so that a second run on a journal in use says only that (it
 * read the live run's rows as "done by earlier runs" and printed its plan first, a trial). Called
 * by {@link loadJournal}, and earlier by a run that says or sends something before it reads its
 * journal. A plan writes no journal and takes no lock: `--plan` and `--dry-run` work beside a run.
 */
export function holdJournal(ctx: Context, setup: BulkSetup): void {
  if (setup.lock || setup.planning || !setup.journalPath) return;
  let lock: RunLock;
  try {
    lock = lockJournal(setup.journalPath);
  } catch (err) {
    // Shards started at once on one machine meet on the default journal (a trial): each needs its own.
    if (err instanceof RunLockHeld && setup.shard) {
      // Not "use another journal" outright: the holder may be this very shard (a retry while the
      // first still runs), and a shard given a new journal sends again what its old one records.
      err.hint(
        `if the holder is another shard of this file: shards run at once on one machine each need a journal of their own from their first run (--journal ${setup.journalPath.replace(/\.journal\.ndjson$/, '')}.shard-${setup.shard.index}.journal.ndjson); a shard that has run before keeps its journal, or its rows are sent again`,
      );
    }
    throw err;
  }
  setup.lock = lock;
  // Released by the journal when the session closes; here too for a run that ends before it opens.
  ctx.onClose(() => lock.release());
}

/**
 * Reads the entries this org and command recorded in earlier runs, warning about damage. Entries
 * of another org or command are never read as done: in the default journal they are left as they
 * are (this run starts afresh, with its own entries after them); a `--journal` named for this run
 * that holds them is refused, as is a journal that does not say whose its entries are.
 */
export async function loadJournal(ctx: Context, setup: BulkSetup): Promise<JournalState> {
  const path = setup.journalPath;
  if (!path) return emptyJournal();
  // Under the lock: a journal another run is writing is not read as "done by earlier runs".
  holdJournal(ctx, setup);
  // Whose the run is needs a request: asked only when there is a journal to read.
  const state = await readJournal(path, (await isFile(path)) ? await runOwnerOf(ctx, setup) : undefined);
  if (state.unowned) {
    throw new UsageError(
      `${path}: its ${grouped(state.unowned)} row(s) were recorded by an earlier svc that did not record the org they were done in`,
    ).hint(`move it away to start afresh (rows it records as done would be sent again), or finish those rows with the svc that wrote it`);
  }
  if (state.foreign) {
    const whose = state.foreignOwners.map(describeOwner).join('; ');
    if (setup.journalGiven) {
      throw new UsageError(
        `--journal ${path} belongs to another org or command: it records ${grouped(state.foreign)} row(s) of ${whose}`,
      ).hint(
        `this run is ${describeOwner(setup.owner!)}: give it its own --journal FILE (or leave --journal out: the default journal keeps each org's and command's rows apart)`,
      );
    }
    ctx.info(
      `journal ${path}: also holds ${grouped(state.foreign)} row(s) of another org or command (${whose}), kept for it; this run's rows are apart`,
    );
  }
  if (state.damagedLines) ctx.warn(`${path}: ${state.damagedLines} unreadable journal line(s) ignored`);
  if (state.tornTail) ctx.trace(`${path}: ignoring a cut-off last line (an earlier run was killed while writing it)`);
  if (state.entries.size) ctx.info(`journal ${path}: ${grouped(state.entries.size)} row(s) recorded by earlier runs`);
  setup.journalBytes = state.bytes;
  return state;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await fs.promises.lstat(path)).isFile();
  } catch {
    return false;
  }
}

/** Everything a running bulk command holds. */
export interface BulkSession {
  client: ApiClient;
  requester: Requester;
  pacer: Pacer;
  progress: Progress;
  report: ReportWriter;
  journal: JournalWriter | undefined;
  started: number;
  /** Opens the journal and report of a session opened without them (`sideFilesLater`). */
  openSideFiles(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens client, journal (locked), report and progress for a run. The progress display starts
 * with `session.progress.start()` once the set-up lines are printed. With `sideFilesLater` the
 * journal and report wait for {@link BulkSession.openSideFiles}: a plan that asks (an undo that
 * deletes) and is answered no, or refused without --yes, leaves neither behind.
 */
export async function openSession(
  ctx: Context,
  setup: BulkSetup,
  label: string,
  total: number | undefined,
  sideFilesLater = false,
  /** Rows that will send a request: the budget's forecast leaves out the invalid ones. */
  sending = total,
): Promise<BulkSession> {
  const conn = await ctx.connection();
  const stderrColumns = ctx.io.stderrColumns ?? 0;
  // Every worker and every parked row may wait on Ctrl-C at once (pacing waits, settle waits):
  // more listeners than Node's default of 10, which would print a leak warning on stderr.
  setMaxListeners(MAX_CONCURRENCY + MAX_PARKED + 16, ctx.signal);
  const progress = new Progress({
    stderr: ctx.io.stderr,
    // --verbose writes trace lines as requests go: a bar redrawn between them would garble both.
    // A terminal that reports no width gets plain lines: a bar cannot be sized to it.
    tty: ctx.io.stderrIsTTY && !ctx.globals.verbose && stderrColumns > 0,
    label,
    total,
    columns: stderrColumns || ctx.io.columns,
    lineWidth: stderrWidth(ctx.io),
    intervalMs: progressInterval(ctx.env.SVC_PROGRESS_INTERVAL),
    now: () => ctx.clock.now(),
  });
  const sleep = (ms: number, signal?: AbortSignal) => ctx.clock.sleep(ms, signal);
  const gate = await ctx.rateBudget();
  gate?.longRunning();
  gate?.showWaits((ms, why) => progress.waiting(ms, why));
  const pacer = new Pacer({
    concurrency: setup.concurrency,
    sleep,
    now: () => ctx.clock.now(),
    onWait: (ms, why) => progress.waiting(ms, why),
    shared: () => gate?.shared() ?? false,
  });
  // No Ctrl-C signal on the client: a request on the wire always finishes, so that its outcome
  // reaches the journal. Workers stop taking rows instead (see the engine).
  const client = await ctx.newApiClient(conn, {
    signal: undefined,
    onRateLimit: (info, status) => pacer.observe(info, status),
    now: () => ctx.clock.now(),
  });
  const requester = new Requester({
    client,
    pacer,
    ...(gate ? { gate } : {}),
    signal: ctx.signal,
    sleep,
    now: () => ctx.clock.now(),
    onWait: (ms, why) => progress.waiting(ms, why),
    resumeHint: resumeHint(setup),
  });
  if (gate && ctx.globals.budget && sending !== undefined && sending > 0) {
    // Before the first row: whether the run fits in what the hour and its --budget leave. With no
    // hour known yet, the run's owner (asked before its rows in any case) is asked first: its
    // answer tells the limit.
    try {
      const forecast = await gate.forecast(sending, () => runOwnerOf(ctx, setup, readThrough(requester)));
      if (forecast) ctx.info(forecast);
    } catch (err) {
      await client.close();
      throw err;
    }
  }
  // The writers as opened, closed at the end: collectFailed puts a wrapper in session.report.
  const opened: Pick<BulkSession, 'journal' | 'report'> = { journal: undefined, report: NO_REPORT };
  const session: BulkSession = {
    client,
    requester,
    pacer,
    progress,
    report: NO_REPORT,
    journal: undefined,
    started: ctx.clock.now(),
    async openSideFiles() {
      Object.assign(opened, await openSideFiles(ctx, setup, requester, progress));
      session.journal = opened.journal;
      session.report = opened.report;
    },
    async close() {
      progress.stop();
      opened.journal?.close();
      opened.report.close();
      await client.close();
    },
  };
  if (sideFilesLater) return session;
  try {
    await session.openSideFiles();
  } catch (err) {
    await client.close();
    throw err;
  }
  return session;
}

/** The journal (locked; its owner asked through the run's requester) and the report of a run. */
async function openSideFiles(
  ctx: Context,
  setup: BulkSetup,
  requester: Requester,
  progress: Progress,
): Promise<Pick<BulkSession, 'journal' | 'report'>> {
  let journal: JournalWriter | undefined;
  try {
    if (setup.journalPath) {
      holdJournal(ctx, setup);
      journal = new JournalWriter(
        setup.journalPath,
        () => ctx.clock.now(),
        (t) => ctx.redact(t),
        // Through the requester: paced with the run's other requests, its waits shown.
        await runOwnerOf(ctx, setup, readThrough(requester)),
      );
      journal.open(setup.journalBytes, setup.lock);
    }
    let report: ReportWriter = NO_REPORT;
    if (setup.reportPath === '-') report = beforeEach(() => progress.clear(), redacted(ctx, stdoutReport(ctx.io.stdout)));
    else if (setup.reportPath) report = redacted(ctx, openReportFile(setup.reportPath));
    return { journal, report };
  } catch (err) {
    journal?.close();
    if (err instanceof Stopped) throw interruptedBeforeRows();
    throw err;
  }
}

/** A document read through the run's requester: paced with the run's other requests, its waits shown. */
export function readThrough(requester: Requester): (url: string) => Promise<unknown> {
  return async (url) => (await requester.send({ method: 'GET', path: url }, 'read')).doc;
}

/**
 * Report lines on stdout erase the progress bar first: on a shared terminal they would
 * otherwise be written after the bar, on its line (the bar is redrawn below them).
 */
function beforeEach(fn: () => void, inner: ReportWriter): ReportWriter {
  return {
    write: (e) => {
      fn();
      return inner.write(e);
    },
    close: () => inner.close(),
  };
}

/** How to do the rest of a run that stopped early. */
function resumeHint(setup: BulkSetup): string {
  return setup.journalPath
    ? `run the same command again to do the rest: the journal ${setup.journalPath} records what is done`
    : 'run the same command again: rows already done are skipped';
}

/**
 * The settle window of a run's writes without a definite answer. Its waits end on Ctrl-C and
 * when `halt` is aborted (the run stops for an error every row would meet).
 */
function settleClock(ctx: Context, setup: BulkSetup, halt: AbortController): SettleClock {
  const signal = AbortSignal.any([ctx.signal, halt.signal]);
  // One listener per parked row (see openSession).
  setMaxListeners(MAX_CONCURRENCY + MAX_PARKED + 16, signal);
  return { windowMs: setup.settleMs, now: () => ctx.clock.now(), sleep: (ms, s) => ctx.clock.sleep(ms, s), signal };
}

/**
 * What every performer of a session's writes is given: requester, journal, settle window, error
 * lines, and `leaving(key)`, called right before a row's first write leaves (the run's record
 * takes the row's before-image then: run-recorder.ts).
 */
export type SessionWrites = ReturnType<typeof sessionWrites>;

/** The {@link SessionWrites} of a session; `halt` ends the settle waits when the run stops. */
export function sessionWrites(ctx: Context, session: BulkSession, setup: BulkSetup, halt: AbortController, leaving: (key: string) => void) {
  return {
    requester: session.requester,
    journal: session.journal,
    settle: settleClock(ctx, setup, halt),
    resend: setup.resend,
    describe: rowError,
    leaving,
  };
}

/** Every text of a report line redacted: errors quote servers, and details (`reason`) quote journals and inputs. */
function redacted(ctx: Context, inner: ReportWriter): ReportWriter {
  return {
    write(e) {
      const out: ReportEntry = { ...e };
      for (const [k, v] of Object.entries(out)) if (typeof v === 'string') out[k] = ctx.redact(v);
      return inner.write(out);
    },
    close: () => inner.close(),
  };
}

function progressInterval(v: string | undefined): number | undefined {
  const s = Number(v);
  return v && Number.isFinite(s) && s > 0 ? s * 1000 : undefined;
}

/** One line for an error a row met: `title: detail (field /data/…, id code)`. */
function rowError(err: unknown): { error: string; field?: string } {
  if (err instanceof ApiError) {
    const e = err.errors[0];
    const pointer = e?.source?.pointer ?? e?.source?.parameter;
    const extras = [pointer ? `field ${pointer}` : '', e?.id ? `id ${e.id}` : ''].filter(Boolean).join(', ');
    const field = pointer?.replace(/^\/data\/(attributes|relationships)\//, '');
    return { error: `HTTP ${err.status} ${err.message}${extras ? ` (${extras})` : ''}`, ...(field ? { field } : {}) };
  }
  return { error: err instanceof Error ? err.message : String(err) };
}

/**
 * Runs a session's rows through the worker pool with the run's settings: concurrency, the
 * breaker (`--max-failures`), Ctrl-C, the journal, the report, the progress and the lines of
 * failed rows.
 */
export function runRows<T extends WorkItem>(
  ctx: Context,
  session: BulkSession,
  setup: BulkSetup,
  rows: Pick<PoolOptions<T>, 'items' | 'perform' | 'halt' | 'onOutcome'>,
): Promise<PoolResult> {
  return runPool({
    ...rows,
    concurrency: setup.concurrency,
    maxFailures: setup.maxFailures,
    signal: ctx.signal,
    journal: session.journal,
    report: session.report,
    progress: session.progress,
    onFailure: failurePrinter(ctx, session, setup),
  });
}

/** Prints failed rows on stderr: every one without `--report`, the first ten with it. */
function failurePrinter(ctx: Context, session: BulkSession, setup: BulkSetup): (item: WorkItem, o: Outcome) => void {
  let shown = 0;
  const cap = setup.reportPath ? 10 : Infinity;
  return (item, o) => {
    shown++;
    if (shown <= cap) session.progress.line(ctx.redact(`row ${item.row}: ${o.status}: ${o.error ?? ''}`));
    else if (shown === cap + 1) session.progress.line(`(more failed rows: see the report ${setup.reportPath})`);
  };
}

/**
 * What the summary says beyond the pool's statuses, so that it counts a run's rows in the words
 * and numbers `svc runs list` gives the same run (bulk/run/run-counts.ts).
 */
interface SummaryCounts {
  /** What this part's rows wrote, by word (`finished`, `set back`): the record's outcomes of this process. */
  wrote?: Record<string, number>;
  /**
   * The rows are not the record's rows (a dedupe cluster is several writes): what one is called and
   * the word of one done; `wrote` is then said apart, as the writes the record counts.
   */
  rowsAre?: { noun: string; done: string };
  /** A rerun that continued a run: rows its part before did (skipped now), and the run's rows in all. */
  continued?: { id: string; doneBefore: number; inAll: string };
}

/** The summary's counts: this part's rows in the record's words where they match the pool's. */
function summaryParts(c: PoolResult['counts'], counted: SummaryCounts): Record<string, number> {
  const written = c.created + c.updated + c.deleted;
  const rest = { skipped: c.skipped - (counted.continued?.doneBefore ?? 0), failed: c.failed, unknown: c.unknown };
  if (counted.rowsAre) return { [counted.rowsAre.done]: written, ...rest };
  const wrote = counted.wrote ?? {};
  // The record's words when they count the same rows (a rerun's row whose first attempt stands is recorded so, not as refused).
  if (wroteCount(wrote) === written) return { ...wrote, ...rest };
  return { created: c.created, updated: c.updated, deleted: c.deleted, ...rest };
}

/** Prints the summary and ends the command with the right exit code. */
export function finishRun(
  ctx: Context,
  session: BulkSession,
  setup: BulkSetup,
  label: string,
  result: PoolResult,
  total: number | undefined,
  /** Blank CSV rows the run skipped (neither done nor failed). */
  blank = 0,
  counted: SummaryCounts = {},
): void {
  const c = result.counts;
  const n = grouped;
  const parts = countsText(summaryParts(c, counted), n).replace(/^no rows$/, 'nothing to do');
  const secs = (ctx.clock.now() - session.started) / 1000;
  const noun = counted.rowsAre?.noun ?? 'row';
  // `120 of 300 rows`: how far the run got, in the summary and in the lines of a run stopped.
  const reached = `${n(result.processed)}${total !== undefined ? ` of ${n(total)}` : ''} ${plural(total ?? result.processed, noun)}`;
  const cont = counted.continued;
  const notes = [
    blank ? `${n(blank)} blank ${plural(blank, 'row')} skipped` : '',
    cont?.doneBefore ? `${n(cont.doneBefore)} done by the part before` : '',
  ].filter(Boolean);
  const writes = counted.rowsAre && counted.wrote ? `; in their records: ${countsText(counted.wrote, n)}` : '';
  // A rerun's line counts its part; `runs list` counts the run in all, said on the next line.
  ctx.info(
    `${label}${cont ? ', this part' : ''}: ${parts} (${reached} in ${secs.toFixed(1)} s${notes.map((t) => `; ${t}`).join('')})${writes}`,
  );
  if (cont) ctx.info(`${label}, in all (run ${cont.id}): ${cont.inAll}`);
  const files = [
    setup.journalPath ? `journal ${setup.journalPath}` : '',
    setup.reportPath && setup.reportPath !== '-' ? `report ${setup.reportPath}` : '',
  ].filter(Boolean);
  if (files.length) ctx.info(files.join(' · '));
  if (result.tripped) {
    const t = result.tripped;
    const left = total !== undefined ? Math.max(0, total - result.processed) : undefined;
    const rest = left !== undefined ? ` (${n(left)} ${plural(left, noun)} not tried)` : '';
    throw new SvcError(
      ctx.redact(`stopped after ${n(t.count)} rows in a row were refused with the same error${rest}: ${t.error}`),
      ExitCode.API,
    )
      .hint(`fix what the error names (first in row ${t.firstRow}), then ${resumeHint(setup)}`)
      .hint(`--max-failures N changes when a run stops (default ${DEFAULT_MAX_FAILURES}; 0 never stops)`);
  }
  const closed = ctx.io.closedOutput?.closed;
  const lost =
    closed === 'stdout' && setup.reportPath === '-'
      ? 'the report lines of rows done after that are lost (--report FILE keeps them all)'
      : '';
  if (result.interrupted && closed) {
    const err = new SvcError(
      `${closed} was closed (the command reading it ended, as \`| head\` does): stopped, ${reached} done`,
      ExitCode.OUTPUT_CLOSED,
    );
    if (lost) err.hint(lost);
    throw err.hint(resumeHint(setup));
  }
  if (lost) ctx.warn(`stdout was closed before the run ended: ${lost}`);
  if (result.interrupted) {
    throw new InterruptedError(`interrupted: ${reached} done`).hint(resumeHint(setup));
  }
  const bad = c.failed + c.unknown;
  if (bad > 0) {
    // Unknown is not failed (README: exit 5 "when some failed or are `unknown`"): said apart.
    const of = `of ${n(result.processed)} ${plural(result.processed, 'row')}`;
    const lostAnswers = `unknown (${c.unknown === 1 ? 'its answer was' : 'their answers were'} lost)`;
    const err = new PartialError(
      c.unknown === 0
        ? `${n(c.failed)} ${of} failed`
        : c.failed === 0
          ? `${n(c.unknown)} ${of} ${c.unknown === 1 ? 'is' : 'are'} ${lostAnswers}`
          : `${n(c.failed)} ${of} failed and ${n(c.unknown)} ${c.unknown === 1 ? 'is' : 'are'} ${lostAnswers}`,
    );
    err.hint(
      setup.reportPath
        ? `see the report ${setup.reportPath === '-' ? 'on stdout' : setup.reportPath}`
        : 'give --report FILE for one result per row',
    );
    if (c.unknown)
      err.hint(
        'rows marked unknown may have been created: a rerun looks them up again (those it can) and sends none of them twice; --resend-unconfirmed sends those it still cannot find',
      );
    throw err;
  }
}
