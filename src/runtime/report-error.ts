/**
 * Errors → stderr and exit code, in one place (README.md § Errors and exit codes): `error: <title>: <detail>`
 * plus field and error id, never a stack trace without --verbose, `{"errors":[...]}` with -o json.
 */
import { retryAfterMs } from '../api/jsonapi.js';
import { redactText } from '../api/redact.js';
import { ApiError, describeErrno, errnoCode, ExitCode, SvcError, type ApiErrorObject } from '../errors.js';
import { fitLines, terminalSafe, terminalSafeJson, terminalSafeLines } from '../output/terminal-text.js';
import type { Context } from './context.js';
import { svcAgain } from './svc-again.js';

/** What reporting needs of the surrounding command. */
interface ErrorReportTarget {
  stderr: NodeJS.WritableStream;
  verbose: boolean;
  json: boolean;
  redact: (s: string) => string;
  /** The terminal's width on stderr, to which each line is fitted; undefined: lines whole (output/io.ts `stderrWidth`). */
  width?: number;
  /** The command's context, when it got that far: hints name svc as the user ran it. */
  ctx?: Context;
}

/** Prints the error and returns the exit code. */
export function reportError(err: unknown, t: ErrorReportTarget): number {
  const described = describeError(err, t.verbose);
  const { code, jsonErrors } = described;
  const svc = t.ctx ? svcAgain(t.ctx) : 'svc';
  const lines = described.lines.map((l) => (l.startsWith('hint: ') ? asRun(l, svc) : l));
  // Titles and details come from the server, messages from input files: one line each, and
  // nothing in them may drive the terminal. The JSON line escapes what JSON.stringify leaves raw.
  // On a terminal the error and hint lines are broken between words to its width (redacted
  // first: a secret split in two would not be recognised); the stack and the JSON line stay whole.
  const shown = lines.map((l) => fitLines(t.redact(terminalSafe(l)), t.width));
  if (t.verbose && err instanceof Error && err.stack) shown.push(t.redact(terminalSafeLines(err.stack)));
  let text = shown.join('\n') + '\n';
  if (t.json) text += jsonErrorsLine(jsonErrors, t.redact);
  t.stderr.write(text);
  return code;
}

/** The `{"errors":[...]}` line of `-o json`: one line, redacted, nothing in it that drives a terminal. */
function jsonErrorsLine(errors: ApiErrorObject[], redact: (s: string) => string): string {
  return redact(terminalSafeJson(JSON.stringify({ errors }))) + '\n';
}

/**
 * The `{"errors":[...]}` line for a usage error commander reported while reading the command
 * line (an unknown option or command, a missing argument), its text already written: with
 * `-o json` scripts get it as for every other usage error (`--fitler x -o json` wrote text only).
 * @param message commander's message: `error: …`, then maybe its "(Did you mean …?)" line
 */
export function reportParseErrorJson(message: string, stderr: NodeJS.WritableStream): void {
  const detail = message.split('\n')[0]!.replace(/^error: /, '');
  stderr.write(jsonErrorsLine([{ title: 'UsageError', detail }], redactText));
}

/**
 * A hint's commands as the user ran svc (runtime/svc-again.ts): layers below the commands write
 * `svc sync --rebuild` or `svc login --scopes …`, which after `svc --profile eu …` rebuilt or
 * logged in the default profile's. A command already naming --sandbox or --profile, and `svc
 * sandbox` (a server, no org's), stay as written.
 */
function asRun(line: string, svc: string): string {
  if (svc === 'svc') return line;
  return line.replace(/`svc (?!--sandbox|--profile|sandbox\b)/g, `\`${svc} `);
}

/** What is said of an error: its `error:` and `hint:` lines, its exit code, and its errors for `-o json`. */
interface Described {
  lines: string[];
  code: number;
  jsonErrors: ApiErrorObject[];
}

function describeApiError(err: ApiError): Described {
  const lines = [`error: ${err.message}${describeExtras(err.errors[0])}`];
  for (const e of err.errors.slice(1))
    lines.push(`error: ${e.title ?? e.id ?? 'error'}${e.detail ? `: ${e.detail}` : ''}${describeExtras(e)}`);
  for (const h of err.hints) lines.push(`hint: ${h}`);
  const retry = (err.status === 429 || err.status === 503) && err.retryAfter ? describeRetryAfter(err.retryAfter, Date.now()) : undefined;
  if (retry) lines.push(`hint: the service asks to retry after ${retry}`);
  const jsonErrors = err.errors.length ? err.errors : [{ status: String(err.status), title: err.message }];
  return { lines, code: err.exitCode, jsonErrors };
}

function describeError(err: unknown, verbose: boolean): Described {
  if (err instanceof ApiError) return describeApiError(err);
  if (err instanceof SvcError)
    return {
      lines: [`error: ${err.message}`, ...err.hints.map((h) => `hint: ${h}`)],
      code: err.exitCode,
      jsonErrors: [{ title: err.name, detail: err.message }],
    };
  if (errnoCode(err) && (err as { syscall?: unknown }).syscall) {
    // A file or stream the command used failed (a full disk, a permission): the user's to fix.
    const e = err as NodeJS.ErrnoException;
    const msg = `cannot ${e.syscall}${e.path ? ` ${e.path}` : ''}: ${describeErrno(e)}`;
    return { lines: [`error: ${msg}`], code: ExitCode.API, jsonErrors: [{ title: 'local I/O failed', detail: msg }] };
  }
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    const msg = 'the data is nested too deeply to process';
    return { lines: [`error: ${msg}`], code: ExitCode.API, jsonErrors: [{ title: 'data too deep', detail: msg }] };
  }
  const msg = err instanceof Error ? err.message : String(err);
  return {
    lines: [`error: unexpected failure: ${msg}`, ...(verbose ? [] : ['hint: run again with --verbose for details'])],
    code: ExitCode.API,
    jsonErrors: [{ title: 'unexpected failure', detail: msg }],
  };
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
