/**
 * What the mirror needs of a database, the same for a SQLite file and a PostgreSQL schema: the
 * store (store.ts), the sync (sync.ts) and the reader (reader.ts) are one code path over this,
 * and every difference between the two (column types, DDL, multi-row upserts, placeholders,
 * locks, transactions, catalogs) lives in `sqlite.ts` and `postgres.ts` beside it.
 *
 * SQL handed to it uses `?` placeholders; PostgreSQL's are numbered by its dialect.
 */
import type { AttrType } from '../../registry/index.js';
import type { SqlRow, SqlValue } from '../sqlite.js';

/** What a column holds: an attribute's type, or an id (the key, a to-one relationship, a link). */
export type ColumnKind = AttrType | 'id';

/** A column of a multi-row write. */
export interface WriteColumn {
  name: string;
  kind: ColumnKind;
}

/** A query's rows in pages (constant memory), and its column names. */
export interface QueryResult {
  columns: string[];
  pages: AsyncIterable<SqlRow[]>;
}

/** A relation of the mirror, as the catalog knows it. */
export interface Relation {
  name: string;
  kind: 'table' | 'view';
}

/** The longest text {@link MirrorDb.numberOf} reads as a number. */
export const NUMBER_TEXT_MAX = 40;

/** An open mirror database. */
export interface MirrorDb {
  readonly dialect: 'sqlite' | 'postgres';
  /** `node:sqlite`, `node-sqlite3-wasm` or `pg`: said by `svc sync --status`. */
  readonly binding: string;
  /** Where it is, for messages: the file, or the server and schema with no password. */
  readonly where: string;
  /** After a link table's key: `WITHOUT ROWID` in SQLite. */
  readonly keyedTableSuffix: string;
  /** The DDL type of a column. */
  columnType(kind: ColumnKind): string;
  /**
   * An expression: a text column's value as a number when it is one as svc writes them (`41`,
   * `-2.5`, ` 7 `, `1e3`: a sign, digits with at most one point, an exponent of one or two
   * digits, spaces around, at most {@link NUMBER_TEXT_MAX} characters), else NULL. One grammar on
   * both databases, so a query answers alike on each; the bounds keep the value inside a double,
   * which PostgreSQL would otherwise refuse for the whole query.
   */
  numberOf(column: string): string;
  /** svc's own statements, `;` between them. */
  exec(sql: string): Promise<void>;
  /** One statement as written: never split, no `?` placeholders (it holds the org's text, labels). */
  execOne(sql: string): Promise<void>;
  run(sql: string, params?: readonly SqlValue[]): Promise<void>;
  all(sql: string, params?: readonly SqlValue[]): Promise<SqlRow[]>;
  get(sql: string, params?: readonly SqlValue[]): Promise<SqlRow | undefined>;
  /**
   * Runs `fn` in one transaction, a second writer waiting rather than failing late. `setup`:
   * also serialised with every other writer's setup (creating tables, views, the schema).
   */
  tx<T>(fn: () => Promise<T>, opts?: { setup?: boolean }): Promise<T>;
  /**
   * Writes rows in as few statements as the dialect allows. `update`: the columns a conflict on
   * `key` overwrites; empty: a conflicting row is left as it is.
   */
  write(
    table: string,
    columns: readonly WriteColumn[],
    rows: readonly SqlValue[][],
    key: readonly string[],
    update: readonly string[],
  ): Promise<void>;
  /**
   * Deletes, in each target table, the rows whose `column` is one of its `ids` (a page's owners'
   * links): PostgreSQL in one statement, SQLite in `IN (…)` lists.
   */
  deleteIn(targets: readonly { table: string; column: string; ids: readonly SqlValue[] }[]): Promise<void>;
  /** The mirror's tables and views (svc's own included). */
  relations(): Promise<Relation[]>;
  /** A table's or view's columns in order, with their declared types; none when it does not exist. */
  columnsOf(table: string): Promise<{ name: string; type: string }[]>;
  /**
   * Holds the lease of one table for this sync: another syncer of the same mirror waits (`waiting`
   * is called first) until it is released, or until the holder's connection dies (a crash).
   */
  lease(table: string, waiting: () => void): Promise<() => Promise<void>>;
  /** One statement's rows, `:name` parameters bound. Read-only handles only. */
  query(sql: string, params: Record<string, SqlValue>): Promise<QueryResult>;
  /** Bytes the mirror takes. */
  size(): Promise<number>;
  close(): Promise<void>;
}
