/**
 * The input side that bulk commands share: saying how a file was read when it is not plain
 * UTF-8 with commas, and the failed-rows file of `--failed`.
 */
import { checkFailedPath, FailedRows } from '../../bulk/run/failed-rows.js';
import { describeDialect, type InputDialect, type InputFormat, type ReadOptions } from '../../bulk/input/readers.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import type { BulkSession, BulkSetup } from './session.js';
import { grouped } from '../../grouped.js';

/** One stderr line when the file is not UTF-8 or not comma-separated: a wrong guess shows at once. */
export function noteDialect(ctx: Context, file: string, dialect: InputDialect, format: InputFormat): void {
  const text = describeDialect(dialect, format);
  if (text) ctx.info(`${file}: ${text}`);
}

/**
 * Checks `--failed` before the run (before the session opens, so that a refusal leaves nothing open).
 * @throws UsageError when there is no input file or the file cannot be written
 */
export function failedRows(setup: BulkSetup, input: string | undefined): FailedRows | undefined {
  if (setup.failedPath === undefined) return undefined;
  if (input === undefined) throw new UsageError("--failed works with --input FILE (it writes the failed rows in that file's format)");
  checkFailedPath(setup.failedPath, input);
  return new FailedRows(setup.failedPath);
}

/** Lets `failed` note every failed row the session reports. */
export function collectFailed(session: BulkSession, failed: FailedRows | undefined): void {
  if (failed) session.report = failed.collect(session.report);
}

/**
 * Writes the failed rows (when `--failed` was given) and says how to rerun them.
 * @param early the run stopped before every row was tried (circuit breaker, Ctrl-C)
 */
export async function writeFailedRows(
  ctx: Context,
  failed: FailedRows | undefined,
  input: string,
  opts: ReadOptions,
  bareKey: string,
  early: boolean,
): Promise<void> {
  if (!failed) return;
  const n = await failed.write(input, opts, bareKey);
  const rows = `${grouped(n)} failed row(s) written to ${failed.file} with an error column`;
  // Rows never tried are not in the file: only a rerun of the same command does them (and
  // sending the fixed rows from both files would do them twice).
  if (early)
    ctx.info(
      `${rows}; the run stopped before the rest: fix the cause in ${input} and run the same command again, which also resends these`,
    );
  else if (n > 0) ctx.info(`${rows}: fix them, then run the same command with --input ${failed.file}`);
  else ctx.info(`no failed rows: ${failed.file} holds none`);
}
