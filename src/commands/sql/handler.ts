/**
 * Handler of `svc sql`: one read-only statement over the mirror, its rows streamed through the
 * output writers of every other command (constant memory: pages of rows as SQLite yields them).
 */
import fs from 'node:fs';
import { SvcError, UsageError } from '../../errors.js';
import { unreadableFile } from '../../unreadable-file.js';
import type { FlatRecord } from '../../listing/record-text.js';
import { labelledViewOf, snake } from '../../mirror/naming.js';
import { mapNamedParams } from '../../mirror/named-params.js';
import type { MirrorDb } from '../../mirror/dialect/types.js';
import { age, mirrorHeader, oldestSync, openReadMirror } from '../../mirror/reader.js';
import type { SqlRow, SqlValue } from '../../mirror/sqlite.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { checkBom, printValue, recordWriter, refuseOutput, writeBom } from '../shared/output.js';
import { mirrorTarget } from '../sync/mirror-file.js';
import { markFixes, type UnreadableTable } from '../sync/scope-note.js';
import { grouped } from '../../grouped.js';

/** The flags of `svc sql`. */
export interface SqlFlags {
  file?: string;
  param?: string[];
  tables?: boolean;
  columns?: string;
  db?: string;
  schema?: string;
  /** `--bom`: CSV output starts with a UTF-8 byte order mark (Excel). */
  bom?: boolean;
}

export async function sqlHandler(ctx: Context, statement: string | undefined, flags: SqlFlags): Promise<void> {
  refuseOutput(
    ctx,
    'svc sql',
    ['table', 'json', 'ndjson', 'csv'],
    'use -o json or -o csv; -o raw goes with --query, whose strings it prints unquoted',
  );
  checkBom(ctx, flags.bom);
  const params = parseParams(flags.param ?? []);
  const sql = flags.tables || flags.columns !== undefined ? undefined : await readStatement(ctx, statement, flags.file);
  if (sql !== undefined) checkParams(sql, params);
  const db = await openReadMirror(await mirrorTarget(ctx, flags));
  try {
    const status = await mirrorHeader(db);
    const oldest = oldestSync(status);
    // Tables the last sync's login could not read are named as such: "run svc sync" did not fill
    // them. Those an earlier sync filled keep its rows, counted in the age above, not "empty".
    const unreadable = status.tables.flatMap((t) =>
      t.unreadable === undefined ? [] : [{ table: t.table, scope: t.unreadable, syncedAt: t.syncedAt }],
    );
    const names = (stale: boolean) =>
      unreadable
        .filter((t) => (t.syncedAt !== null) === stale)
        .map((t) => t.table)
        .join(', ');
    const notes = [
      ...(names(false) ? [`empty, not readable with the last sync's login: ${names(false)}`] : []),
      ...(names(true) ? [`not refreshed by the last sync (its login could not read them): ${names(true)}`] : []),
    ];
    ctx.info(
      `mirror of ${status.orgName || status.orgId || status.baseUrl}, synced ${oldest ? `${age(oldest, ctx.clock.now())} ago` : `partly (run ${svcAgain(ctx)} sync)`}${notes.map((n) => `; ${n}`).join('')}`,
    );
    if (sql !== undefined) await warnUnreadable(ctx, sql, unreadable);
    if (flags.tables) {
      const tables = await listTables(db);
      await writeBom(ctx, flags.bom);
      return await printValue(ctx, ctx.output, tables, () => tablesText(tables));
    }
    if (flags.columns !== undefined) {
      const cols = await listColumns(db, flags.columns, svcAgain(ctx));
      await writeBom(ctx, flags.bom);
      return await printValue(ctx, ctx.output, cols, () => columnsText(cols));
    }
    await runQuery(ctx, db, sql!, params, flags.bom);
  } finally {
    await db.close();
  }
}

/**
 * A statement that names a table the last sync could not read (or its labelled view or link
 * tables) gets a line saying so, with how old its rows are (or that it has none) and the fix: an
 * empty answer looked like "no such prospects" (a trial's prospects per stage), old rows like
 * today's. Names inside quotes are left out; a name of a column that is also a table's may still
 * warn, which costs a line, not an answer.
 */
async function warnUnreadable(
  ctx: Context,
  sql: string,
  unreadable: readonly (UnreadableTable & { syncedAt: string | null })[],
): Promise<void> {
  if (unreadable.length === 0) return;
  const text = sql.replace(/'(?:[^']|'')*'/g, "''").toLowerCase();
  const named = unreadable.filter((t) => new RegExp(`(^|[^\\w$])"?${t.table}(_labelled|_[a-z_]+)?"?($|[^\\w$])`).test(text));
  if (named.length === 0) return;
  for (const { tables, fix } of await markFixes(ctx, named)) {
    const scopes = [...new Set(tables.map((t) => t.scope))];
    const list = tables.map((t) => `${t.table} (${t.syncedAt === null ? 'empty' : `rows as of ${age(t.syncedAt, ctx.clock.now())} ago`})`);
    ctx.warn(`not refreshed by the last sync, whose login lacked ${scopes.join(', ')}: ${list.join(', ')}: ${fix}`);
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

/**
 * Every `:name` of the statement has a `-p name=…`, and every `-p` a place in the statement.
 * SQLite bound a parameter left out as NULL: `where title = :title` with no `-p title=` answered
 * no rows and `count(*)` 0, exit 0 — a wrong number that looked right (a trial). A `-p` the
 * statement does not use (a typo of its name) was SQLite's "Unknown binding parameter".
 */
function checkParams(sql: string, params: Record<string, SqlValue>): void {
  const used: string[] = [];
  const missing: string[] = [];
  mapNamedParams(sql, (prefix, name, text) => {
    if (!used.includes(name)) used.push(name);
    if (prefix === ':' && !Object.hasOwn(params, name) && !missing.includes(name)) missing.push(name);
    return text;
  });
  const unused = Object.keys(params).find((n) => !used.includes(n));
  if (missing.length > 0)
    throw new UsageError(`SQL: no value for ${missing.map((n) => `:${n}`).join(', ')}`).hint(
      `bind ${missing.length > 1 ? 'them' : 'it'} with ${missing.map((n) => `-p ${n}=VALUE`).join(' ')}${
        unused === undefined ? '' : ` (the statement has no :${unused} for -p ${unused})`
      }`,
    );
  if (unused !== undefined)
    throw new UsageError(`-p ${unused}: the statement has no :${unused}`).hint(
      used.length > 0 ? `it uses ${used.map((n) => `:${n}`).join(', ')}` : `write :${unused} where the value goes`,
    );
}

/** The statement: the argument, else `-f FILE`, else stdin when it is not a terminal. */
async function readStatement(ctx: Context, arg: string | undefined, file: string | undefined): Promise<string> {
  if (arg !== undefined && file !== undefined) throw new UsageError('give the statement or -f FILE, not both');
  let sql = arg;
  if (file !== undefined) {
    try {
      sql = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw unreadableFile('-f', file, err, 'check the path of the SQL file');
    }
  } else if (sql === undefined && !ctx.io.stdinIsTTY) {
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(Buffer.from(c as Buffer));
    sql = Buffer.concat(chunks).toString('utf8');
  }
  if (sql === undefined || sql.trim() === '') {
    throw new UsageError('no SQL statement').hint(
      `${svcAgain(ctx)} sql "select count(*) from prospects", or -f FILE, or the statement on stdin; ${svcAgain(ctx)} sql --tables lists the tables`,
    );
  }
  // SQLite ran the first and dropped the rest without a word; PostgreSQL refused (a trial).
  if (statementAfterFirst(sql))
    throw new UsageError('svc sql runs one statement: this gives more than one').hint('give them one at a time');
  // SQLite creates VACUUM INTO's file before it finds the database read-only: refused was not
  // enough, an empty file was left behind (a trial).
  if (/^vacuum\b/i.test(firstWords(sql))) throw readOnlyError(svcAgain(ctx));
  return sql;
}

/** The statement without the space and comments before it. */
function firstWords(sql: string): string {
  return sql.replace(/^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/, '');
}

function readOnlyError(svc: string): UsageError {
  return new UsageError('svc sql is read-only: the statement would write to the mirror').hint(
    `change the org with svc commands (they write to the API), then ${svc} sync brings the change here`,
  );
}

/**
 * True when something other than space and comments follows the first statement's `;` (quotes,
 * identifiers, comments and PostgreSQL's $$-strings are skipped over).
 */
function statementAfterFirst(sql: string): boolean {
  let i = 0;
  const n = sql.length;
  const skipComment = (): boolean => {
    if (sql.startsWith('--', i)) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
      return true;
    }
    if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      return true;
    }
    return false;
  };
  while (i < n) {
    const c = sql[i]!;
    if (skipComment()) continue;
    if (c === "'" || c === '"' || c === '`') {
      // A quote inside is doubled: the scan goes on after the closing one either way.
      const end = sql.indexOf(c, i + 1);
      i = end < 0 ? n : end + 1;
      continue;
    }
    const dollar = c === '$' ? /^\$[A-Za-z_]*\$/.exec(sql.slice(i)) : null;
    if (dollar) {
      const end = sql.indexOf(dollar[0], i + dollar[0].length);
      i = end < 0 ? n : end + dollar[0].length;
      continue;
    }
    if (c === ';') {
      for (i++; i < n; ) {
        if (/\s/.test(sql[i]!) || sql[i] === ';') i++;
        else if (!skipComment()) return true;
      }
      return false;
    }
    i++;
  }
  return false;
}

/** Runs the statement and streams its rows. */
async function runQuery(ctx: Context, db: MirrorDb, sql: string, params: Record<string, SqlValue>, bom?: boolean): Promise<void> {
  let result: Awaited<ReturnType<MirrorDb['query']>>;
  let pages: AsyncIterator<SqlRow[]>;
  try {
    result = await db.query(sql, params);
    pages = result.pages[Symbol.asyncIterator]();
  } catch (err) {
    throw sqlError(err, svcAgain(ctx));
  }
  // After the statement is accepted: a refused one leaves stdout empty.
  await writeBom(ctx, bom);
  // -o raw --query (the README's `-o raw --query` idiom): the query reads the rows as -o json gives them.
  const rows: FlatRecord[] = [];
  const writer =
    ctx.output === 'raw'
      ? { page: async (_: object, page: FlatRecord[]) => void rows.push(...page), end: () => printValue(ctx, 'raw', rows, () => '') }
      : recordWriter(ctx, { format: ctx.output, io: ctx.io, columns: result.columns });
  for (;;) {
    let next: IteratorResult<SqlRow[]>;
    try {
      next = await pages.next();
    } catch (err) {
      throw sqlError(err, svcAgain(ctx));
    }
    if (next.done) break;
    await writer.page({}, next.value.map(plainRow));
  }
  await writer.end();
}

/** A row as the writers take it: bigints past 2^53 as digit strings, blobs as hex. */
export function plainRow(row: SqlRow): FlatRecord {
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

/** The database's message in one line, exit 2; a statement that writes says the mirror is read-only. */
function sqlError(err: unknown, svc: string): UsageError {
  // A connection lost, a password refused: said as they are (dialect/postgres.ts).
  if (err instanceof UsageError || (err instanceof SvcError && !('detail' in err))) throw err;
  const raw =
    err instanceof Error && 'detail' in err
      ? String((err as { detail: unknown }).detail)
      : err instanceof Error
        ? err.message
        : String(err);
  const msg = raw.replace(/\s+/g, ' ').trim();
  if (/readonly|read-only|query_only|attempt to write/i.test(msg)) return readOnlyError(svc);
  // A hint for what it says: the names hint followed a function of the other database's SQL and
  // two statements at once too, where it helped nothing (a trial).
  const err2 = new UsageError(`SQL: ${msg}`);
  if (/no such (table|column)|(relation|column) .* does not exist/i.test(msg))
    return err2.hint(`${svc} sql --tables and ${svc} sql --columns TABLE list the names`);
  if (/no such function|function .* does not exist/i.test(msg))
    return err2.hint("use this database's functions: docs/mirror.md gives the README's questions for SQLite and for PostgreSQL");
  if (/multiple commands|more than one statement|incomplete input/i.test(msg)) return err2.hint('give one statement at a time');
  return err2;
}

/** Tables and views a person queries (svc's own bookkeeping left out, its log of deletes kept). */
async function listTables(db: MirrorDb): Promise<{ name: string; kind: string; rows: number }[]> {
  const out: { name: string; kind: string; rows: number }[] = [];
  for (const r of await db.relations()) {
    if (['_svc_mirror', '_svc_tables', '_svc_seen'].includes(r.name)) continue;
    const n = await db.get(`SELECT count(*) AS n FROM "${r.name.replace(/"/g, '""')}"`);
    out.push({ name: r.name, kind: r.kind, rows: Number(n?.n ?? 0) });
  }
  return out;
}

/** `--tables` for people: a heading line, then a table or view a line. */
function tablesText(rows: { name: string; kind: string; rows: number }[]): string {
  const line = (name: string, kind: string, count: string) => `${name.padEnd(40)} ${kind.padEnd(5)} ${count.padStart(9)}`;
  return [line('NAME', 'KIND', 'ROWS'), ...rows.map((r) => line(r.name, r.kind, grouped(r.rows)))].join('\n') + '\n';
}

/** `--columns TABLE` for people: a heading line, then a column a line. */
function columnsText(cols: { column: string; sqlType: string; label: string | null }[]): string {
  const line = (column: string, type: string, label: string) => `${column.padEnd(32)} ${type.padEnd(8)} ${label}`.trimEnd();
  return [line('COLUMN', 'TYPE', 'LABEL'), ...cols.map((c) => line(c.column, c.sqlType, c.label ?? ''))].join('\n') + '\n';
}

/** A table's columns with their types and, for custom fields, their labels. */
async function listColumns(db: MirrorDb, table: string, svc: string): Promise<{ column: string; sqlType: string; label: string | null }[]> {
  const name = snake(table.replace(/-/g, '_'));
  const cols = await db.columnsOf(name);
  if (cols.length === 0) {
    const names = (await listTables(db)).map((t) => t.name);
    throw new UsageError(`no table "${table}" in the mirror`).hint(
      `${svc} sql --tables lists them (${names
        .filter((n) => !n.startsWith('_'))
        .slice(0, 6)
        .join(', ')}, …)`,
    );
  }
  const labelled = await db.columnsOf(labelledViewOf(name));
  return cols.map((c, i) => ({
    column: c.name,
    sqlType: c.type || 'ANY',
    label: labelled[i] && labelled[i]!.name !== c.name ? labelled[i]!.name : null,
  }));
}
