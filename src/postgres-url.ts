/**
 * PostgreSQL connection strings (`--db`, `--budget-ledger`), a leaf module: one that the URL
 * parser cannot read (a port that is no number, an unclosed bracket, a `@` or `/` of the password
 * not %-encoded) is a usage error naming the flag, never the string: it may hold a password. It
 * was "unexpected failure: Invalid URL", exit 1. And the string svc hands the driver, with what
 * its SSL modes mean said in svc's words (the mirror's and the shared budget's one way to it).
 */
import { UsageError } from './errors.js';

/** Throws unless `url` parses as a URL; `flag` names where it came from (`--db`, `SVC_DB`). */
export function checkPostgresUrl(url: string, flag: string): void {
  // A string without a host (`postgres://user@/db?host=/var/run/postgresql`, a Unix socket) is
  // one the driver reads: it puts a host in before parsing, and so does this check.
  if (!URL.canParse(url.replace(/^(postgres(?:ql)?:\/\/(?:[^@/?#]*@)?)(?=[/?#]|$)/i, '$1localhost'))) {
    throw new UsageError(
      `${flag} is not a connection string svc can read (a port that is no number, a bracket, or a character of the password)`,
    ).hint('write it postgres://USER@HOST:PORT/DATABASE, the password after USER and a colon, its @ : / ? # %-encoded (%40 for @)');
  }
  // libpq's verify-ca without the CA: the driver throws it from its constructor as a paragraph
  // headed "SECURITY WARNING" (it was svc's "unexpected failure").
  if (libpqModes(url) && /[?&]sslmode=verify-ca(?=[&#]|$)/.test(url) && !/[?&]sslrootcert=/.test(url)) {
    throw new UsageError(`${flag} asks for sslmode=verify-ca, which needs the certificate of the server's CA`).hint(
      'add sslrootcert=FILE (that certificate) to the connection string, or write sslmode=verify-full',
    );
  }
}

/** `uselibpqcompat=true`: the driver gives the SSL modes libpq's meaning. */
function libpqModes(url: string): boolean {
  return /[?&]uselibpqcompat=true(?=[&#]|$)/.test(url);
}

/**
 * The connection string handed to the driver (`pg`): sslmode prefer, require and verify-ca as
 * `verify-full`, which is what pg 8 does with them: it checks the server's certificate and name
 * (pg-connection-string's parse gives all four the same TLS options). Named so, the driver checks
 * the same and does not print its paragraph about it: pg-connection-string since 2.9.1 (pg 8.16.1)
 * emits a process warning of nine lines, "SECURITY WARNING: The SSL modes 'prefer', 'require',
 * and 'verify-ca' are treated as aliases for 'verify-full'" (Node writes it on stderr, any Node
 * version, unless NODE_NO_WARNINGS), before svc's output or its one-line error; and pg 9, which
 * gives those modes libpq's weaker meaning, will keep svc's check as it is. With
 * `uselibpqcompat=true` the user asked for libpq's meaning: the string is left as written. What
 * the check means for a server without SSL or with a certificate of its own is said with svc's
 * error ({@link sslFix}).
 */
export function driverConnectionString(url: string): string {
  if (libpqModes(url)) return url;
  const query = url.indexOf('?');
  if (query < 0) return url;
  return url.slice(0, query) + url.slice(query).replace(/([?&]sslmode=)(?:prefer|require|verify-ca)(?=[&#]|$)/g, '$1verify-full');
}

/**
 * The fix of a connection the driver's TLS refused, one line: a server without SSL, or a
 * certificate that does not verify (svc verifies every sslmode but disable and no-verify, see
 * {@link driverConnectionString}); undefined for any other message.
 */
export function sslFix(message: string): string | undefined {
  if (/does not support SSL/i.test(message)) {
    return 'the server takes no SSL: have SSL turned on there, or, on a network you trust, write sslmode=disable in the connection string';
  }
  if (/certificate|altnames/i.test(message)) {
    return "svc checks the server's certificate and name for every sslmode but disable and no-verify: name its CA with sslrootcert=FILE, or write sslmode=no-verify to encrypt without the check";
  }
  return undefined;
}
