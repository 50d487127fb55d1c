/**
 * The PostgreSQL side of the mirror's database (types.ts): one schema per profile on a server
 * a team shares, through `pg` (loaded with `import()` by the commands that use it only).
 *
 * - Typed columns: ids `bigint`, date-times `timestamptz`, lists and objects `jsonb`, booleans
 *   `boolean`; read back by `svc sql` as the SQLite mirror prints them (ISO date-times, JSON text).
 * - A page is written by `COPY … FROM STDIN` (pg-copy-streams; the text format, copy-text.ts)
 *   into a temporary staging table of the table's columns, then one `INSERT … SELECT … ON
 *   CONFLICT … DO UPDATE` from it, in the page's transaction (bench/README.md: against the page
 *   as one `jsonb` parameter cast on the server, for 20,000 prospects the server's CPU −41 %, the
 *   wall −25 % on Node 26 and −49 % on Node 20; that one had beaten multi-row VALUES). A page
 *   none of whose keys is in the table yet (a first sync) goes by COPY straight into it. A role
 *   that may not make temporary tables merges by that `jsonb` statement.
 * - Several syncers: each holds a session advisory lock per table while it syncs it (the lease:
 *   a crashed syncer's connection closes and its lease goes with it), and serialises setup
 *   (schema, tables, views) with a transaction advisory lock. Readers see committed pages only.
 * - Read-only handles run in one `READ ONLY` transaction, every statement by the extended
 *   protocol (one statement at a time: no `COMMIT; …` smuggled behind a query).
 * - The password never leaves this file: messages name the server by {@link redactDbUrl}.
 */
import { ExitCode, NetworkError, SvcError, UsageError } from '../../errors.js';
import { driverConnectionString, sslFix } from '../../postgres-url.js';
import { quoteId } from '../naming.js';
import { mapNamedParams } from '../named-params.js';
import type { SqlRow, SqlValue } from '../sqlite.js';
import { copyText, sentColumns } from './copy-text.js';
import { type ColumnKind, type MirrorDb, NUMBER_TEXT_MAX, type QueryResult, type Relation, type WriteColumn } from './types.js';

/** Rows fetched from a cursor at a time. */
const READ_PAGE = 500;

const TYPES: Record<ColumnKind, string> = {
  id: 'bigint',
  string: 'text',
  integer: 'bigint',
  number: 'double precision',
  boolean: 'boolean',
  date: 'date',
  'date-time': 'timestamptz',
  'string[]': 'jsonb',
  object: 'jsonb',
  array: 'jsonb',
};

/** Whether `--db`/`SVC_DB` names a PostgreSQL server rather than a file. */
export function isPostgresUrl(db: string | undefined): db is string {
  return db !== undefined && /^postgres(ql)?:\/\//i.test(db);
}

/**
 * The connection string with its password (in the user part or a `password=` parameter) as `***`.
 * The user part ends at the authority's last `@` (PostgreSQL reads `u:Tail@Leak99@host` so): a
 * password holding an `@` was hidden up to it only, and its rest printed (`u:***@Leak99@host`).
 */
function redactDbUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/?#]*:)[^/?#]*@/i, '$1***@').replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/** A schema name as svc makes it from a profile's: `svc_` and the name, lower-case, `[a-z0-9_]`. */
export function schemaFor(profile: string): string {
  return `svc_${profile.toLowerCase().replace(/[^a-z0-9_]+/g, '_')}`.slice(0, 63);
}

/** Options of {@link openPostgres}. */
interface PgOpenOptions {
  url: string;
  schema: string;
  readOnly?: boolean;
}

/** A numeric's text as a number when it has at most 15 significant digits, else as given. */
function numericValue(v: string): number | string {
  const n = Number(v);
  const digits = v
    .replace(/^[-+]?0*/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Number.isFinite(n) && digits.length <= 15 ? n : v;
}

/**
 * Whether the schema exists (a row) and the role may look inside it (`usage`). Without USAGE,
 * `SET search_path` to it succeeds and every statement after it says only that `_svc_mirror`
 * does not exist (a trial): asked here, so that the role is refused in one line with the fix.
 */
const USAGE_OF_SCHEMA = "SELECT has_schema_privilege(oid, 'USAGE') AS usage FROM pg_namespace WHERE nspname = ?";

/** Connects to the server and enters the schema (made, unless read-only). */
export async function openPostgres(opts: PgOpenOptions): Promise<MirrorDb> {
  const pg = (await import('pg')).default;
  const where = `${redactDbUrl(opts.url)} (schema ${opts.schema})`;
  const secrets = secretsOf(opts.url);
  const fail = (err: unknown) => pgError(err, where, opts.schema, secrets);
  const parsers: Record<number, (v: string) => unknown> = {
    // int8: a number where it is exact, else a BigInt (ids past 2^53 keep their digits).
    20: (v) => (Number.isSafeInteger(Number(v)) ? Number(v) : BigInt(v)),
    // numeric (what `100.0 * a / b`, avg() and round(x, 1) give): a number where a double holds
    // it exactly, as SQLite answers; it came back as text ("10.0"), and a script's jq filters broke
    // when a team moved to the shared mirror (a trial). Longer values keep their digits as text.
    1700: numericValue,
    // date-times as the SQLite mirror and the API write them: ISO, UTC. A timestamp without a
    // zone (`… at time zone 'Europe/Berlin'`) is a wall-clock time: ISO without Z, not read as UTC.
    1184: isoTime,
    1114: (v) => v.replace(' ', 'T'),
    1082: (v) => v,
    // json and jsonb as their text, as the SQLite mirror holds them.
    114: (v) => v,
    3802: (v) => v,
  };
  const client = new pg.Client({
    connectionString: driverConnectionString(opts.url),
    // Which mirror a connection is, in pg_stat_activity (the server cuts the name at 63 bytes).
    application_name: `svc mirror ${opts.schema}`,
    connectionTimeoutMillis: 15_000,
    keepAlive: true,
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => parsers[oid] ?? pg.types.getTypeParser(oid, format)) as never },
  });
  // A server that goes away between queries emits 'error' on the client: the next query reports it.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw fail(err);
  }
  /**
   * One statement. svc's own are written with `?` placeholders (numbered here); a user's
   * (`svc sql`, `user`) comes with `$n` already, and its `?` are the user's: jsonb's `?` and `?|`
   * operators, a `?` in a string or a pattern.
   */
  const q = async (
    text: string,
    params: readonly SqlValue[] = [],
    user = false,
  ): Promise<{ rows: SqlRow[]; fields: { name: string }[] }> => {
    try {
      const r = await client.query({ text: user ? text : numbered(text), values: params.map(pgValue), queryMode: 'extended' } as never);
      return r as unknown as { rows: SqlRow[]; fields: { name: string }[] };
    } catch (err) {
      throw fail(err);
    }
  };
  const key = (what: string) => `svc-mirror:${opts.schema}:${what}`;
  try {
    if (opts.readOnly) {
      await q('BEGIN READ ONLY');
      const has = await q(USAGE_OF_SCHEMA, [opts.schema]);
      if (has.rows.length === 0) {
        throw new UsageError(`no mirror yet in ${where}`).hint('run `svc sync --db URL` first (with --schema, the same schema)');
      }
      if ((has.rows[0]!.usage as unknown) !== true)
        throw schemaRefused('read', opts.schema, where, `permission denied for schema ${opts.schema}`);
    } else {
      await q('BEGIN');
      await q('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [key('setup')]);
      // Made only when missing: CREATE SCHEMA checks the right to create schemas first, which
      // a role given only a schema of its own does not need.
      const has = await q(USAGE_OF_SCHEMA, [opts.schema]);
      if (has.rows.length === 0) await q(`CREATE SCHEMA ${quoteId(opts.schema)}`);
      else if ((has.rows[0]!.usage as unknown) !== true)
        throw schemaRefused('write', opts.schema, where, `permission denied for schema ${opts.schema}`);
      await q('COMMIT');
    }
    await q(`SET ${opts.readOnly ? 'LOCAL ' : ''}search_path TO ${quoteId(opts.schema)}`);
  } catch (err) {
    await client.end().catch(() => {});
    throw err instanceof UsageError || err instanceof NetworkError ? err : fail(err);
  }
  let cursors = 0;
  // The staging tables of COPY on this connection, by their columns: temporary, the session's
  // own (another syncer's are its own), made at the first write of a table. One made in a
  // transaction that rolls back goes with it: `madeInTx` forgets it then.
  const stages = new Map<string, string>();
  let madeInTx: string[] | undefined;
  let staged = 0;
  // Whether the role may make temporary tables (TEMPORARY on the database: PUBLIC has it unless
  // an administrator revoked it); asked at the first write.
  let mayStage: boolean | undefined;
  const stagingTable = async (columns: readonly WriteColumn[]): Promise<string> => {
    const defs = columns.map((c) => `${quoteId(c.name)} ${TYPES[c.kind]}`).join(', ');
    const known = stages.get(defs);
    if (known) return known;
    const name = `_svc_copy_${++staged}`;
    await q(`CREATE TEMPORARY TABLE ${quoteId(name)} (${defs})`);
    stages.set(defs, `pg_temp.${quoteId(name)}`);
    madeInTx?.push(defs);
    return stages.get(defs)!;
  };
  let copyFrom: typeof import('pg-copy-streams').from | undefined;
  /** Sends `text` to a `COPY … FROM STDIN`; resolves when the server has taken it all. */
  const copyIn = async (sql: string, text: string): Promise<void> => {
    // The bundle keeps a CommonJS package as its default export (as `pg` above).
    copyFrom ??= (await import('pg-copy-streams')).default.from;
    const stream = client.query(copyFrom(sql));
    await new Promise<void>((resolve, reject) => {
      stream.on('error', (err) => reject(fail(err)));
      stream.on('finish', () => resolve());
      stream.end(text);
    });
  };
  return {
    dialect: 'postgres',
    binding: 'pg',
    where,
    keyedTableSuffix: '',
    columnType: (kind) => TYPES[kind],
    // No `?` in the pattern: statements here are written with `?` placeholders, numbered for pg.
    numberOf: (column) =>
      `(CASE WHEN length(trim(${column})) <= ${NUMBER_TEXT_MAX} AND ${column} ~ '^ *[-+]{0,1}([0-9]+\\.{0,1}[0-9]*|\\.[0-9]+)([eE][-+]{0,1}[0-9]{1,2}){0,1} *$' THEN trim(${column})::double precision END)`,
    exec: async (sql) => {
      // Several statements: one at a time (the extended protocol takes one).
      for (const s of sql.split(/;\s*(?=\S)/)) await q(s.replace(/;\s*$/, ''));
    },
    execOne: async (sql) => void (await q(sql, [], true)),
    run: async (sql, params) => void (await q(sql, params)),
    all: async (sql, params) => (await q(sql, params)).rows,
    get: async (sql, params) => (await q(sql, params)).rows[0],
    async tx(fn, o) {
      await q('BEGIN');
      madeInTx = [];
      try {
        if (o?.setup) await q('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [key('setup')]);
        const out = await fn();
        await q('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        for (const defs of madeInTx) stages.delete(defs);
        throw err;
      } finally {
        madeInTx = undefined;
      }
    },
    async write(table, columns, given, conflictKey, update) {
      if (given.length === 0) return;
      const names = columns.map((c) => quoteId(c.name)).join(', ');
      const set = update.map((c) => `${quoteId(c)} = EXCLUDED.${quoteId(c)}`).join(', ');
      const onConflict = ` ON CONFLICT (${conflictKey.map(quoteId).join(', ')}) ${set ? `DO UPDATE SET ${set}` : 'DO NOTHING'}`;
      const keys = conflictKey.map((k) => columns.findIndex((c) => c.name === k));
      // One row a key on every path: a COPY into the table would break its key with a second,
      // and an upsert refuses to touch a row twice in one statement.
      const rows = uniqueByKey(given, keys, set !== '');
      // None of the page's keys in the table yet (a first sync; a run's ids not seen before):
      // COPY straight into the table, no staging and no merge (for 20,000 prospects the server's
      // CPU −20 to −35 %, bench/README.md). Asked in the caller's transaction under the table's
      // lease: no other syncer adds a key in between. Asked of a superset of the page's keys,
      // which one index probe answers: an id column between the page's least and greatest,
      // another among its values (a false hit only sends the page the merging way; a first
      // sync's pages come in ascending ids, above every row already there).
      const where: string[] = [];
      const arrays: SqlValue[] = [];
      keys.forEach((k, j) => {
        const name = quoteId(conflictKey[j]!);
        if (columns[k]!.kind === 'id') {
          let least = rows[0]![k] as number | bigint;
          let greatest = least;
          for (const r of rows) {
            const v = r[k] as number | bigint;
            if (v < least) least = v;
            if (v > greatest) greatest = v;
          }
          where.push(`${name} BETWEEN ? AND ?`);
          arrays.push(least, greatest);
        } else {
          where.push(`${name} = ANY(?::${TYPES[columns[k]!.kind]}[])`);
          arrays.push([...new Set(rows.map((r) => pgValue(r[k] ?? null)))] as unknown as SqlValue);
        }
      });
      if ((await q(`SELECT 1 FROM ${quoteId(table)} WHERE ${where.join(' AND ')} LIMIT 1`, arrays)).rows.length === 0) {
        const sent = sentColumns(columns.length, rows, keys);
        await copyIn(`COPY ${quoteId(table)} (${sent.map((i) => quoteId(columns[i]!.name)).join(', ')}) FROM STDIN`, copyText(rows, sent));
        return;
      }
      mayStage ??= ((await q("SELECT has_database_privilege(current_database(), 'TEMPORARY') AS ok")).rows[0]?.ok as unknown) === true;
      if (!mayStage) {
        // No temporary tables for this role: the page's rows as one jsonb parameter, cast column
        // by column on the server (slower: bench/README.md).
        await q(
          `INSERT INTO ${quoteId(table)} (${names}) SELECT ${jsonbCasts(columns).join(', ')} FROM jsonb_array_elements(?::jsonb) AS r(v)${onConflict}`,
          [rowsJson(columns, rows)],
        );
        return;
      }
      // The page into an emptied staging table by COPY (the columns with a value in some row;
      // the rest stay NULL), then one upsert from it: all in the caller's transaction, so the
      // page and its cursor still commit together. Emptied first rather than after: a write
      // that failed half-way (outside a transaction) leaves nothing for the next to take.
      const stage = await stagingTable(columns);
      const sent = sentColumns(columns.length, rows, keys);
      await q(`TRUNCATE ${stage}`);
      await copyIn(`COPY ${stage} (${sent.map((i) => quoteId(columns[i]!.name)).join(', ')}) FROM STDIN`, copyText(rows, sent));
      await q(`INSERT INTO ${quoteId(table)} (${names}) SELECT ${names} FROM ${stage}${onConflict}`);
    },
    async deleteIn(targets) {
      // One statement for every table (data-modifying CTEs), each list one array parameter.
      const parts = targets.map((t) => `DELETE FROM ${quoteId(t.table)} WHERE ${quoteId(t.column)} = ANY(?::bigint[])`);
      const arrays = targets.map((t) => t.ids.map(pgValue) as unknown as SqlValue);
      if (parts.length === 1) await q(parts[0]!, arrays);
      else if (parts.length > 1) await q(`WITH ${parts.map((p, i) => `d${i} AS (${p})`).join(', ')} SELECT 1`, arrays);
    },
    relations: async () =>
      (
        await q(
          "SELECT c.relname AS name, c.relkind AS kind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind IN ('r', 'v', 'p', 'm') ORDER BY 1",
          [opts.schema],
        )
      ).rows.map((r) => ({ name: String(r.name), kind: r.kind === 'v' || r.kind === 'm' ? 'view' : 'table' }) as Relation),
    columnsOf: async (table) =>
      (
        await q(
          'SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position',
          [opts.schema, table],
        )
      ).rows.map((r) => ({ name: String(r.name), type: String(r.type) })),
    async lease(table, waiting) {
      const k = key(`table:${table}`);
      const got = await q('SELECT pg_try_advisory_lock(hashtextextended(?, 0)) AS ok', [k]);
      if ((got.rows[0]?.ok as unknown) !== true) {
        waiting();
        await q('SELECT pg_advisory_lock(hashtextextended(?, 0))', [k]);
      }
      return async () => void (await q('SELECT pg_advisory_unlock(hashtextextended(?, 0))', [k]));
    },
    async query(sql, params): Promise<QueryResult> {
      const { text, values } = namedToNumbered(sql, params);
      const body = text.trim().replace(/;\s*$/, '');
      if (!/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*(select|with|values|table)\b/i.test(body)) {
        // Not a query a cursor takes (SHOW, EXPLAIN, or a write the read-only transaction refuses).
        const r = await q(body, values, true);
        return { columns: r.fields.map((f) => f.name), pages: once(r.rows) };
      }
      const name = `svc_rows_${++cursors}`;
      await q(`DECLARE ${name} NO SCROLL CURSOR FOR ${body}`, values, true);
      const first = await q(`FETCH ${READ_PAGE} FROM ${name}`);
      async function* pages(): AsyncIterable<SqlRow[]> {
        let r = first;
        while (r.rows.length > 0) {
          yield r.rows;
          if (r.rows.length < READ_PAGE) break;
          r = await q(`FETCH ${READ_PAGE} FROM ${name}`);
        }
      }
      return { columns: first.fields.map((f) => f.name), pages: pages() };
    },
    size: async () =>
      Number(
        (
          await q(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind = 'r'",
            [opts.schema],
          )
        ).rows[0]?.n ?? 0,
      ),
    close: async () => {
      await client.end().catch(() => {});
    },
  };
}

/**
 * The rows with one row a key (as the upsert would leave them: the last of a key when a conflict
 * updates, the first when it does nothing).
 */
function uniqueByKey(rows: readonly SqlValue[][], keys: readonly number[], last: boolean): SqlValue[][] {
  const by = new Map<string, SqlValue[]>();
  for (const r of rows) {
    const k = keys.length === 1 ? String(r[keys[0]!]) : keys.map((i) => String(r[i])).join('\u0000');
    if (last) by.delete(k);
    else if (by.has(k)) continue;
    by.set(k, r);
  }
  return by.size === rows.length ? (rows as SqlValue[][]) : [...by.values()];
}

async function* once(rows: SqlRow[]): AsyncIterable<SqlRow[]> {
  if (rows.length) yield rows;
}

/** `2024-05-01T10:00:00Z` (milliseconds when there are some). */
function isoTime(v: string): string {
  const d = new Date(v.includes('T') || /[+-]\d\d(:?\d\d)?$/.test(v) ? v : `${v.replace(' ', 'T')}Z`);
  return Number.isNaN(d.getTime()) ? v : d.toISOString().replace('.000Z', 'Z');
}

/** A value as pg sends it: BigInts as their digits. */
function pgValue(v: SqlValue): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}

/** Each column of a row of {@link rowsJson} (`v`) cast to its type. */
function jsonbCasts(columns: readonly WriteColumn[]): string[] {
  return columns.map((c, i) =>
    TYPES[c.kind] === 'jsonb'
      ? `NULLIF((v->${i})::jsonb, 'null'::jsonb)`
      : TYPES[c.kind] === 'text'
        ? `v->>${i}`
        : `(v->>${i})::${TYPES[c.kind]}`,
  );
}

/** The rows as one JSON array of arrays; a jsonb column's value is already JSON text and goes in as is. */
function rowsJson(columns: readonly WriteColumn[], rows: readonly SqlValue[][]): string {
  const raw = columns.map((c) => TYPES[c.kind] === 'jsonb');
  const parts: string[] = [];
  for (const r of rows) {
    let s = '[';
    for (let i = 0; i < r.length; i++) {
      const v = r[i];
      if (i > 0) s += ',';
      if (v === null || v === undefined) s += 'null';
      else if (raw[i]) s += typeof v === 'string' ? v : JSON.stringify(String(v));
      else if (typeof v === 'number') s += String(v);
      else if (typeof v === 'bigint') s += `"${v}"`;
      else s += JSON.stringify(String(v));
    }
    parts.push(`${s}]`);
  }
  return `[${parts.join(',')}]`;
}

/** `?` placeholders numbered `$1`, `$2`… (svc's own statements: no `?` inside their literals). */
function numbered(sql: string): string {
  let n = 0;
  return sql.includes('?') ? sql.replace(/\?/g, () => `$${++n}`) : sql;
}

/**
 * `:name` parameters of `svc sql` as `$n`, skipping string literals, quoted names, comments and
 * `::` casts; a name without a value is refused as SQLite refuses it.
 */
function namedToNumbered(sql: string, params: Record<string, SqlValue>): { text: string; values: SqlValue[] } {
  const values: SqlValue[] = [];
  const index = new Map<string, number>();
  const text = mapNamedParams(sql, (prefix, name, m) => {
    // `@` is PostgreSQL's absolute value and `$` starts `$1` or a dollar quote: only `:name` binds.
    if (prefix !== ':') return m;
    if (!Object.hasOwn(params, name)) throw new UsageError(`SQL: no value for :${name}`).hint(`bind it with -p ${name}=VALUE`);
    let i = index.get(name);
    if (i === undefined) {
      values.push(params[name]!);
      i = values.length;
      index.set(name, i);
    }
    return `$${i}`;
  });
  return { text, values };
}

/** The password of a connection string (to redact wherever a message may carry it). */
function secretsOf(url: string): string[] {
  try {
    const u = new URL(url);
    const out = [decodeURIComponent(u.password), u.password, u.searchParams.get('password') ?? ''];
    return out.filter((s) => s.length > 0);
  } catch {
    return [];
  }
}

/** A server's or the network's error as one line with the fix, the password never in it. */
function pgError(err: unknown, where: string, schema: string, secrets: readonly string[]): Error {
  if (err instanceof UsageError || err instanceof NetworkError) return err;
  const e = err as { code?: string; message?: string; detail?: string };
  // What depends on a table that cannot be dropped is in the detail, not the message.
  let msg = `${String(e?.message ?? err)}${e?.code === '2BP01' && e.detail ? `: ${e.detail}` : ''}`.replace(/\s+/g, ' ').trim();
  for (const s of secrets) msg = msg.split(s).join('***');
  const code = e?.code ?? '';
  if (code === '28P01' || code === '28000') {
    return new UsageError(`cannot log in to ${where}: ${msg}`).hint('check the user and password in --db or SVC_DB (or ~/.pgpass)');
  }
  if (code === '3D000') return new UsageError(`cannot open ${where}: ${msg}`).hint('create the database, or name another in the URL');
  if (code === '42501') return schemaRefused('write', schema, where, msg);
  if (code === '57P01' || code === '57P02' || code === '57P03' || /Connection terminated|not queryable|connection error/i.test(msg)) {
    return new DatabaseGoneError(`PostgreSQL at ${where} went away: ${msg}`, code || 'ECONNRESET').hint(
      'run the command again when the server is back: a sync continues after its last whole page',
    );
  }
  if (
    /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ECONNRESET|ENOENT)$/.test(code) ||
    /timeout expired/i.test(msg)
  ) {
    return new DatabaseGoneError(`cannot reach PostgreSQL at ${where}: ${msg || code}`, code || 'ECONNRESET').hint(
      'check the host and port in --db or SVC_DB (or the socket directory in ?host=), and that the server is running',
    );
  }
  const ssl = sslFix(msg);
  return ssl ? new PgServerError(msg, code, where).hint(ssl) : new PgServerError(msg, code, where);
}

/** A schema the role may not write (a sync) or read (`svc sql`): one line naming the GRANT it lacks. */
function schemaRefused(what: 'read' | 'write', schema: string, where: string, msg: string): UsageError {
  return new UsageError(`cannot ${what} the schema ${schema} at ${where}: ${msg}`).hint(
    what === 'write'
      ? 'choose a schema of your own with --schema, or have the owner of the schema (or of the database) grant you USAGE and CREATE on it'
      : 'have the owner of the schema grant you USAGE on it and SELECT on its tables, or name the schema you may read with --schema',
  );
}

/** The server went away or cannot be reached (a restart, a cut connection): worth waiting for. */
class DatabaseGoneError extends NetworkError {}

/** Whether `err` says the server went away or cannot be reached (see {@link DatabaseGoneError}). */
export function isDatabaseGone(err: unknown): boolean {
  return err instanceof DatabaseGoneError;
}

/** Any other error the server answered: its message, said with where it came from. */
class PgServerError extends SvcError {
  constructor(
    /** The server's message, without where. */
    readonly detail: string,
    readonly code: string,
    where: string,
  ) {
    super(`PostgreSQL at ${where}: ${detail}`, ExitCode.API);
  }
}
