/**
 * The mirror file: one SQLite database per profile. Beside the types' tables (naming.ts) it holds
 * svc's own, all prefixed `_svc_`:
 *
 * - `_svc_mirror`: what the file mirrors (`base_url`, `org_id`, `org_name`, `layout`), so that a
 *   file written for another org or server is refused rather than mixed, and the events cursor;
 * - `_svc_tables`: per table, the watermark (the highest `updatedAt` a finished run committed,
 *   never later than the run's start), when it was last synced and reconciled, its columns, and
 *   the run in progress: its lower bound, the id it continues from, its highest `updatedAt` so far;
 * - `_svc_seen`: ids a reading run has seen, for runs that find deletes by difference;
 * - `_svc_deleted`: every row that left a table: type, id, when, and how it was found.
 *
 * A page's rows and the cursor after them are committed in one transaction, so a run killed at
 * any point resumes after its last whole page and nothing is half-written.
 */
import { LockTimeoutError } from '../auth/lock.js';
import { UsageError } from '../errors.js';
import type { ResourceObject } from '../api/jsonapi.js';
import { relationshipsText, unparsedAttributesRegion } from '../listing/page-parse.js';
import { KeySlots, readAttributeValues } from './attribute-values.js';
import { columnValue, sqlId, linkIds, quoteId, storedValue, type TableSpec } from './naming.js';
import type { SqlDatabase, SqlRow } from './sqlite.js';

/** Bumped when svc's own tables change shape: an older file is refused with `--rebuild`. */
const LAYOUT = '1';

/** What a mirror is of. */
export interface MirrorIdentity {
  baseUrl: string;
  orgId: string;
  orgName: string;
}

/** One row of `_svc_tables`. */
interface TableState {
  table: string;
  type: string;
  watermark: string | null;
  syncedAt: string | null;
  reconciledAt: string | null;
  /** The run in progress: the id it continues from; null when none. */
  runCursor: string | null;
  /** Its kind. */
  runKind: RunKind | null;
  /** Its `updatedAt` lower bound (incremental runs). */
  runSince: string | null;
  runMax: string | null;
  runStartedAt: string | null;
  columns: string | null;
}

/**
 * `full`: every record (the first run, and types whose `updatedAt` cannot be filtered: their
 * deletes are the rows it did not see); `incremental`: records updated since the watermark;
 * `reconcile`: ids only, to find deletes no event told of.
 */
export type RunKind = 'full' | 'incremental' | 'reconcile';

/** How a delete was found. */
type DeleteHow = 'event' | 'reconcile' | 'full read';

/** Says a file is not a mirror svc can use, with the fix. */
function foreignFile(file: string): UsageError {
  return new UsageError(`${file} is not an svc mirror (a corrupt or foreign database)`).hint(
    'run `svc sync --rebuild` to replace it, or choose another file with --db',
  );
}

/** A mirror file opened for writing (`svc sync`). */
export class MirrorStore {
  /** The tables prepared in this run, by type: a delete unlinks what refers to it (removeRows). */
  private readonly specs = new Map<string, TableSpec>();
  /** Each table's attribute columns by key, for reading values from a page's bytes. */
  private readonly keySlots = new Map<TableSpec, KeySlots>();

  private constructor(
    readonly file: string,
    readonly db: SqlDatabase,
  ) {}

  /** Opens (or creates) the file and checks it mirrors `id`. */
  static async open(file: string, id: MirrorIdentity, opts: { rebuild?: boolean } = {}): Promise<MirrorStore> {
    const { openDatabase } = await import('./sqlite.js');
    let db: SqlDatabase;
    try {
      db = await openDatabase(file);
    } catch (err) {
      throw openError(file, err);
    }
    const store = new MirrorStore(file, db);
    try {
      db.exec('PRAGMA synchronous=NORMAL');
      if (opts.rebuild) store.dropAll();
      store.checkIdentity(id);
    } catch (err) {
      db.close();
      throw err instanceof UsageError ? err : openError(file, err);
    }
    return store;
  }

  close(): void {
    this.db.close();
  }

  /** Runs `fn` in one transaction (BEGIN IMMEDIATE: a second writer waits rather than fails late). */
  tx<T>(fn: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      this.db.exec('COMMIT');
      return out;
    } catch (err) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // Already rolled back by SQLite (disk full): the error that caused it is the one to tell.
      }
      throw err;
    }
  }

  private dropAll(): void {
    const items = this.db.all("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'");
    this.tx(() => {
      for (const t of items) this.db.exec(`DROP ${t.type === 'view' ? 'VIEW' : 'TABLE'} IF EXISTS ${quoteId(String(t.name))}`);
    });
  }

  private checkIdentity(id: MirrorIdentity): void {
    const has = this.db.get("SELECT 1 AS x FROM sqlite_master WHERE type='table' AND name='_svc_mirror'");
    const other = this.db.get("SELECT count(*) AS n FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'") as { n: number };
    if (!has && other.n > 0) throw foreignFile(this.file);
    if (!has) {
      this.tx(() => {
        this.db.exec('CREATE TABLE _svc_mirror (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
        this.db.exec(
          'CREATE TABLE _svc_tables (table_name TEXT PRIMARY KEY, type TEXT NOT NULL, watermark TEXT, synced_at TEXT, reconciled_at TEXT, run_cursor TEXT, run_kind TEXT, run_since TEXT, run_max TEXT, run_started_at TEXT, columns TEXT)',
        );
        this.db.exec('CREATE TABLE _svc_seen (table_name TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (table_name, id)) WITHOUT ROWID');
        this.db.exec('CREATE TABLE _svc_deleted (type TEXT NOT NULL, id INTEGER NOT NULL, detected_at TEXT NOT NULL, how TEXT NOT NULL)');
        for (const [k, v] of [
          ['layout', LAYOUT],
          ['base_url', id.baseUrl],
          ['org_id', id.orgId],
          ['org_name', id.orgName],
        ] as const)
          this.db.run('INSERT INTO _svc_mirror (key, value) VALUES (?, ?)', [k, v]);
      });
    }
    const meta = this.meta();
    if (meta.get('layout') !== LAYOUT) throw foreignFile(this.file);
    if (meta.get('base_url') !== id.baseUrl || meta.get('org_id') !== id.orgId) {
      throw new UsageError(
        `${this.file} mirrors org "${meta.get('org_name')}" (${meta.get('org_id')}) at ${meta.get('base_url')}, not org "${id.orgName}" (${id.orgId}) at ${id.baseUrl}`,
      ).hint('choose another file with --db, or run `svc sync --rebuild` to replace it with this org');
    }
  }

  meta(): Map<string, string> {
    return new Map(this.db.all('SELECT key, value FROM _svc_mirror').map((r) => [String(r.key), String(r.value)]));
  }

  setMeta(key: string, value: string): void {
    this.db.run('INSERT INTO _svc_mirror (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
  }

  /**
   * Creates a type's tables, or migrates them: new columns are added; a column whose type
   * changed or that went away makes the table be rebuilt (said through `say`). The labelled view
   * is made again every time (labels change without columns changing).
   */
  prepare(spec: TableSpec, say: (line: string) => void): TableState {
    this.specs.set(spec.type, spec);
    const columns = spec.columns.map((c) => [c.name, c.sqlType] as [string, string]);
    let state = this.state(spec.table);
    this.tx(() => {
      if (state?.columns) {
        const old = new Map(JSON.parse(state.columns) as [string, string][]);
        const changed = [...old].some(([name, type]) => !columns.some(([n, t]) => n === name && t === type));
        if (changed) {
          say(`${spec.table}: its columns changed (a newer svc or org schema); rebuilding the table`);
          this.dropTable(spec);
          state = undefined;
        } else {
          for (const [name, type] of columns) {
            if (!old.has(name)) this.db.exec(`ALTER TABLE ${quoteId(spec.table)} ADD COLUMN ${quoteId(name)} ${type}`);
          }
          if (columns.length !== old.size) {
            // Rows already here have nothing in the new columns: the next run reads the type in full.
            this.db.run('UPDATE _svc_tables SET watermark = NULL WHERE table_name = ?', [spec.table]);
            say(`${spec.table}: ${columns.length - old.size} new columns (a newer svc or org schema); reading the table again in full`);
          }
        }
      }
      const cols = ['id INTEGER PRIMARY KEY', ...columns.map(([n, t]) => `${quoteId(n)} ${t}`)];
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${quoteId(spec.table)} (${cols.join(', ')})`);
      for (const c of spec.columns) {
        if (!('relationship' in c.from)) continue;
        this.db.exec(`CREATE INDEX IF NOT EXISTS ${quoteId(`${spec.table}_${c.name}`)} ON ${quoteId(spec.table)} (${quoteId(c.name)})`);
      }
      for (const l of spec.links) {
        this.db.exec(
          `CREATE TABLE IF NOT EXISTS ${quoteId(l.table)} (${quoteId(l.ownerColumn)} INTEGER NOT NULL, ${quoteId(l.memberColumn)} INTEGER NOT NULL, PRIMARY KEY (${quoteId(l.ownerColumn)}, ${quoteId(l.memberColumn)})) WITHOUT ROWID`,
        );
        this.db.exec(
          `CREATE INDEX IF NOT EXISTS ${quoteId(`${l.table}_${l.memberColumn}`)} ON ${quoteId(l.table)} (${quoteId(l.memberColumn)})`,
        );
      }
      const view = `${spec.table}_labelled`;
      this.db.exec(`DROP VIEW IF EXISTS ${quoteId(view)}`);
      if (Object.keys(spec.labels).length > 0) {
        const names = new Set(['id', ...columns.map(([n]) => n)]);
        const select = ['id', ...columns.map(([n]) => n)].map((n) => {
          const label = spec.labels[n];
          // A label that is also a column's name would make the view ambiguous: keep the column's.
          return label && !names.has(label) ? `${quoteId(n)} AS ${quoteId(label)}` : quoteId(n);
        });
        this.db.exec(`CREATE VIEW ${quoteId(view)} AS SELECT ${select.join(', ')} FROM ${quoteId(spec.table)}`);
      }
      const json = JSON.stringify(columns);
      if (state) this.db.run('UPDATE _svc_tables SET columns = ? WHERE table_name = ?', [json, spec.table]);
      else this.db.run('INSERT INTO _svc_tables (table_name, type, columns) VALUES (?, ?, ?)', [spec.table, spec.type, json]);
    });
    return this.state(spec.table)!;
  }

  private dropTable(spec: TableSpec): void {
    this.db.exec(`DROP TABLE IF EXISTS ${quoteId(spec.table)}`);
    for (const l of spec.links) this.db.exec(`DROP TABLE IF EXISTS ${quoteId(l.table)}`);
    this.db.run('DELETE FROM _svc_tables WHERE table_name = ?', [spec.table]);
    this.db.run('DELETE FROM _svc_seen WHERE table_name = ?', [spec.table]);
  }

  state(table: string): TableState | undefined {
    const r = this.db.get('SELECT * FROM _svc_tables WHERE table_name = ?', [table]);
    if (!r) return undefined;
    const s = (v: SqlRow[string]) => (v === null || v === undefined ? null : String(v));
    return {
      table: String(r.table_name),
      type: String(r.type),
      watermark: s(r.watermark),
      syncedAt: s(r.synced_at),
      reconciledAt: s(r.reconciled_at),
      runCursor: s(r.run_cursor),
      runKind: s(r.run_kind) as RunKind | null,
      runSince: s(r.run_since),
      runMax: s(r.run_max),
      runStartedAt: s(r.run_started_at),
      columns: s(r.columns),
    };
  }

  /** Records the start of a run (the cursor starts at id 0). */
  startRun(table: string, kind: RunKind, since: string | null, startedAt: string, runMax: string | null): void {
    this.tx(() => {
      this.db.run('DELETE FROM _svc_seen WHERE table_name = ?', [table]);
      this.db.run(
        'UPDATE _svc_tables SET run_cursor = ?, run_kind = ?, run_since = ?, run_max = ?, run_started_at = ? WHERE table_name = ?',
        ['0', kind, since, runMax, startedAt, table],
      );
    });
  }

  /**
   * Upserts one page's records (none for a reconcile run, which only notes the ids it saw) and
   * moves the run's cursor past them, in one transaction.
   * @returns the run's highest `updatedAt` with this page's
   */
  commitPage(spec: TableSpec, records: readonly ResourceObject[], cursor: string, runMax: string | null, kind: RunKind): string | null {
    return this.tx(() => {
      if (kind !== 'reconcile') runMax = laterOf(runMax, this.upsert(spec, records));
      if (kind !== 'incremental') {
        const seen = this.db.prepare('INSERT OR IGNORE INTO _svc_seen (table_name, id) VALUES (?, ?)');
        for (const r of records) seen.run([spec.table, sqlId(r.id)]);
      }
      this.db.run('UPDATE _svc_tables SET run_cursor = ?, run_max = ? WHERE table_name = ?', [cursor, runMax, spec.table]);
      return runMax;
    });
  }

  private slotsOf(spec: TableSpec): KeySlots {
    let slots = this.keySlots.get(spec);
    if (!slots) {
      // A column's slot is its index; relationship columns get a key no attribute has.
      slots = new KeySlots(spec.columns.map((c) => ('attribute' in c.from ? c.from.attribute : '\u0000')));
      this.keySlots.set(spec, slots);
    }
    return slots;
  }

  /** @returns the highest `updatedAt` of the records (read here: not every record's attributes are decoded) */
  private upsert(spec: TableSpec, records: readonly ResourceObject[]): string | null {
    const names = ['id', ...spec.columns.map((c) => c.name)];
    const update = spec.columns.map((c) => `${quoteId(c.name)} = excluded.${quoteId(c.name)}`);
    const stmt = this.db.prepare(
      `INSERT INTO ${quoteId(spec.table)} (${names.map(quoteId).join(', ')}) VALUES (${names.map(() => '?').join(', ')})` +
        (update.length ? ` ON CONFLICT (id) DO UPDATE SET ${update.join(', ')}` : ' ON CONFLICT (id) DO NOTHING'),
    );
    const values: (number | bigint | string | null)[] = new Array(names.length);
    const links = spec.links.map((l) => ({
      l,
      clear: this.db.prepare(`DELETE FROM ${quoteId(l.table)} WHERE ${quoteId(l.ownerColumn)} = ?`),
      add: this.db.prepare(
        `INSERT OR IGNORE INTO ${quoteId(l.table)} (${quoteId(l.ownerColumn)}, ${quoteId(l.memberColumn)}) VALUES (?, ?)`,
      ),
    }));
    const slots = this.slotsOf(spec);
    const read: unknown[] = new Array(spec.columns.length);
    const kinds = new Uint8Array(spec.columns.length);
    const updatedAt = spec.columns.findIndex((c) => 'attribute' in c.from && c.from.attribute === 'updatedAt');
    let highest: string | null = null;
    for (const r of records) {
      const id = sqlId(r.id);
      if (id === null) continue;
      values[0] = id;
      // The attributes from the page's bytes when they are still there (the cheap way: no object
      // of ~190 keys built per record); else from the decoded object.
      const raw = unparsedAttributesRegion(r);
      kinds.fill(0);
      const fromBytes = raw !== undefined && readAttributeValues(raw.page, raw.start, raw.end, slots, read, kinds);
      const attributes = fromBytes ? undefined : r.attributes;
      // The relationships as the page's scanner wrote them (`,"account":3,"owner":[1,2]`: the ids of
      // those with data) when it could; else the decoded object, with its links.
      const flat = relationshipsText(r);
      const ids = flat === undefined ? undefined : (JSON.parse(`{${flat.slice(1)}}`) as Record<string, unknown>);
      const relationships = ids === undefined ? r.relationships : undefined;
      for (let i = 0; i < spec.columns.length; i++) {
        const c = spec.columns[i]!;
        if ('relationship' in c.from) values[i + 1] = ids ? sqlId(ids[c.from.relationship]) : columnValue(c, attributes, relationships);
        else values[i + 1] = fromBytes ? storedValue(c, kinds[i] as never, read[i]) : columnValue(c, attributes, relationships);
      }
      stmt.run(values);
      if (updatedAt >= 0 && typeof values[updatedAt + 1] === 'string') highest = laterOf(highest, values[updatedAt + 1] as string);
      for (const { l, clear, add } of links) {
        const members = ids ? flatLinkIds(ids[l.relationship]) : linkIds(r, l.relationship);
        // A record that did not send the relationship keeps the links it had.
        if (members === undefined) continue;
        clear.run([id]);
        for (const m of members) add.run([id, m]);
      }
    }
    return highest;
  }

  /**
   * Ends a run: the watermark moves to `watermark`. A full or reconcile run deletes the rows it
   * did not see (they are gone from the API).
   * @returns the ids deleted
   */
  finishRun(spec: TableSpec, kind: RunKind, watermark: string | null, at: string): number {
    return this.tx(() => {
      let deleted = 0;
      if (kind !== 'incremental') {
        const gone = this.db
          .all(`SELECT id FROM ${quoteId(spec.table)} WHERE id NOT IN (SELECT id FROM _svc_seen WHERE table_name = ?)`, [spec.table])
          .map((r) => r.id as number | bigint);
        deleted = this.removeRows(spec, gone, kind === 'full' ? 'full read' : 'reconcile', at);
        this.db.run('DELETE FROM _svc_seen WHERE table_name = ?', [spec.table]);
      }
      const ended = 'run_cursor = NULL, run_kind = NULL, run_since = NULL, run_max = NULL, run_started_at = NULL';
      if (kind === 'reconcile') {
        this.db.run(`UPDATE _svc_tables SET reconciled_at = ?, ${ended} WHERE table_name = ?`, [at, spec.table]);
      } else {
        // A full read reconciles too: what it did not see is gone.
        const also = kind === 'full' ? ', reconciled_at = ?' : '';
        const params = kind === 'full' ? [watermark, at, at, spec.table] : [watermark, at, spec.table];
        this.db.run(`UPDATE _svc_tables SET watermark = ?, synced_at = ?${also}, ${ended} WHERE table_name = ?`, params);
      }
      return deleted;
    });
  }

  /** Deletes rows found gone by events; in one transaction with the events cursor. */
  deleteFromEvents(spec: TableSpec, ids: readonly (number | bigint)[], at: string): number {
    return this.removeRows(spec, ids, 'event', at);
  }

  /**
   * Deletes rows, their links, and the references other tables hold to them (set to NULL, as the
   * API's own relationships lose a deleted record): a server that unlinks silently, without
   * touching the referrers' `updatedAt`, leaves the mirror right all the same.
   */
  private removeRows(spec: TableSpec, ids: readonly (number | bigint)[], how: DeleteHow, at: string): number {
    let n = 0;
    const del = this.db.prepare(`DELETE FROM ${quoteId(spec.table)} WHERE id = ?`);
    const exists = `SELECT 1 AS x FROM ${quoteId(spec.table)} WHERE id = ?`;
    const log = this.db.prepare('INSERT INTO _svc_deleted (type, id, detected_at, how) VALUES (?, ?, ?, ?)');
    const unlink = [
      ...spec.links.map((l) => this.db.prepare(`DELETE FROM ${quoteId(l.table)} WHERE ${quoteId(l.ownerColumn)} = ?`)),
      ...[...this.specs.values()].flatMap((other) => [
        ...other.columns
          .filter((c) => 'relationship' in c.from && c.from.target === spec.type)
          .map((c) => this.db.prepare(`UPDATE ${quoteId(other.table)} SET ${quoteId(c.name)} = NULL WHERE ${quoteId(c.name)} = ?`)),
        ...other.links
          .filter((l) => l.target === spec.type)
          .map((l) => this.db.prepare(`DELETE FROM ${quoteId(l.table)} WHERE ${quoteId(l.memberColumn)} = ?`)),
      ]),
    ];
    for (const id of ids) {
      if (!this.db.get(exists, [id])) continue;
      del.run([id]);
      for (const u of unlink) u.run([id]);
      log.run([spec.type, id, at, how]);
      n++;
    }
    return n;
  }

  /** Rows of a table. */
  count(table: string): number {
    return Number((this.db.get(`SELECT count(*) AS n FROM ${quoteId(table)}`) as { n: number }).n);
  }
}

/** An error opening the file, said in one line with the fix. */
export function openError(file: string, err: unknown): Error {
  const msg = err instanceof Error ? err.message : String(err);
  if (err instanceof LockTimeoutError || /database is locked|SQLITE_BUSY/i.test(msg)) {
    const who = err instanceof LockTimeoutError && err.owner ? ` (pid ${err.owner.pid})` : '';
    return new UsageError(`the mirror ${file} is busy: another svc${who} is writing it`).hint(
      'try again when that svc sync ends (on Node 22.13 and later, svc sql reads while a sync writes)',
    );
  }
  if (/not a database|malformed|file is encrypted/i.test(msg)) return foreignFile(file);
  if (/readonly|read-only|EACCES|EROFS|ENOENT|EISDIR|ENOTDIR|no such file|permission|unable to open/i.test(msg)) {
    return new UsageError(`cannot write the mirror ${file}: ${msg}`).hint(
      'choose a writable file with --db, or fix the permissions of its directory',
    );
  }
  return err instanceof Error ? err : new Error(msg);
}

/** The member ids of a to-many relationship in the scanner's text (`[1,2]`); undefined when it is not a list. */
function flatLinkIds(v: unknown): (number | bigint)[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: (number | bigint)[] = [];
  for (const m of v) {
    const id = sqlId(m);
    if (id !== null) out.push(id);
  }
  return out;
}

/** The later of two ISO date-times (either may be missing). */
function laterOf(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return parseTime(b) > parseTime(a) ? b : a;
}

/** Epoch ms of an ISO date-time; one without a zone is UTC, as the service writes it. */
export function parseTime(v: string): number {
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(v) ? v : `${v}Z`);
}
