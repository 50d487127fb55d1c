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
import type { ColumnKind, MirrorDb, QueryResult, Relation, WriteColumn } from './types.js';

const MAX_ROWS = 500;
const MAX_PARAMS = 30_000;
/** Rows handed to a reader at a time. */
const READ_PAGE = 500;

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
  return {
    dialect: 'sqlite',
    binding: db.binding,
    where: file,
    cascade: '',
    keyedTableSuffix: ' WITHOUT ROWID',
    columnType: sqliteType,
    exec: async (sql) => db.exec(sql),
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
      const per = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / columns.length)));
      for (let at = 0; at < rows.length; at += per) {
        const chunk = rows.slice(at, at + per);
        const flat: SqlValue[] = [];
        for (const r of chunk) for (const v of r) flat.push(v);
        statement(insertSql(table, columns, chunk.length, key, update)).run(flat);
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

/** `INSERT INTO t (…) VALUES (?, …), … ON CONFLICT (key) DO UPDATE SET … | DO NOTHING`. */
function insertSql(
  table: string,
  columns: readonly WriteColumn[],
  rows: number,
  key: readonly string[],
  update: readonly string[],
): string {
  const one = `(${columns.map(() => '?').join(', ')})`;
  const set = update.map((c) => `${quoteId(c)} = excluded.${quoteId(c)}`).join(', ');
  return (
    `INSERT INTO ${quoteId(table)} (${columns.map((c) => quoteId(c.name)).join(', ')}) VALUES ${new Array(rows).fill(one).join(', ')}` +
    ` ON CONFLICT (${key.map(quoteId).join(', ')}) ${set ? `DO UPDATE SET ${set}` : 'DO NOTHING'}`
  );
}
