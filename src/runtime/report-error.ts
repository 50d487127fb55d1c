/**
 * Errors → stderr and exit code, in one place (README.md § Errors and exit codes): `error: <title>: <detail>`
 * plus field and error id, never a stack trace without --verbose, `{"errors":[...]}` with -o json.
 */
import { retryAfterMs } from '../api/jsonapi.js';
import { ApiError, describeErrno, errnoCode, ExitCode, SvcError, type ApiErrorObject } from '../errors.js';
import { terminalSafe, terminalSafeJson, terminalSafeLines } from '../output/terminal-text.js';

/** What reporting needs of the surrounding command. */
interface ErrorReportTarget {
  stderr: NodeJS.WritableStream;
  verbose: boolean;
  json: boolean;
  redact: (s: string) => string;
}

/** Prints the error and returns the exit code. */
export function reportError(err: unknown, t: ErrorReportTarget): number {
  const lines: string[] = [];
  let code: number = ExitCode.API;
  let jsonErrors: ApiErrorObject[] = [];
  if (err instanceof ApiError) {
    code = err.exitCode;
    lines.push(`error: ${err.message}${describeExtras(err.errors[0])}`);
    for (const e of err.errors.slice(1))
      lines.push(`error: ${e.title ?? e.id ?? 'error'}${e.detail ? `: ${e.detail}` : ''}${describeExtras(e)}`);
    for (const h of err.hints) lines.push(`hint: ${h}`);
    const retry = (err.status === 429 || err.status === 503) && err.retryAfter ? describeRetryAfter(err.retryAfter, Date.now()) : undefined;
    if (retry) lines.push(`hint: the service asks to retry after ${retry}`);
    jsonErrors = err.errors.length ? err.errors : [{ status: String(err.status), title: err.message }];
  } else if (err instanceof SvcError) {
    code = err.exitCode;
    lines.push(`error: ${err.message}`);
    for (const h of err.hints) lines.push(`hint: ${h}`);
    jsonErrors = [{ title: err.name, detail: err.message }];
  } else if (errnoCode(err) && (err as { syscall?: unknown }).syscall) {
    // A file or stream the command used failed (a full disk, a permission): the user's to fix.
    const e = err as NodeJS.ErrnoException;
    const msg = `cannot ${e.syscall}${e.path ? ` ${e.path}` : ''}: ${describeErrno(e)}`;
    lines.push(`error: ${msg}`);
    jsonErrors = [{ title: 'local I/O failed', detail: msg }];
  } else if (err instanceof RangeError && /call stack/i.test(err.message)) {
    const msg = 'the data is nested too deeply to process';
    lines.push(`error: ${msg}`);
    jsonErrors = [{ title: 'data too deep', detail: msg }];
  } else {
    const msg = err instanceof Error ? err.message : String(err);
    lines.push(`error: unexpected failure: ${msg}`);
    if (!t.verbose) lines.push('hint: run again with --verbose for details');
    jsonErrors = [{ title: 'unexpected failure', detail: msg }];
  }
  // Titles and details come from the server, messages from input files: one line each, and
  // nothing in them may drive the terminal. The JSON line escapes what JSON.stringify leaves raw.
  const shown = lines.map(terminalSafe);
  if (t.verbose && err instanceof Error && err.stack) shown.push(terminalSafeLines(err.stack));
  let text = shown.join('\n') + '\n';
  if (t.json) text += terminalSafeJson(JSON.stringify({ errors: jsonErrors })) + '\n';
  t.stderr.write(t.redact(text));
  return code;
}

function describeExtras(e: ApiErrorObject | undefined): string {
  if (!e) return '';
  const parts: string[] = [];
  const field = e.source?.pointer ?? e.source?.parameter;
  if (field) parts.push(`field ${field}`);
  if (e.id) parts.push(`id ${e.id}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/**
 * A `Retry-After` the client did not wait out (too long, or the retries ran out), for people:
 * `3600 s (at 2025-01-01T12:00:00Z)` or the time it names. Undefined when it is under a second
 * away or cannot be read.
 */
export function describeRetryAfter(value: string, now: number): string | undefined {
  const ms = retryAfterMs(value, now);
  if (ms === undefined || ms < 1000) return undefined;
  const at = new Date(now + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return /^\d+$/.test(value.trim()) && Number(value) < 1e9 ? `${Number(value)} s (at ${at})` : at;
}
