/**
 * The SQLite side of the mirror's database (types.ts): a file through the binding this Node has
 * (../sqlite.ts). Its calls are synchronous underneath; the promises only give the store one
 * code path with PostgreSQL.
 *
 * Rows are written by multi-row `INSERT … VALUES (…), (…) … ON CONFLICT` statements of up to
 * {@link MAX_ROWS} rows (and {@link MAX_PARAMS} parameters, under SQLite's 32,766), each prepared
 * once per shape and kept: one call into SQLite per chunk of a page rather than one per record,
 * which on the WebAssembly binding of Node 20 is most of the cost.
 */
import fs from 'node:fs';
import { acquireLock } from '../../auth/lock.js';
import { quoteId } from '../naming.js';
import type { SqlDatabase, SqlRow, SqlValue } from '../sqlite.js';
import { type ColumnKind, type MirrorDb, NUMBER_TEXT_MAX, type QueryResult, type Relation, type WriteColumn } from './types.js';

const MAX_ROWS = 500;
const MAX_PARAMS = 30_000;
/** Multi-row write statements kept prepared (writeStatement). */
const KEPT_WRITES = 16;
/** Rows handed to a reader at a time. */
const READ_PAGE = 500;
/** Ids in one `IN (…)` list (deleteIn). */
const IN_LIST = 500;

const TYPES: Record<ColumnKind, string> = {
  id: 'INTEGER',
  string: 'TEXT',
  integer: 'INTEGER',
  number: 'REAL',
  boolean: 'INTEGER',
  date: 'TEXT',
  'date-time': 'TEXT',
  'string[]': 'TEXT',
  object: 'TEXT',
  array: 'TEXT',
};

/** The SQLite type of a column (also what `_svc_tables.columns` records for a SQLite mirror). */
function sqliteType(kind: ColumnKind): string {
  return TYPES[kind];
}

/** A mirror file as a {@link MirrorDb}. */
export function sqliteMirrorDb(db: SqlDatabase, file: string): MirrorDb {
  const prepared = new Map<string, ReturnType<SqlDatabase['prepare']>>();
  const statement = (sql: string) => {
    let s = prepared.get(sql);
    if (!s) {
      s = db.prepare(sql);
      prepared.set(sql, s);
    }
    return s;
  };
  /**
   * Per table, the columns a write has sent a value in during this run. Most of a type's columns
   * are custom fields that are null in nearly every row (a prospect: ~25 of 222 hold a value), so
   * a write binds only the columns some row of it, or of an earlier write, has a value in; the
   * others are NULL in the statement itself. Once sent, a column stays sent: the statements of a
   * run stay few (each is prepared once) rather than one per page's mix of columns.
   */
  const sentColumns = new Map<string, { columns: readonly WriteColumn[]; sent: Uint8Array }>();
  const keptColumns = (table: string, columns: readonly WriteColumn[], rows: readonly SqlValue[][], key: readonly string[]): number[] => {
    let entry = sentColumns.get(table);
    if (!entry || !sameNames(entry.columns, columns)) {
      const sent = new Uint8Array(columns.length);
      columns.forEach((c, i) => {
        if (key.includes(c.name)) sent[i] = 1;
      });
      entry = { columns, sent };
      sentColumns.set(table, entry);
    }
    const sent = entry.sent;
    for (const r of rows) for (let i = 0; i < sent.length; i++) if (sent[i] === 0 && r[i] !== null && r[i] !== undefined) sent[i] = 1;
    const keep: number[] = [];
    for (let i = 0; i < sent.length; i++) if (sent[i] === 1) keep.push(i);
    return keep;
  };
  /**
   * The multi-row writes' statements, the most recent {@link KEPT_WRITES}: a statement of 500 rows is
   * a large program, and a run whose columns grow would otherwise keep every earlier shape.
   */
  const writes = new Map<string, ReturnType<SqlDatabase['prepare']>>();
  const writeStatement = (sql: string) => {
    let s = writes.get(sql);
    if (s) {
      writes.delete(sql);
    } else {
      s = db.prepare(sql);
      if (writes.size >= KEPT_WRITES) {
        const [oldest, old] = writes.entries().next().value!;
        writes.delete(oldest);
        old.finalize?.();
      }
    }
    writes.set(sql, s);
    return s;
  };
  return {
    dialect: 'sqlite',
    binding: db.binding,
    where: file,
    keyedTableSuffix: ' WITHOUT ROWID',
    columnType: sqliteType,
    numberOf: sqliteNumberOf,
    exec: async (sql) => db.exec(sql),
    // SQLite's own parser splits statements (quotes respected), and a statement without parameters has no placeholders.
    execOne: async (sql) => db.exec(sql),
    run: async (sql, params) => statement(sql).run(params ?? []),
    all: async (sql, params) => db.all(sql, params ?? []),
    get: async (sql, params) => db.get(sql, params ?? []),
    async tx(fn) {
      db.exec('BEGIN IMMEDIATE');
      try {
        const out = await fn();
        db.exec('COMMIT');
        return out;
      } catch (err) {
        try {
          db.exec('ROLLBACK');
        } catch {
          // Already rolled back by SQLite (disk full): the error that caused it is the one to tell.
        }
        throw err;
      }
    },
    async write(table, columns, rows, key, update) {
      const keep = keptColumns(table, columns, rows, key);
      const sent = keep.map((i) => columns[i]!);
      const per = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / sent.length)));
      for (let at = 0; at < rows.length; at += per) {
        const chunk = rows.slice(at, at + per);
        const flat: SqlValue[] = new Array(chunk.length * keep.length);
        let n = 0;
        for (const r of chunk) for (const i of keep) flat[n++] = r[i]!;
        writeStatement(insertSql(table, sent, chunk.length, key, update, columns)).run(flat);
      }
    },
    async deleteIn(targets) {
      for (const t of targets) {
        for (let at = 0; at < t.ids.length; at += IN_LIST) {
          const part = t.ids.slice(at, at + IN_LIST);
          statement(`DELETE FROM ${quoteId(t.table)} WHERE ${quoteId(t.column)} IN (${part.map(() => '?').join(', ')})`).run(part);
        }
      }
    },
    relations: async () =>
      db
        .all("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .map((r) => ({ name: String(r.name), kind: r.type === 'view' ? 'view' : 'table' }) as Relation),
    columnsOf: async (table) => db.all(`PRAGMA table_info(${quoteId(table)})`).map((r) => ({ name: String(r.name), type: String(r.type) })),
    async lease(table, waiting) {
      // Another svc sync of this file waits here for the table (its pages are never interleaved
      // with ours); a crashed holder's lease is broken as its pid is gone.
      const release = await acquireLock(`${file}.${table}.lease`, {
        timeoutMs: 6 * 3_600_000,
        staleMs: 7 * 24 * 3_600_000,
        onWait: () => waiting(),
      });
      return async () => release();
    },
    async query(sql, params): Promise<QueryResult> {
      const { columns, rows } = db.query(sql, params);
      async function* pages(): AsyncIterable<SqlRow[]> {
        let page: SqlRow[] = [];
        for (const r of rows) {
          page.push(r);
          if (page.length >= READ_PAGE) {
            yield page;
            page = [];
          }
        }
        if (page.length) yield page;
      }
      return { columns, pages: pages() };
    },
    size: async () => fs.statSync(file).size,
    close: async () => db.close(),
  };
}

/** The same column names in the same order. */
function sameNames(a: readonly WriteColumn[], b: readonly WriteColumn[]): boolean {
  return a === b || (a.length === b.length && a.every((c, i) => c.name === b[i]!.name));
}

/**
 * `INSERT INTO t (…) VALUES (?, …), … ON CONFLICT (key) DO UPDATE SET … | DO NOTHING`, of the
 * columns sent; a column of `all` not sent is NULL in the rows, so an update sets it to NULL.
 */
function insertSql(
  table: string,
  columns: readonly WriteColumn[],
  rows: number,
  key: readonly string[],
  update: readonly string[],
  all: readonly WriteColumn[],
): string {
  const one = `(${columns.map(() => '?').join(', ')})`;
  const sent = new Set(columns.map((c) => c.name));
  const known = new Set(all.map((c) => c.name));
  const set = update.map((c) => `${quoteId(c)} = ${sent.has(c) || !known.has(c) ? `excluded.${quoteId(c)}` : 'NULL'}`).join(', ');
  return (
    `INSERT INTO ${quoteId(table)} (${columns.map((c) => quoteId(c.name)).join(', ')}) VALUES ${new Array(rows).fill(one).join(', ')}` +
    ` ON CONFLICT (${key.map(quoteId).join(', ')}) ${set ? `DO UPDATE SET ${set}` : 'DO NOTHING'}`
  );
}

/**
 * {@link MirrorDb.numberOf} in SQLite, which has no regular expressions: the text cut at its
 * sign and its `e`, each piece checked with GLOB (a CAST alone reads `12abc` as 12 and `abc` as 0).
 */
function sqliteNumberOf(column: string): string {
  const t = `trim(${column})`;
  const unsigned = (s: string) => `(CASE WHEN substr(${s}, 1, 1) IN ('+', '-') THEN substr(${s}, 2) ELSE ${s} END)`;
  const u = unsigned(t);
  const e = `instr(lower(${u}), 'e')`;
  const mantissa = `(CASE WHEN ${e} > 0 THEN substr(${u}, 1, ${e} - 1) ELSE ${u} END)`;
  const exponent = unsigned(`(CASE WHEN ${e} > 0 THEN substr(${u}, ${e} + 1) ELSE '0' END)`);
  return (
    `(CASE WHEN length(${t}) <= ${NUMBER_TEXT_MAX} AND ${mantissa} NOT GLOB '*[^0-9.]*' AND ${mantissa} NOT GLOB '*.*.*' ` +
    `AND ${mantissa} GLOB '*[0-9]*' AND (${exponent} GLOB '[0-9]' OR ${exponent} GLOB '[0-9][0-9]') THEN CAST(${t} AS NUMERIC) END)`
  );
}
