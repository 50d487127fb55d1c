/**
 * Error classes thrown anywhere in svc and mapped to exit codes in one place (runtime/report-error.ts).
 * A leaf module: imports nothing, so every layer may use it.
 */

/** Exit codes (README.md § Errors and exit codes). */
export const ExitCode = {
  OK: 0,
  API: 1,
  USAGE: 2,
  AUTH: 3,
  PERMISSION: 4,
  PARTIAL: 5,
  /** `svc runs`: no recorded run has that id. */
  RUN_UNKNOWN: 10,
  /** `svc runs undo`: the run was made in another org or against another base URL (a single write: with another profile). */
  RUN_ELSEWHERE: 11,
  /** `svc runs undo`: the run is already undone (undo the undo to redo it). */
  RUN_UNDONE: 12,
  /** `svc runs`: the run's record fails its integrity check (changed after svc wrote it). */
  RUN_TAMPERED: 13,
  INTERRUPTED: 130,
  /** A bulk run's stdout or stderr closed (`| head`), wound down as on Ctrl-C: 128 + SIGPIPE, as a shell reports a writer the pipe ended. */
  OUTPUT_CLOSED: 141,
  /** Stopped by SIGTERM (a cancelled CI job, `timeout`), wound down as on Ctrl-C. */
  TERMINATED: 143,
} as const;

/** One error object of a JSON:API error document. */
export interface ApiErrorObject {
  id?: string;
  status?: string;
  title?: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

/** Base of every error svc reports on purpose; anything else is a bug (stack shown with --verbose). */
export class SvcError extends Error {
  readonly exitCode: number;
  /** Extra lines printed after the main message (hints). */
  hints: string[] = [];
  constructor(message: string, exitCode: number) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
  /** Adds a hint line printed under the error. */
  hint(line: string): this {
    this.hints.push(line);
    return this;
  }
}

/** Bad command line or input: nothing was sent (exit 2). */
export class UsageError extends SvcError {
  constructor(message: string) {
    super(message, ExitCode.USAGE);
  }
}

/** Not logged in, token rejected or not refreshable (exit 3). */
export class AuthError extends SvcError {
  constructor(message: string) {
    super(message, ExitCode.AUTH);
  }
}

/** The API answered with an error document or an unexpected status. */
export class ApiError extends SvcError {
  readonly status: number;
  readonly errors: ApiErrorObject[];
  /** Seconds or ISO time from `Retry-After`, when sent. */
  readonly retryAfter: string | undefined;
  /** The answer's headers, when it came from the API (`svc api -i` prints them before the error). */
  headers: Record<string, string | string[] | undefined> | undefined;
  /** The answer's body as received, when it came from the API (`svc api` prints it on stdout). */
  body: string | undefined;
  constructor(status: number, errors: ApiErrorObject[], message?: string, retryAfter?: string) {
    const first = errors[0];
    super(message ?? describeApiError(status, first), exitCodeForStatus(status));
    this.status = status;
    this.errors = errors;
    this.retryAfter = retryAfter;
  }
}

/** Connection refused, reset, timeout, DNS failure (exit 1). */
export class NetworkError extends SvcError {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message, ExitCode.API);
    this.code = code;
  }
}

/** Network failures that happen before a request leaves: even a create may be sent again. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** True when the request certainly did not reach the server (the connection was never made). */
export function neverSent(err: NetworkError): boolean {
  return err.code !== undefined && NOT_SENT.has(err.code);
}

/** A bulk run finished with some failed rows (exit 5). */
export class PartialError extends SvcError {
  constructor(message: string) {
    super(message, ExitCode.PARTIAL);
  }
}

/** A recorded run cannot be used as asked (`svc runs`): unknown, elsewhere, undone, tampered. */
export class RunRecordError extends SvcError {}

/** The user pressed Ctrl-C (exit 130). */
export class InterruptedError extends SvcError {
  constructor(message = 'interrupted') {
    super(message, ExitCode.INTERRUPTED);
  }
}

/** 401 → 3, 403 → 4, anything else → 1. */
export function exitCodeForStatus(status: number): number {
  if (status === 401) return ExitCode.AUTH;
  if (status === 403) return ExitCode.PERMISSION;
  return ExitCode.API;
}

/** The `<title>: <detail>` of an `error:` line, falling back to the HTTP status. */
function describeApiError(status: number, e: ApiErrorObject | undefined): string {
  if (!e) return `HTTP ${status}`;
  const title = e.title ?? e.id ?? `HTTP ${status}`;
  return e.detail && e.detail !== title ? `${title}: ${e.detail}` : title;
}

/**
 * A local file or stream could not be read or written — a full disk, a permission, a path that
 * is not a file (exit 1: unlike a usage error, requests may already have gone out).
 */
export class LocalIoError extends SvcError {
  constructor(message: string) {
    super(message, ExitCode.API);
  }
}

const ERRNO_TEXT: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EROFS: 'read-only file system',
  EIO: 'input/output error',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ENOENT: 'no such file or directory',
  EEXIST: 'already exists',
  EMFILE: 'too many open files',
  ENAMETOOLONG: 'file name too long',
};

/** The errno code of a Node system error (`ENOSPC`), if `err` is one. */
export function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/** `no space left on device (ENOSPC)`: a system error in words, for error lines. */
export function describeErrno(err: unknown): string {
  const code = errnoCode(err);
  if (!code) return err instanceof Error ? err.message : String(err);
  return ERRNO_TEXT[code] ? `${ERRNO_TEXT[code]} (${code})` : code;
}
