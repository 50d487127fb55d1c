/**
 * Handler of `svc sql`: one read-only statement over the mirror, its rows streamed through the
 * output writers of every other command (constant memory: pages of rows as SQLite yields them).
 */
import fs from 'node:fs';
import { LocalIoError, UsageError } from '../../errors.js';
import type { FlatRecord } from '../../listing/record-text.js';
import { snake } from '../../mirror/naming.js';
import { age, mirrorStatus, oldestSync, openMirror } from '../../mirror/reader.js';
import type { SqlDatabase, SqlParams, SqlRow, SqlValue } from '../../mirror/sqlite.js';
import type { Context } from '../../runtime/context.js';
import { printValue, recordWriter } from '../shared/output.js';
import { mirrorFile } from '../sync/mirror-file.js';

/** The flags of `svc sql`. */
export interface SqlFlags {
  file?: string;
  param?: string[];
  tables?: boolean;
  columns?: string;
  db?: string;
}

/** Rows handed to the writer at a time. */
const ROWS_PER_PAGE = 500;

export async function sqlHandler(ctx: Context, statement: string | undefined, flags: SqlFlags): Promise<void> {
  if (ctx.output === 'raw') throw new UsageError('svc sql prints table, json, ndjson or csv, not raw').hint('use -o json or -o csv');
  const params = parseParams(flags.param ?? []);
  const sql = flags.tables || flags.columns !== undefined ? undefined : await readStatement(ctx, statement, flags.file);
  const file = await mirrorFile(ctx, flags.db);
  const db = await openMirror(file);
  try {
    const status = mirrorStatus(db, file);
    const oldest = oldestSync(status);
    ctx.info(
      `mirror of ${status.orgName || status.orgId || status.baseUrl}, synced ${oldest ? `${age(oldest, ctx.clock.now())} ago` : 'partly (run svc sync)'}`,
    );
    if (flags.tables) return await printValue(ctx, ctx.output, listTables(db), () => tablesText(listTables(db)));
    if (flags.columns !== undefined) {
      const cols = listColumns(db, flags.columns);
      return await printValue(
        ctx,
        ctx.output,
        cols,
        () => cols.map((c) => `${c.column.padEnd(32)} ${c.sqlType.padEnd(8)} ${c.label ?? ''}`.trimEnd()).join('\n') + '\n',
      );
    }
    await runQuery(ctx, db, sql!, params);
  } finally {
    db.close();
  }
}

/** `-p name=value` as named parameters; a number-looking value is bound as a number. */
function parseParams(list: readonly string[]): Record<string, SqlValue> {
  const out: Record<string, SqlValue> = {};
  for (const p of list) {
    const eq = p.indexOf('=');
    const name = eq > 0 ? p.slice(0, eq).replace(/^[:@$]/, '') : '';
    if (!/^[A-Za-z_]\w*$/.test(name))
      throw new UsageError(`-p ${JSON.stringify(p)} is not name=value`).hint('write -p title=CEO and use :title in the statement');
    const value = p.slice(eq + 1);
    out[name] = /^-?(0|[1-9]\d{0,14})(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return out;
}

/** The statement: the argument, else `-f FILE`, else stdin when it is not a terminal. */
async function readStatement(ctx: Context, arg: string | undefined, file: string | undefined): Promise<string> {
  if (arg !== undefined && file !== undefined) throw new UsageError('give the statement or -f FILE, not both');
  let sql = arg;
  if (file !== undefined) {
    try {
      sql = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new LocalIoError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  } else if (sql === undefined && !ctx.io.stdinIsTTY) {
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(Buffer.from(c as Buffer));
    sql = Buffer.concat(chunks).toString('utf8');
  }
  if (sql === undefined || sql.trim() === '') {
    throw new UsageError('no SQL statement').hint(
      'svc sql "select count(*) from prospects", or -f FILE, or the statement on stdin; svc sql --tables lists the tables',
    );
  }
  return sql;
}

/** Runs the statement and streams its rows. */
async function runQuery(ctx: Context, db: SqlDatabase, sql: string, params: SqlParams): Promise<void> {
  let result: ReturnType<SqlDatabase['query']>;
  const iterator = (): Iterator<SqlRow> => result.rows[Symbol.iterator]();
  let it: Iterator<SqlRow>;
  try {
    result = db.query(sql, params);
    it = iterator();
  } catch (err) {
    throw sqlError(err);
  }
  const writer = recordWriter(ctx, { format: ctx.output, io: ctx.io, columns: result.columns });
  let page: FlatRecord[] = [];
  for (;;) {
    let next: IteratorResult<SqlRow>;
    try {
      next = it.next();
    } catch (err) {
      throw sqlError(err);
    }
    if (next.done) break;
    page.push(plainRow(next.value));
    if (page.length >= ROWS_PER_PAGE) {
      await writer.page({}, page);
      page = [];
    }
  }
  if (page.length) await writer.page({}, page);
  await writer.end();
}

/** A row as the writers take it: bigints past 2^53 as digit strings, blobs as hex. */
function plainRow(row: SqlRow): FlatRecord {
  const out: Record<string, unknown> = {};
  for (const k in row) {
    const v = row[k];
    out[k] =
      typeof v === 'bigint'
        ? Number.isSafeInteger(Number(v))
          ? Number(v)
          : String(v)
        : v instanceof Uint8Array
          ? Buffer.from(v).toString('hex')
          : v;
  }
  return out as FlatRecord;
}

/** SQLite's message in one line, exit 2; a statement that writes says the mirror is read-only. */
function sqlError(err: unknown): UsageError {
  const msg = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
  if (/readonly|read-only|query_only|attempt to write/i.test(msg)) {
    return new UsageError('svc sql is read-only: the statement would write to the mirror').hint(
      'change the org with svc commands (they write to the API), then svc sync brings the change here',
    );
  }
  return new UsageError(`SQL: ${msg}`).hint('svc sql --tables and svc sql --columns TABLE list the names');
}

/** Tables and views a person queries (svc's own bookkeeping left out, its log of deletes kept). */
function listTables(db: SqlDatabase): { name: string; kind: string; rows: number }[] {
  return db
    .all(
      "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name NOT IN ('_svc_mirror', '_svc_tables', '_svc_seen') ORDER BY name",
    )
    .map((r) => ({
      name: String(r.name),
      kind: String(r.type),
      rows: Number(db.get(`SELECT count(*) AS n FROM "${String(r.name).replace(/"/g, '""')}"`)?.n ?? 0),
    }));
}

function tablesText(rows: { name: string; kind: string; rows: number }[]): string {
  return rows.map((r) => `${r.name.padEnd(40)} ${r.kind.padEnd(5)} ${r.rows.toLocaleString('en-US').padStart(9)}`).join('\n') + '\n';
}

/** A table's columns with their SQLite types and, for custom fields, their labels. */
function listColumns(db: SqlDatabase, table: string): { column: string; sqlType: string; label: string | null }[] {
  const name = snake(table.replace(/-/g, '_'));
  const info = (t: string) =>
    db.all(`PRAGMA table_info("${t.replace(/"/g, '""')}")`).map((r) => ({ name: String(r.name), type: String(r.type) }));
  const cols = info(name);
  if (cols.length === 0) {
    const names = listTables(db).map((t) => t.name);
    throw new UsageError(`no table "${table}" in the mirror`).hint(
      `svc sql --tables lists them (${names
        .filter((n) => !n.startsWith('_'))
        .slice(0, 6)
        .join(', ')}, …)`,
    );
  }
  const labelled = info(`${name}_labelled`);
  return cols.map((c, i) => ({
    column: c.name,
    sqlType: c.type || 'ANY',
    label: labelled[i] && labelled[i]!.name !== c.name ? labelled[i]!.name : null,
  }));
}
