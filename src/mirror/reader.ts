/**
 * A mirror opened for reading (`svc sql`, `svc sync --status`). A SQLite file is read-only at two
 * levels — the file is opened read-only and `PRAGMA query_only` refuses any statement that would
 * write (an `ATTACH`ed file included); a PostgreSQL schema is read in one `READ ONLY`
 * transaction (dialect/postgres.ts) — so a query can never change the mirror.
 */
import fs from 'node:fs';
import { apiTime } from '../api-time.js';
import { UsageError } from '../errors.js';
import { quoteWord } from '../shell-words.js';
import type { MirrorDb } from './dialect/types.js';
import { openError, openMirrorDb, UNREADABLE, type MirrorTarget } from './store.js';
import type { SqlDatabase } from './sqlite.js';

/** One table's line of the status. */
interface TableStatus {
  table: string;
  type: string;
  rows: number;
  syncedAt: string | null;
  reconciledAt: string | null;
  /** A run a killed sync left, to be continued. */
  unfinished: boolean;
  /** The scope the last sync's token lacked to read the table (it skipped it); absent when read. */
  unreadable?: string;
}

/** What the mirror is of and how current it is. */
interface MirrorStatus {
  file: string;
  bytes: number;
  binding: string;
  baseUrl: string;
  orgId: string;
  orgName: string;
  tables: TableStatus[];
}

/** Opens `file` for reading; a missing file says to run `svc sync`, a foreign one is refused. */
export async function openMirror(file: string, named = false, elsewhere?: string): Promise<SqlDatabase> {
  if (!fs.existsSync(file)) {
    const err = new UsageError(`no mirror yet at ${file}`).hint(`run \`svc sync${named ? ` --db ${quoteWord(file)}` : ''}\` first`);
    throw elsewhere ? err.hint(elsewhere) : err;
  }
  const { openDatabase } = await import('./sqlite.js');
  let db: SqlDatabase;
  try {
    db = await openDatabase(file, { readOnly: true });
  } catch (err) {
    throw openError(file, err);
  }
  try {
    db.exec('PRAGMA query_only = 1');
    if (!db.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = '_svc_mirror'")) throw new Error('not a database');
  } catch (err) {
    db.close();
    throw openError(file, err);
  }
  return db;
}

/** Opens the mirror at `target` for reading, as a {@link MirrorDb} (either dialect). */
export async function openReadMirror(target: MirrorTarget): Promise<MirrorDb> {
  if (target.kind === 'file') {
    const db = await openMirror(target.file, target.named, target.elsewhere);
    const { sqliteMirrorDb } = await import('./dialect/sqlite.js');
    return sqliteMirrorDb(db, target.file);
  }
  const db = await openMirrorDb(target, { readOnly: true });
  if (!(await db.relations()).some((r) => r.name === '_svc_mirror')) {
    await db.close();
    throw new UsageError(`no mirror yet in ${db.where}`).hint('run `svc sync --db URL` first (with --schema, the same schema)');
  }
  return db;
}

/** What the mirror is of and when each table was synced: `svc sql`'s status line. */
interface MirrorHeader {
  baseUrl: string;
  orgId: string;
  orgName: string;
  tables: Pick<TableStatus, 'table' | 'syncedAt' | 'unreadable'>[];
}

/** Whose org the mirror holds, from its `_svc_mirror` rows, and the tables its last sync could not read. */
async function mirrorOrg(db: MirrorDb): Promise<Pick<MirrorStatus, 'baseUrl' | 'orgId' | 'orgName'> & { unreadable: Map<string, string> }> {
  const meta = new Map((await db.all('SELECT key, value FROM _svc_mirror')).map((r) => [String(r.key), String(r.value)]));
  const unreadable = new Map([...meta].filter(([k]) => k.startsWith(UNREADABLE)).map(([k, v]) => [k.slice(UNREADABLE.length), v]));
  return { baseUrl: meta.get('base_url') ?? '', orgId: meta.get('org_id') ?? '', orgName: meta.get('org_name') ?? '', unreadable };
}

/** The table's `unreadable` field, when its last sync could not read it. */
function unreadableOf(unreadable: Map<string, string>, table: string): { unreadable?: string } {
  const scope = unreadable.get(table);
  return scope === undefined ? {} : { unreadable: scope };
}

/**
 * The mirror's org and each table's last sync, without {@link mirrorStatus}'s row counts and size:
 * `svc sql` prints only whose mirror it is and how old, and counting every table (a scan of each
 * on SQLite, a query each and a catalog sum on PostgreSQL) was the larger part of a small query's
 * cost, paid again on every statement.
 */
export async function mirrorHeader(db: MirrorDb): Promise<MirrorHeader> {
  const rows = await db.all('SELECT table_name, synced_at FROM _svc_tables ORDER BY table_name');
  const { unreadable, ...org } = await mirrorOrg(db);
  return {
    ...org,
    tables: rows.map((r) => ({
      table: String(r.table_name),
      syncedAt: r.synced_at === null ? null : String(r.synced_at),
      ...unreadableOf(unreadable, String(r.table_name)),
    })),
  };
}

/** The status of an open mirror. */
export async function mirrorStatus(db: MirrorDb): Promise<MirrorStatus> {
  const { unreadable, ...org } = await mirrorOrg(db);
  const tables: TableStatus[] = [];
  for (const r of await db.all('SELECT table_name, type, synced_at, reconciled_at, run_kind FROM _svc_tables ORDER BY table_name')) {
    tables.push({
      table: String(r.table_name),
      type: String(r.type),
      rows: Number((await db.get(`SELECT count(*) AS n FROM "${String(r.table_name).replace(/"/g, '""')}"`))?.n ?? 0),
      syncedAt: r.synced_at === null ? null : String(r.synced_at),
      reconciledAt: r.reconciled_at === null ? null : String(r.reconciled_at),
      unfinished: r.run_kind !== null,
      ...unreadableOf(unreadable, String(r.table_name)),
    });
  }
  return {
    file: db.where,
    bytes: await db.size(),
    binding: db.binding,
    ...org,
    tables,
  };
}

/** `3 min`, `2 h`, `5 days`: how long ago `iso` was. */
export function age(iso: string | null, now: number): string {
  if (!iso) return 'never';
  const s = Math.max(0, Math.round((now - apiTime(iso)) / 1000));
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 129_600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

/**
 * The oldest `syncedAt` of the tables: how old the mirror's answers may be; null when a table was
 * never synced. A table the last sync could not read counts with the rows an earlier sync left
 * (left out, they looked as fresh as the rest); one that never held any is left out: no sync with
 * that login fills it, and the caller names it instead.
 */
export function oldestSync(status: MirrorHeader): string | null {
  let oldest: string | null = null;
  for (const t of status.tables) {
    if (t.unreadable !== undefined && t.syncedAt === null) continue;
    if (t.syncedAt === null) return null;
    if (oldest === null || apiTime(t.syncedAt) < apiTime(oldest)) oldest = t.syncedAt;
  }
  return oldest;
}
