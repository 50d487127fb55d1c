/**
 * A PostgreSQL connection string (`--db`, `--budget-ledger`) that the URL parser cannot read (a
 * port that is no number, an unclosed bracket, a `@` or `/` of the password not %-encoded), as a
 * usage error naming the flag, never the string: it may hold a password. It was "unexpected
 * failure: Invalid URL", exit 1. A leaf module.
 */
import { UsageError } from './errors.js';

/** Throws unless `url` parses as a URL; `flag` names where it came from (`--db`, `SVC_DB`). */
export function checkPostgresUrl(url: string, flag: string): void {
  // A string without a host (`postgres://user@/db?host=/var/run/postgresql`, a Unix socket) is
  // one the driver reads: it puts a host in before parsing, and so does this check.
  if (URL.canParse(url.replace(/^(postgres(?:ql)?:\/\/(?:[^@/?#]*@)?)(?=[/?#]|$)/i, '$1localhost'))) return;
  throw new UsageError(
    `${flag} is not a connection string svc can read (a port that is no number, a bracket, or a character of the password)`,
  ).hint('write it postgres://USER@HOST:PORT/DATABASE, the password after USER and a colon, its @ : / ? # %-encoded (%40 for @)');
}
