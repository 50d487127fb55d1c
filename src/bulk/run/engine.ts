/**
 * The worker pool of bulk runs: `concurrency` workers take rows from one stream, do them, and
 * record each outcome in the journal (first: it is what makes reruns safe), the report and the
 * progress display. On Ctrl-C the workers take no new rows, the requests on the wire finish and
 * are recorded, and the run returns `interrupted`. An error that every row would meet (the
 * token is refused, a scope is missing) stops the run at once. A circuit breaker stops it too
 * when many rows in a row are refused with the same error (a column the service does not take,
 * a value every row has wrong): the rest would be refused alike, each at the price of a request.
 *
 * A row whose write got no definite answer is parked (see settle.ts): `perform` hands back a
 * promise of its outcome and the worker goes on with the next row; the outcome is recorded when
 * it comes, and the run ends when the last parked row has settled.
 */
import { ApiError, AuthError, UsageError } from '../../errors.js';
import type { JournalStatus, JournalWriter } from './journal.js';
import type { Progress } from './progress.js';
import type { ReportEntry, ReportWriter, RowStatus } from './report.js';
import { Stopped } from './requester.js';

/** A row ready for a worker. */
export interface WorkItem {
  row: number;
  key: string;
  /** Decided without a request (invalid, done in an earlier run, duplicate): only recorded. */
  outcome?: Outcome;
}

/** What became of one row. */
export interface Outcome {
  status: RowStatus;
  id?: number | string | null;
  error?: string;
  /** More members for the report line (`field`, `prospect`, `email`). */
  extra?: Record<string, unknown>;
  /** Already shown on stderr (invalid rows, listed by the checks before the run). */
  shown?: boolean;
}

/** A row whose outcome comes later (an ambiguous write watched over its settle window). */
export interface Parked {
  parked: Promise<Outcome>;
}

/** Most rows parked at once: beyond it a worker waits for one to settle before taking more. */
export const MAX_PARKED = 1000;

/** Options of {@link runPool}. */
export interface PoolOptions<T extends WorkItem> {
  items: AsyncIterable<T>;
  concurrency: number;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /**
   * Does one row, or parks it. Throws (or the parked promise rejects with) {@link Stopped} when
   * the run stops before the row's outcome is known.
   */
  perform(item: T): Promise<Outcome | Parked>;
  journal?: JournalWriter;
  report: ReportWriter;
  progress: Progress;
  /** Called for every failed row (stderr lines). */
  onFailure?(item: T, outcome: Outcome): void;
  /**
   * Called for every row as its outcome is recorded (`worked`: it cost a request): what a run
   * counts of its rows is counted here, not as the rows are read (the pool reads ahead).
   */
  onOutcome?(item: T, outcome: Outcome, worked: boolean): void;
  /** Aborted when an error every row would meet stops the run: parked rows stop waiting. */
  halt?: AbortController;
  /** Consecutive rows refused with the same error that stop the run (`--max-failures`; 0: never). */
  maxFailures?: number;
}

/** Default of `--max-failures`. */
export const DEFAULT_MAX_FAILURES = 20;

/** Why the circuit breaker stopped a run. */
interface Tripped {
  /** Rows refused in a row. */
  count: number;
  /** The error of the last of them. */
  error: string;
  /** The first row of the streak. */
  firstRow: number;
}

/** Counts of a finished (or stopped) run. */
export interface PoolResult {
  counts: Record<RowStatus, number>;
  /** Rows whose outcome was recorded. */
  processed: number;
  /** Stopped by Ctrl-C before every row was done. */
  interrupted: boolean;
  /** Stopped by the circuit breaker before every row was done. */
  tripped?: Tripped;
}

/** Failures are journaled too: a rerun must know the row was refused, not left in doubt. */
const JOURNALED: ReadonlySet<RowStatus> = new Set(['created', 'updated', 'deleted', 'unknown', 'failed']);

/** True for errors that every following row would meet too. */
export function isFatal(err: unknown): boolean {
  if (err instanceof AuthError || err instanceof UsageError) return true;
  if (err instanceof ApiError) {
    return err.status === 401 || (err.status === 403 && err.errors.some((e) => e.id === 'unauthorizedOauthScope'));
  }
  return false;
}

/**
 * The class of a row's error for the circuit breaker: the same status, title and detail with
 * the values of the row (quoted text, numbers other than the status) left out, so that
 * `"a@x.org" is taken` and `"b@x.org" is taken` count as one error.
 */
export function errorClass(error: string): string {
  const m = /^HTTP (\d{3})\b/.exec(error);
  const rest = (m ? error.slice(m[0].length) : error).replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\d+/g, '#');
  return `${m?.[1] ?? ''}${rest}`;
}

/** Runs the rows through the pool. @throws the first fatal error, after in-flight rows finish */
export async function runPool<T extends WorkItem>(opts: PoolOptions<T>): Promise<PoolResult> {
  const counts: Record<RowStatus, number> = { created: 0, updated: 0, deleted: 0, skipped: 0, failed: 0, unknown: 0 };
  let processed = 0;
  let fatal: unknown;
  let stopped = false;
  const iterator = opts.items[Symbol.asyncIterator]();
  let exhausted = false;
  let tripped: Tripped | undefined;
  let streak: { cls: string; count: number; firstRow: number } | undefined;
  const maxFailures = opts.maxFailures ?? DEFAULT_MAX_FAILURES;

  /** Counts refusals in a row; only rows that cost a request count (not invalid or resolved ones). */
  const breaker = (item: T, outcome: Outcome) => {
    if (maxFailures <= 0 || tripped) return;
    if (outcome.status !== 'failed') {
      if (outcome.status !== 'unknown') streak = undefined;
      return;
    }
    const cls = errorClass(outcome.error ?? '');
    streak = streak?.cls === cls ? { ...streak, count: streak.count + 1 } : { cls, count: 1, firstRow: item.row };
    if (streak.count >= maxFailures) tripped = { count: streak.count, error: outcome.error ?? '', firstRow: streak.firstRow };
  };

  const record = async (item: T, outcome: Outcome, worked: boolean) => {
    if (JOURNALED.has(outcome.status) && worked) {
      opts.journal?.write({
        key: item.key,
        row: item.row,
        status: outcome.status as JournalStatus,
        id: outcome.id ?? null,
        ...(outcome.status === 'failed' && outcome.error ? { error: outcome.error } : {}),
      });
    }
    const entry: ReportEntry = {
      row: item.row,
      status: outcome.status,
      id: outcome.id ?? null,
      error: outcome.error ?? null,
      ...outcome.extra,
    };
    await opts.report.write(entry);
    counts[outcome.status]++;
    opts.onOutcome?.(item, outcome, worked);
    processed++;
    if (worked) breaker(item, outcome);
    opts.progress.tick(outcome.status, worked);
    if ((outcome.status === 'failed' || outcome.status === 'unknown') && !outcome.shown) opts.onFailure?.(item, outcome);
  };

  const next = async (): Promise<T | undefined> => {
    if (exhausted || stopped || tripped || fatal !== undefined || opts.signal.aborted) return undefined;
    let r: IteratorResult<T>;
    try {
      r = await iterator.next();
    } catch (err) {
      // Rows may need requests to be read (e-mail lookups): Ctrl-C stops those too.
      if (err instanceof Stopped) {
        stopped = true;
        exhausted = true;
        return undefined;
      }
      if (isFatal(err)) {
        fatal ??= err;
        opts.halt?.abort();
        exhausted = true;
        return undefined;
      }
      throw err;
    }
    if (r.done) {
      exhausted = true;
      return undefined;
    }
    return r.value;
  };

  /** Stops the run for Stopped and fatal errors; false for anything else (a bug: rethrown). */
  const halted = (err: unknown): boolean => {
    if (err instanceof Stopped) stopped = true;
    else if (isFatal(err)) {
      fatal ??= err;
      opts.halt?.abort();
    } else return false;
    return true;
  };

  const parked = new Set<Promise<void>>();
  let parkFailure: { reason: unknown } | undefined;
  const park = (item: T, later: Promise<Outcome>) => {
    const p: Promise<void> = later
      .then((outcome) => record(item, outcome, true))
      .catch((err: unknown) => {
        if (!halted(err)) parkFailure ??= { reason: err };
      })
      .finally(() => {
        parked.delete(p);
        opts.progress.parked--;
      });
    parked.add(p);
    opts.progress.parked++;
  };

  const worker = async () => {
    for (;;) {
      while (parked.size >= MAX_PARKED) await Promise.race(parked);
      const item = await next();
      if (!item) return;
      if (item.outcome) {
        await record(item, item.outcome, false);
        continue;
      }
      let outcome: Outcome | Parked;
      try {
        outcome = await opts.perform(item);
      } catch (err) {
        if (halted(err)) return;
        throw err;
      }
      if ('parked' in outcome) park(item, outcome.parked);
      else await record(item, outcome, true);
    }
  };

  const workers = Array.from({ length: Math.max(1, opts.concurrency) }, () => worker());
  // A worker that throws (a bug, a reader failure) must not leave the others unwatched.
  const settled = await Promise.allSettled(workers);
  // Parked rows settle after the last row was taken (or the run stopped: their waits end).
  while (parked.size > 0) await Promise.allSettled([...parked]);
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected') ?? parkFailure;
  // Close the input (its file stream) when the run ends before the last row.
  if (!exhausted) await iterator.return?.(undefined);
  if (fatal !== undefined) throw fatal;
  if (failure) throw failure.reason;
  const interrupted = stopped || (!exhausted && !tripped && opts.signal.aborted);
  return { counts, processed, interrupted, ...(tripped && !interrupted ? { tripped } : {}) };
}
