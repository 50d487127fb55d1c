/**
 * The SQLite binding of the mirror, behind one small interface (src/README.md, "The mirror"):
 *
 * - `node:sqlite`, built into Node ≥ 22.13: no dependency, WAL mode, ~390,000 upserts/s here;
 * - node-sqlite3-wasm on older Node (20.x): SQLite compiled to WebAssembly, no install script and
 *   no build (~52,000 upserts/s). Its VFS has no shared-memory locks, so it runs without WAL, and
 *   it locks a file by creating the directory `<file>.lock`, which a killed process leaves behind:
 *   every svc access holds svc's own lock (`<file>.svc-lock`, broken when its holder is dead)
 *   while it opens the file, and clears such a leftover under it.
 *
 * A native build (better-sqlite3) was measured too: no prebuilt binary is fetchable here, so
 * `npm ci` compiles it (~1.5 min, per Node version). Both bindings are loaded with `import()` by
 * the commands that use them: no other command pays for them.
 */
import fs from 'node:fs';
import { acquireLock } from '../auth/lock.js';

/** A value SQLite stores and returns. */
export type SqlValue = number | bigint | string | null | Uint8Array;
/** Positional (`?`) or named (`:name`) parameters. */
type SqlParams = readonly SqlValue[] | Record<string, SqlValue>;
/** One result row, by column name. */
export type SqlRow = Record<string, SqlValue>;

/** A statement prepared once and run many times (a page of upserts). */
interface SqlStatement {
  run(params: SqlParams): void;
  /** Frees it now rather than with the database (node:sqlite: when it is collected). */
  finalize?(): void;
}

/** What the mirror needs of an open database. */
export interface SqlDatabase {
  /** `node:sqlite` or `node-sqlite3-wasm`: said by `svc sync --status`. */
  readonly binding: string;
  /** Runs statements that return nothing (several, `;`-separated). */
  exec(sql: string): void;
  run(sql: string, params?: SqlParams): void;
  get(sql: string, params?: SqlParams): SqlRow | undefined;
  all(sql: string, params?: SqlParams): SqlRow[];
  /** The rows of one statement, one at a time (constant memory), and its column names. */
  query(sql: string, params?: SqlParams): { columns: string[]; rows: Iterable<SqlRow> };
  prepare(sql: string): SqlStatement;
  /** Prepared statements are finalized with the database. */
  close(): void;
}

/** Options of {@link openDatabase}. */
interface OpenOptions {
  readOnly?: boolean;
  /** Wait at most this long for a writer's lock (another sync). @default 30000 */
  busyMs?: number;
}

/** Opens (or creates, unless `readOnly`) a database file with the binding this Node has. */
export async function openDatabase(file: string, opts: OpenOptions = {}): Promise<SqlDatabase> {
  const native = await loadNodeSqlite();
  return native ? openNative(native, file, opts) : openWasm(file, opts);
}

/** The part of `node:sqlite` used here (the types of Node 20 do not declare the module). */
interface NodeSqlite {
  DatabaseSync: new (file: string, opts: { readOnly: boolean; timeout: number }) => NativeDatabase;
}
interface NativeDatabase {
  readonly isOpen: boolean;
  exec(sql: string): void;
  prepare(sql: string): NativeStatement;
  close(): void;
}
interface NativeStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): Iterable<unknown>;
  columns(): { name: string }[];
  setReadBigInts(on: boolean): void;
}

async function loadNodeSqlite(): Promise<NodeSqlite | undefined> {
  // Node ≥ 20.16 has `process.getBuiltinModule`; it answers undefined for `node:sqlite` before 22.13.
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  return get?.('node:sqlite') as NodeSqlite | undefined;
}

function openNative(mod: NodeSqlite, file: string, opts: OpenOptions): SqlDatabase {
  const db = new mod.DatabaseSync(file, { readOnly: opts.readOnly === true, timeout: opts.busyMs ?? 30_000 });
  if (!opts.readOnly) db.exec('PRAGMA journal_mode=WAL');
  const bind = (params: SqlParams | undefined): unknown[] =>
    params === undefined ? [] : Array.isArray(params) ? (params as SqlValue[]) : [params as Record<string, SqlValue>];
  return {
    binding: 'node:sqlite',
    exec: (sql) => db.exec(sql),
    run: (sql, params) => {
      const s = db.prepare(sql);
      s.run(...bind(params));
    },
    get: (sql, params) => {
      const s = db.prepare(sql);
      return s.get(...bind(params)) as SqlRow | undefined;
    },
    all: (sql, params) => {
      const s = db.prepare(sql);
      return s.all(...bind(params)) as SqlRow[];
    },
    query: (sql, params) => {
      const s = db.prepare(sql);
      s.setReadBigInts(false);
      const columns = s.columns().map((c) => c.name);
      return { columns, rows: s.iterate(...bind(params)) as Iterable<SqlRow> };
    },
    prepare: (sql) => {
      const s = db.prepare(sql);
      return { run: (params) => void s.run(...bind(params)) };
    },
    close: () => {
      if (db.isOpen) db.close();
    },
  };
}

async function openWasm(file: string, opts: OpenOptions): Promise<SqlDatabase> {
  // V8 tiers a wasm module's functions up on background threads; one still compiling when the
  // process ends deadlocks Node's shutdown (nodejs/node#54918): `svc dedupe` on Node 20 hung after
  // its output about 1 run in 75 here, and 0 in 300 with tier-up off. Liftoff code is what runs.
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--no-wasm-tier-up');
  setFlagsFromString('--no-wasm-dynamic-tiering');
  const mod = await import('node-sqlite3-wasm');
  // A CommonJS module: its exports are the default export under ESM.
  const lib = ((mod as unknown as { default?: typeof mod }).default ?? mod) as typeof mod;
  const release = await acquireLock(`${file}.svc-lock`, { timeoutMs: opts.busyMs ?? 30_000, staleMs: 7 * 24 * 3_600_000 });
  let db: InstanceType<typeof lib.Database>;
  try {
    // Held by a dead process (ours is held, so no live svc is inside the file): see the header.
    fs.rmSync(`${file}.lock`, { recursive: true, force: true });
    db = new lib.Database(file, opts.readOnly ? { readOnly: true, fileMustExist: true } : {});
  } catch (err) {
    release();
    throw err;
  }
  const statements: { finalize(): void; readonly isFinalized: boolean }[] = [];
  const named = (params: SqlParams | undefined) => {
    // node-sqlite3-wasm wants named parameters keyed with their prefix.
    if (params === undefined || Array.isArray(params)) return params as SqlValue[] | undefined;
    return Object.fromEntries(Object.entries(params).map(([k, v]) => [/^[:@$]/.test(k) ? k : `:${k}`, v]));
  };
  return {
    binding: 'node-sqlite3-wasm',
    exec: (sql) => db.exec(sql),
    run: (sql, params) => void db.run(sql, named(params) as never),
    get: (sql, params) => (db.get(sql, named(params) as never) as SqlRow | null) ?? undefined,
    all: (sql, params) => db.all(sql, named(params) as never) as SqlRow[],
    query: (sql, params) => {
      const s = db.prepare(sql);
      statements.push(s);
      const it = s.iterate(named(params) as never)[Symbol.iterator]();
      // This binding reports a failed step (a write refused by a read-only file) only when the
      // statement is finalized: finalize as soon as the rows end, so the error comes from here.
      const finish = () => {
        if (!s.isFinalized) s.finalize();
      };
      const first = it.next();
      // The binding's public API names no columns: they come from the first row; for an empty
      // result, from its statement's own method (sqlite3_column_name), else, for `SELECT * FROM t
      // ...`, from the table. A CSV of no rows still starts with its header, as on PostgreSQL.
      const columns = first.done ? (statementColumns(s) ?? wasmColumns(db, sql)) : Object.keys(first.value);
      if (first.done) finish();
      const rows: Iterable<SqlRow> = {
        *[Symbol.iterator]() {
          if (first.done) return;
          yield first.value as SqlRow;
          for (let r = it.next(); !r.done; r = it.next()) yield r.value as SqlRow;
          finish();
        },
      };
      return { columns, rows };
    },
    prepare: (sql) => {
      const s = db.prepare(sql);
      statements.push(s);
      return {
        run: (params) => void s.run(named(params) as never),
        finalize: () => {
          const at = statements.indexOf(s);
          if (at >= 0) statements.splice(at, 1);
          try {
            if (!s.isFinalized) s.finalize();
          } catch {
            // Its error was reported by the step that failed (as in close).
          }
        },
      };
    },
    close: () => {
      try {
        for (const s of statements) {
          try {
            if (!s.isFinalized) s.finalize();
          } catch {
            // Its error was reported by the step that failed, or the statement was not run to its end.
          }
        }
        if (db.isOpen) db.close();
      } finally {
        release();
      }
    },
  };
}

/** The result's column names from the binding's own (unexported) method, where it has it. */
function statementColumns(statement: unknown): string[] | undefined {
  const names = (statement as { _getColumnNames?: () => unknown })._getColumnNames;
  if (typeof names !== 'function') return undefined;
  try {
    const list: unknown = names.call(statement);
    return Array.isArray(list) && list.every((n) => typeof n === 'string') ? list : undefined;
  } catch {
    return undefined;
  }
}

/** Column names of a statement with no rows, where it reads one table or view (`SELECT * FROM t ...`). */
function wasmColumns(db: { all(sql: string): unknown[] }, sql: string): string[] {
  const m = /^\s*select\s+\*\s+from\s+("?)([A-Za-z_][\w]*)\1(\s|;|$)/i.exec(sql);
  if (!m) return [];
  return (db.all(`PRAGMA table_info(${JSON.stringify(m[2])})`) as { name: string }[]).map((r) => r.name);
}
