/**
 * Where a profile's mirror lives and whose org it is: `mirror.<profile>.sqlite` in the data
 * directory (owner-only, like every file of svc's that holds data), or `--db FILE`; or, with
 * `--db postgres://…` (or `SVC_DB`), a schema on a PostgreSQL server: `--schema`, else
 * `SVC_DB_SCHEMA`, else `svc_<profile>`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { dataDir } from '../../auth/config-dir.js';
import { UsageError } from '../../errors.js';
import { checkPostgresUrl } from '../../postgres-url.js';
import { notAFile } from '../../private-file.js';
import { isPostgresUrl, schemaFor } from '../../mirror/dialect/postgres.js';
import type { MirrorIdentity, MirrorTarget } from '../../mirror/store.js';
import type { Context } from '../../runtime/context.js';
import { unknownProfile } from '../../runtime/connection.js';
import { ownerApi, runOwner } from '../shared/org-owner.js';

/** The mirror file of the command's profile (its directory made, owner-only). */
async function mirrorFile(ctx: Context, db: string | undefined): Promise<string> {
  if (db !== undefined) return path.resolve(db);
  const dir = dataDir(ctx.env);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return path.join(dir, `mirror.${encodeURIComponent(await mirrorName(ctx))}.sqlite`);
}

/** Where the command's mirror is: `--db`, else `SVC_DB`, else the profile's file. */
export async function mirrorTarget(ctx: Context, flags: { db?: string; schema?: string }): Promise<MirrorTarget> {
  const db = flags.db ?? (ctx.env.SVC_DB || undefined);
  if (isPostgresUrl(db)) {
    checkPostgresUrl(db, flags.db !== undefined ? '--db' : 'SVC_DB');
    const schema = flags.schema ?? (ctx.env.SVC_DB_SCHEMA || schemaFor(await mirrorName(ctx)));
    // Lower case only: PostgreSQL folds a name written without quotes to lower case, so a schema
    // "Acme" that svc made would be another than the acme that psql, a grant or a BI tool reads.
    if (!/^[a-z_][a-z0-9_$]{0,62}$/.test(schema)) {
      throw new UsageError(`--schema ${JSON.stringify(schema)} is not a schema name svc makes`).hint(
        /^[A-Za-z_][\w$]{0,62}$/.test(schema)
          ? `use lower-case letters, digits and _, as psql reads a name written without quotes: --schema ${schema.toLowerCase()} (a mirror an earlier svc made in "${schema}" keeps its rows there once renamed: ALTER SCHEMA "${schema}" RENAME TO ${schema.toLowerCase()})`
          : 'use lower-case letters, digits and _ (at most 63), as psql reads a name written without quotes',
      );
    }
    return { kind: 'postgres', url: db, schema };
  }
  if (db !== undefined) notAFileName(db, flags.db !== undefined ? '--db' : 'SVC_DB');
  if (flags.schema !== undefined) {
    throw new UsageError('--schema is for a mirror on PostgreSQL').hint('give --db postgres://USER@HOST/DB (or set SVC_DB) with it');
  }
  const file = await mirrorFile(ctx, db);
  // Checked here, where every command finds its mirror, before any request (a sync reads the org's
  // identity next): SQLite reads a device as an empty file and failed on the first write ("disk
  // I/O error", exit 1); a `svc sql` hint said to delete it.
  const notFile = notAFile(file);
  if (notFile)
    throw new UsageError(`the mirror ${file} is ${notFile}, not a file`).hint('choose a file with --db (svc makes it on the first sync)');
  const elsewhere = db === undefined ? sandboxMirrorHint(ctx, file) : undefined;
  return { kind: 'file', file, ...(flags.db !== undefined ? { named: true } : {}), ...(elsewhere ? { elsewhere } : {}) };
}

/**
 * For a profile's mirror not made yet, beside one `svc --sandbox sync` made: how to read that one.
 * The README's questions are written `svc sql …`; after `svc --sandbox sync` they said "no mirror
 * yet" and nothing of the sandbox's (a trial).
 */
function sandboxMirrorHint(ctx: Context, file: string): string | undefined {
  if (ctx.globals.sandbox || ctx.globals.sandboxData !== undefined || fs.existsSync(file)) return undefined;
  const sandbox = path.join(path.dirname(file), 'mirror.sandbox.sqlite');
  return fs.existsSync(sandbox) ? "the sandbox's mirror (made by `svc --sandbox sync`) is read with `svc --sandbox sql …`" : undefined;
}

/**
 * Refuses a --db that is meant as a server but is no postgres:// URL: a misspelt scheme
 * (`postgress://`, `postgres:user@…`) or a key=value connection string. Each was taken for a
 * SQLite file name, a file made under it and its name, password and all, printed; the sync
 * "succeeded" (a trial). The value is never repeated: it may hold a password.
 */
function notAFileName(db: string, flag: string): void {
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(db)?.[1];
  const keywords = /(?:^|\s)(?:host|hostaddr|port|dbname|user|password|sslmode|service)\s*=/i.test(db);
  if (scheme === undefined && !keywords) return;
  throw new UsageError(
    `${flag} ${scheme !== undefined ? `starts with "${scheme}:"` : 'is a key=value connection string'}: svc takes a postgres:// connection string or a SQLite file name`,
  ).hint('write it postgres://USER@HOST:PORT/DATABASE (the password after USER and a colon), or a file name such as ./mirror.sqlite');
}

/**
 * Whose mirror the command means, without connecting (`svc sql` reads a file and needs no API,
 * nor a sandbox started for it): the profile's name; `sandbox` for the local sandbox, and for a
 * copy served with `--sandbox-data FILE`, `sandbox-<file name>` (a copy is another org).
 */
async function mirrorName(ctx: Context): Promise<string> {
  const g = ctx.globals;
  if (g.sandboxData !== undefined) return `sandbox-${path.basename(g.sandboxData).replace(/\.json$/i, '')}`;
  if (g.sandbox) return 'sandbox';
  const store = await ctx.config();
  const name = store.currentName();
  // `--profile emeax`: svc sql said "no mirror yet" and to run `svc --profile emeax sync`, which
  // then refused the name (a trial). The name is the problem, as the connection says it.
  if (g.profile !== undefined && !store.get(name) && store.names().length > 0) throw await unknownProfile(name, store.names());
  return name;
}

/**
 * The org the connection reaches (one `GET {base_url}`): a local sandbox by its org's instance
 * id, since its port changes between runs; any other API by its base URL.
 */
export async function mirrorIdentity(ctx: Context): Promise<MirrorIdentity> {
  const owner = await runOwner(ctx, 'sync');
  return {
    baseUrl: ownerApi(owner),
    orgId: owner.org ?? '',
    orgName: owner.orgName ?? '',
  };
}
