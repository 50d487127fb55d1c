/**
 * A file named on the command line that cannot be read, as one line naming it, what is wrong and
 * the fix: a usage error (exit 2) when the path is wrong or the file not readable (the user's to
 * fix), else a local I/O error. Never a bare errno code. A leaf module.
 */
import path from 'node:path';
import { describeErrno, errnoCode, LocalIoError, type SvcError, UsageError } from './errors.js';

/** `what`: which file (`--input`, `-f`, `the plan`); `fix`: what to do when it is not there. */
export function unreadableFile(what: string, file: string, err: unknown, fix: string): SvcError {
  const code = errnoCode(err);
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return new UsageError(`${what} ${file}: no such file (looked for ${path.resolve(file)}); ${fix}`);
  if (code === 'EISDIR') return new UsageError(`${what} ${file}: is a directory, not a file; ${fix}`);
  if (code === 'EACCES' || code === 'EPERM')
    return new UsageError(`${what} ${file}: permission denied; make the file readable (chmod u+r ${file}) or pass a copy you can read`);
  return new LocalIoError(`${what} ${file}: cannot read the file: ${describeErrno(err)}`);
}
