/**
 * The mirror: one SQLite file, or one PostgreSQL schema, per profile (the differences between
 * the two are in dialect/; this file is the one code path over both). Beside the types' tables (naming.ts) it holds
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
 * any point resumes after its last whole page and nothing is half-written. A page's rows go in
 * as one multi-row upsert per table (dialect/: chunks of `VALUES` in SQLite, `COPY` into a
 * staging table in PostgreSQL), its links and seen ids likewise.
 */
import { LockTimeoutError } from '../auth/lock.js';
import { ExitCode, SvcError, UsageError } from '../errors.js';
import type { ResourceObject } from '../api/jsonapi.js';
import { attributeMarks, relationshipsText, unparsedAttributesRegion } from '../listing/page-parse.js';
import { KeySlots, readAttributeValues, readMarkedValues } from './attribute-values.js';
import type { ColumnKind, MirrorDb, WriteColumn } from './dialect/types.js';
import { columnValue, isMirrorRelation, labelledViewOf, sqlId, linkIds, quoteId, storedValue, type TableSpec } from './naming.js';
import type { SqlRow, SqlValue } from './sqlite.js';
import { apiTime } from '../api-time.js';

/** Bumped when svc's own tables change shape: an older file is refused with `--rebuild`. */
const LAYOUT = '1';

/** The `_svc_mirror` key prefix of a table the last sync could not read ({@link MirrorStore.setUnreadable}). */
export const UNREADABLE = 'unreadable:';

/** What a mirror is of. */
export interface MirrorIdentity {
  baseUrl: string;
  orgId: string;
  orgName: string;
}

/**
 * Where a mirror is: a SQLite file, or a schema on a PostgreSQL server. `named`: the file was
 * given with --db (a hint repeats it); `elsewhere`: for a file not made yet, how to read the
 * mirror that is there (`svc --sandbox sql`).
 */
export type MirrorTarget =
  | { kind: 'file'; file: string; named?: boolean; elsewhere?: string }
  | { kind: 'postgres'; url: string; schema: string };

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

/**
 * Says a file or schema is not a mirror svc can use, with the fix. Not `--rebuild`: it replaces
 * only a mirror, never tables svc did not make (a team's own, beside a schema's mirror).
 */
function foreignFile(where: string): UsageError {
  return new UsageError(`${where} is not an svc mirror (a corrupt or foreign database)`).hint(
    'choose another file with --db (another schema with --schema); svc replaces only a mirror of its own',
  );
}

/** Opens a mirror's database for writing, with the binding or driver its kind needs. */
export async function openMirrorDb(target: MirrorTarget, opts: { readOnly?: boolean } = {}): Promise<MirrorDb> {
  if (target.kind === 'postgres') {
    const { openPostgres } = await import('./dialect/postgres.js');
    return openPostgres({ url: target.url, schema: target.schema, readOnly: opts.readOnly === true });
  }
  const { openDatabase } = await import('./sqlite.js');
  const { sqliteMirrorDb } = await import('./dialect/sqlite.js');
  try {
    return sqliteMirrorDb(await openDatabase(target.file, { readOnly: opts.readOnly === true }), target.file);
  } catch (err) {
    throw openError(target.file, err);
  }
}

/** The `_svc_tables.columns` record of a column: its type in this database. */
function kindOf(c: TableSpec['columns'][number]): ColumnKind {
  return 'attribute' in c.from ? c.from.type : 'id';
}

/** A mirror opened for writing (`svc sync`). */
export class MirrorStore {
  /** The tables prepared in this run, by type: a delete unlinks what refers to it (removeRows). */
  private readonly specs = new Map<string, TableSpec>();
  /** Each table's attribute columns by key, for reading values from a page's bytes. */
  private readonly keySlots = new Map<TableSpec, KeySlots>();

  private constructor(readonly db: MirrorDb) {}

  /** Where the mirror is (a file, or a server and schema without the password). */
  get file(): string {
    return this.db.where;
  }

  /** Opens (or creates) the mirror and checks it mirrors `id`. */
  static async open(
    target: MirrorTarget,
    id: MirrorIdentity,
    opts: { rebuild?: boolean; say?: (line: string) => void } = {},
  ): Promise<MirrorStore> {
    const db = await openMirrorDb(target);
    const store = new MirrorStore(db);
    try {
      if (db.dialect === 'sqlite') await db.exec('PRAGMA synchronous=NORMAL');
      if (opts.rebuild) await store.dropAll(opts.say ?? (() => {}));
      // After a rebuild, the tables left are those svc did not make: kept beside the new mirror.
      await store.checkIdentity(id, opts.rebuild === true);
    } catch (err) {
      await db.close();
      throw err instanceof UsageError || db.dialect === 'postgres' ? err : openError(db.where, err);
    }
    return store;
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** Runs `fn` in one transaction (a second writer waits rather than fails late). */
  tx<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.tx(fn);
  }

  /**
   * `--rebuild`: drops the mirror's own tables and views, and nothing else. A file or schema that
   * is no mirror is refused (its tables are someone's); tables beside a mirror that svc did not
   * make are kept and named; a view of someone's on the mirror's tables stops the drop (no
   * CASCADE: it would go with them), and nothing is dropped.
   */
  private async dropAll(say: (line: string) => void): Promise<void> {
    await this.db.tx(
      async () => {
        const rels = await this.db.relations();
        if (!rels.some((r) => r.name === '_svc_mirror')) {
          if (rels.length > 0) throw foreignFile(this.db.where);
          return;
        }
        const kept = rels.filter((r) => !isMirrorRelation(r.name)).map((r) => r.name);
        // Views first: a table's views would otherwise stop its drop.
        const ours = rels.filter((r) => isMirrorRelation(r.name)).sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'view' ? -1 : 1));
        for (const t of ours) {
          try {
            await this.db.exec(`DROP ${t.kind === 'view' ? 'VIEW' : 'TABLE'} IF EXISTS ${quoteId(t.name)}`);
          } catch (err) {
            throw dropRefused(
              err,
              `cannot rebuild ${this.db.where}`,
              'drop or move what depends on the mirror first, or choose another schema with --schema; nothing was dropped',
            );
          }
        }
        if (kept.length) say(`--rebuild kept what svc did not make: ${kept.join(', ')}`);
      },
      { setup: true },
    );
  }

  private async checkIdentity(id: MirrorIdentity, rebuilt: boolean): Promise<void> {
    await this.db.tx(
      async () => {
        const rels = await this.db.relations();
        const has = rels.some((r) => r.name === '_svc_mirror');
        if (!has && rels.length > 0 && !rebuilt) throw foreignFile(this.db.where);
        if (has) return;
        const idType = this.db.columnType('id');
        await this.db.exec('CREATE TABLE _svc_mirror (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
        await this.db.exec(
          'CREATE TABLE _svc_tables (table_name TEXT PRIMARY KEY, type TEXT NOT NULL, watermark TEXT, synced_at TEXT, reconciled_at TEXT, run_cursor TEXT, run_kind TEXT, run_since TEXT, run_max TEXT, run_started_at TEXT, columns TEXT)',
        );
        await this.db.exec(
          `CREATE TABLE _svc_seen (table_name TEXT NOT NULL, id ${idType} NOT NULL, PRIMARY KEY (table_name, id))${this.db.keyedTableSuffix}`,
        );
        await this.db.exec(
          `CREATE TABLE _svc_deleted (type TEXT NOT NULL, id ${idType} NOT NULL, detected_at TEXT NOT NULL, how TEXT NOT NULL)`,
        );
        for (const [k, v] of [
          ['layout', LAYOUT],
          ['base_url', id.baseUrl],
          ['org_id', id.orgId],
          ['org_name', id.orgName],
        ] as const)
          await this.db.run('INSERT INTO _svc_mirror (key, value) VALUES (?, ?)', [k, v]);
      },
      { setup: true },
    );
    const meta = await this.meta();
    if (meta.get('layout') !== LAYOUT)
      throw new UsageError(`${this.db.where} is a mirror in a layout this svc does not read (another version of svc)`).hint(
        'run `svc sync --rebuild` to build it afresh, or choose another file with --db (another schema with --schema)',
      );
    if (meta.get('base_url') !== id.baseUrl || meta.get('org_id') !== id.orgId) {
      throw new UsageError(
        `${this.db.where} mirrors org "${meta.get('org_name')}" (${meta.get('org_id')}) at ${meta.get('base_url')}, not org "${id.orgName}" (${id.orgId}) at ${id.baseUrl}`,
      ).hint(
        this.db.dialect === 'postgres'
          ? 'choose another schema with --schema, or run `svc sync --rebuild` to replace it with this org'
          : 'choose another file with --db, or run `svc sync --rebuild` to replace it with this org',
      );
    }
  }

  async meta(): Promise<Map<string, string>> {
    return new Map((await this.db.all('SELECT key, value FROM _svc_mirror')).map((r) => [String(r.key), String(r.value)]));
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.db.run('INSERT INTO _svc_mirror (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
      key,
      value,
    ]);
  }

  /**
   * Creates a type's tables, or migrates them: new columns are added; a column whose type
   * changed or that went away makes the table be rebuilt (said through `say`). The labelled view
   * is made again every time (labels change without columns changing).
   */
  async prepare(spec: TableSpec, say: (line: string) => void): Promise<TableState> {
    this.specs.set(spec.type, spec);
    const columns = spec.columns.map((c) => [c.name, this.db.columnType(kindOf(c))] as [string, string]);
    const idType = this.db.columnType('id');
    await this.db.tx(
      async () => {
        let state = await this.state(spec.table);
        if (state?.columns) {
          const old = new Map(JSON.parse(state.columns) as [string, string][]);
          const changed = [...old].some(([name, type]) => !columns.some(([n, t]) => n === name && t === type));
          const gone = [...old.keys()].filter((name) => !columns.some(([n]) => n === name));
          const retyped = columns.some(([n, t]) => old.has(n) && old.get(n) !== t);
          if (changed && spec.orgUnread && gone.length > 0 && !retyped) {
            // Columns the org's schema gave an earlier run, missing now because it could not be
            // read (a 5xx, a timeout): rebuilding would drop them and read the table again in
            // full; syncing without them would leave them stale.
            throw new SvcError(
              `${spec.table}: the mirror has fields of the org's schema (${gone.join(', ')}), which could not be read this time: nothing synced, rather than rebuild the table without them`,
              ExitCode.API,
            ).hint(
              'run the same command again once the org schema can be read (`svc schema pull` says); `svc sync --rebuild` makes the mirror without them',
            );
          }
          if (changed) {
            say(`${spec.table}: its columns changed (a newer svc or org schema); rebuilding the table`);
            await this.dropTable(spec);
            state = undefined;
          } else {
            for (const [name, type] of columns) {
              if (!old.has(name)) await this.db.exec(`ALTER TABLE ${quoteId(spec.table)} ADD COLUMN ${quoteId(name)} ${type}`);
            }
            if (columns.length !== old.size) {
              // Rows already here have nothing in the new columns: the next run reads the type in full.
              await this.db.run('UPDATE _svc_tables SET watermark = NULL WHERE table_name = ?', [spec.table]);
              say(`${spec.table}: ${columns.length - old.size} new columns (a newer svc or org schema); reading the table again in full`);
            }
          }
        }
        const cols = [`id ${idType} PRIMARY KEY`, ...columns.map(([n, t]) => `${quoteId(n)} ${t}`)];
        await this.db.exec(`CREATE TABLE IF NOT EXISTS ${quoteId(spec.table)} (${cols.join(', ')})`);
        for (const c of spec.columns) {
          if (!('relationship' in c.from)) continue;
          await this.db.exec(
            `CREATE INDEX IF NOT EXISTS ${quoteId(`${spec.table}_${c.name}`)} ON ${quoteId(spec.table)} (${quoteId(c.name)})`,
          );
        }
        for (const l of spec.links) {
          await this.db.exec(
            `CREATE TABLE IF NOT EXISTS ${quoteId(l.table)} (${quoteId(l.ownerColumn)} ${idType} NOT NULL, ${quoteId(l.memberColumn)} ${idType} NOT NULL, PRIMARY KEY (${quoteId(l.ownerColumn)}, ${quoteId(l.memberColumn)}))${this.db.keyedTableSuffix}`,
          );
          await this.db.exec(
            `CREATE INDEX IF NOT EXISTS ${quoteId(`${l.table}_${l.memberColumn}`)} ON ${quoteId(l.table)} (${quoteId(l.memberColumn)})`,
          );
        }
        // Without the org's schema there are no labels to name: the view made last time stays.
        if (!spec.orgUnread) await this.labelledView(spec, ['id', ...columns.map(([n]) => n)], say);
        const json = JSON.stringify(columns);
        if (state) await this.db.run('UPDATE _svc_tables SET columns = ? WHERE table_name = ?', [json, spec.table]);
        else await this.db.run('INSERT INTO _svc_tables (table_name, type, columns) VALUES (?, ?, ?)', [spec.table, spec.type, json]);
      },
      { setup: true },
    );
    return (await this.state(spec.table))!;
  }

  /**
   * `<table>_labelled`: the table's columns, the custom fields under their labels. Made again on
   * every sync, as one statement as written (a label is the org's text: `;` and `?` are its own).
   * A view of someone's on it (a BI tool's) keeps PostgreSQL from dropping it: then it is
   * replaced in place, which PostgreSQL allows while its columns keep their names and types, or
   * else kept as it was, and said.
   */
  private async labelledView(spec: TableSpec, columns: readonly string[], say: (line: string) => void): Promise<void> {
    const view = labelledViewOf(spec.table);
    const body = Object.keys(spec.labels).length > 0 ? this.labelledSelect(spec, columns) : undefined;
    if (await this.attempt(`DROP VIEW IF EXISTS ${quoteId(view)}`)) {
      if (body) await this.db.execOne(`CREATE VIEW ${quoteId(view)} AS ${body}`);
      return;
    }
    if (body && (await this.attempt(`CREATE OR REPLACE VIEW ${quoteId(view)} AS ${body}`))) return;
    say(`${view} kept as it was: a view of someone's reads it, and its columns changed (drop that view, and svc sync makes ${view} again)`);
  }

  /** The labelled view's query: each column once, under its label where that names nothing else. */
  private labelledSelect(spec: TableSpec, columns: readonly string[]): string {
    // Names compare as the databases compare quoted names in a view: PostgreSQL refuses two the
    // same, SQLite renames the second `x:1`; a label that is a column's name, or another field's
    // label, in any case, leaves that field under its own name.
    const taken = new Set(columns.map((n) => n.toLowerCase()));
    const numeric = new Set(spec.numeric);
    return `SELECT ${columns
      .map((n) => {
        const label = spec.labels[n];
        const name = label && !taken.has(label.toLowerCase()) ? label : n;
        taken.add(name.toLowerCase());
        // The API sends a numerical custom field as text ("41"): as text, max() and order by
        // put "9" after "10". The view reads it as a number; the table keeps the text as sent.
        if (numeric.has(n)) return `${this.db.numberOf(quoteId(n))} AS ${quoteId(name)}`;
        return name === n ? quoteId(n) : `${quoteId(n)} AS ${quoteId(name)}`;
      })
      .join(', ')} FROM ${quoteId(spec.table)}`;
  }

  /**
   * One statement in a savepoint of the open transaction: false, with the transaction as it was,
   * when PostgreSQL refuses it for what depends on it (2BP01) or for columns a view cannot change
   * in place (42P16).
   */
  private async attempt(sql: string): Promise<boolean> {
    await this.db.exec('SAVEPOINT svc_attempt');
    try {
      await this.db.execOne(sql);
    } catch (err) {
      await this.db.exec('ROLLBACK TO SAVEPOINT svc_attempt');
      await this.db.exec('RELEASE SAVEPOINT svc_attempt');
      const code = (err as { code?: string }).code;
      if (code === DEPENDED_ON || code === '42P16') return false;
      throw err;
    }
    await this.db.exec('RELEASE SAVEPOINT svc_attempt');
    return true;
  }

  /**
   * Drops a type's tables to make them again. svc's own view on the table goes first, and nothing
   * else with it: on PostgreSQL, CASCADE also took a team's views of the table (a BI tool's)
   * without a word; now such a view stops the rebuild, and the transaction puts back what went.
   */
  private async dropTable(spec: TableSpec): Promise<void> {
    try {
      await this.db.exec(`DROP VIEW IF EXISTS ${quoteId(labelledViewOf(spec.table))}`);
      await this.db.exec(`DROP TABLE IF EXISTS ${quoteId(spec.table)}`);
      for (const l of spec.links) await this.db.exec(`DROP TABLE IF EXISTS ${quoteId(l.table)}`);
    } catch (err) {
      throw dropRefused(
        err,
        `cannot rebuild ${spec.table} in ${this.db.where}, whose columns changed`,
        'drop what depends on it (and make it again after the sync), then run the same command again; nothing was dropped',
      );
    }
    await this.db.run('DELETE FROM _svc_tables WHERE table_name = ?', [spec.table]);
    await this.db.run('DELETE FROM _svc_seen WHERE table_name = ?', [spec.table]);
  }

  async state(table: string): Promise<TableState | undefined> {
    const r = await this.db.get('SELECT * FROM _svc_tables WHERE table_name = ?', [table]);
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

  /**
   * Holds the table for this syncer (dialect's lease): another `svc sync` of the same mirror
   * waits for it, so the pages of one type are never interleaved.
   */
  lease(table: string, waiting: () => void): Promise<() => Promise<void>> {
    return this.db.lease(table, waiting);
  }

  /**
   * Marks a table the sync's token may not read (`scope`, the one it lacks), or clears the mark
   * (null) once it is read: a key `unreadable:<table>` of `_svc_mirror`, so that `svc sql` and
   * `svc sync --status` say the last sync did not refresh it (empty, or as old as the sync before)
   * rather than that a sync would. The mark is the mirror's, whichever login left it.
   */
  async setUnreadable(table: string, scope: string | null): Promise<void> {
    await this.tx(async () => {
      if (scope !== null) await this.setMeta(`${UNREADABLE}${table}`, scope);
      else await this.db.run('DELETE FROM _svc_mirror WHERE key = ?', [`${UNREADABLE}${table}`]);
    });
  }

  /** Ends a run that read nothing (its first page was refused): the table is as before it started. */
  async endEmptyRun(table: string): Promise<void> {
    await this.tx(async () => {
      await this.db.run('DELETE FROM _svc_seen WHERE table_name = ?', [table]);
      await this.db.run(
        'UPDATE _svc_tables SET run_cursor = NULL, run_kind = NULL, run_since = NULL, run_max = NULL, run_started_at = NULL WHERE table_name = ?',
        [table],
      );
    });
  }

  /** Records the start of a run (the cursor starts at id 0). */
  async startRun(table: string, kind: RunKind, since: string | null, startedAt: string, runMax: string | null): Promise<void> {
    await this.tx(async () => {
      await this.db.run('DELETE FROM _svc_seen WHERE table_name = ?', [table]);
      await this.db.run(
        'UPDATE _svc_tables SET run_cursor = ?, run_kind = ?, run_since = ?, run_max = ?, run_started_at = ? WHERE table_name = ?',
        ['0', kind, since, runMax, startedAt, table],
      );
    });
  }

  /**
   * Upserts one page's records (none for a reconcile run, which only notes the ids it saw) and
   * moves the run's cursor past them, in one transaction.
   * @param changedAfter epoch ms: records updated later count as changed (all, when not given)
   * @returns the run's highest `updatedAt` with this page's, and how many records changed
   */
  commitPage(
    spec: TableSpec,
    records: readonly ResourceObject[],
    cursor: string,
    runMax: string | null,
    kind: RunKind,
    changedAfter?: number,
  ): Promise<CommittedPage> {
    // Built before the transaction: it is held only for the writes.
    return this.commitPrepared(spec, this.preparePage(spec, records, kind, changedAfter), cursor, runMax);
  }

  /**
   * A page made ready for {@link commitPrepared}, read out of its records at once (their page's
   * memory may be handed back after this returns): its rows and links, the ids a reading run
   * notes as seen. Apart from the writing so that a bench can prepare pages elsewhere
   * (bench/pg-ingest-worker.mjs).
   */
  preparePage(spec: TableSpec, records: readonly ResourceObject[], kind: RunKind, changedAfter?: number): PreparedPage {
    const rows = kind !== 'reconcile' ? this.pageRows(spec, records, changedAfter) : undefined;
    let seen: SqlValue[][] | undefined;
    if (kind !== 'incremental') {
      seen = [];
      for (const r of records) {
        const id = sqlId(r.id);
        if (id !== null) seen.push([spec.table, id]);
      }
    }
    return { rows, seen };
  }

  /** Writes a prepared page and moves the cursor past it, in one transaction (see {@link commitPage}). */
  commitPrepared(spec: TableSpec, page: PreparedPage, cursor: string, runMax: string | null): Promise<CommittedPage> {
    return this.tx(async () => {
      let changed = 0;
      if (page.rows) {
        runMax = laterOf(runMax, page.rows.highest);
        changed = page.rows.changed + (await this.changedOfOverlap(spec, page.rows.overlap));
        await this.writePage(spec, page.rows);
      }
      if (page.seen) await this.db.write('_svc_seen', SEEN_COLUMNS, page.seen, ['table_name', 'id'], []);
      await this.db.run('UPDATE _svc_tables SET run_cursor = ?, run_max = ? WHERE table_name = ?', [cursor, runMax, spec.table]);
      return { runMax, changed };
    });
  }

  /**
   * How many records of the overlap an incremental run reads again (stamped at or before the last
   * run's highest `updatedAt`) changed since the mirror's row was written: another `updatedAt`, or
   * no row. Read before the page is written. Comparing stamps alone called them all unchanged,
   * though a record changed in the same second as the last run's newest one, or committed after
   * its page was read with an earlier stamp, is new to the mirror (the summary said `0 changed`).
   */
  private async changedOfOverlap(spec: TableSpec, overlap: PageRows['overlap']): Promise<number> {
    const column = spec.columns.find((c) => 'attribute' in c.from && c.from.attribute === 'updatedAt');
    if (!column || overlap.length === 0) return 0;
    const held = new Map<string, number>();
    for (let i = 0; i < overlap.length; i += OVERLAP_CHUNK) {
      const ids = overlap.slice(i, i + OVERLAP_CHUNK).map((o) => o.id);
      const rows = await this.db.all(
        `SELECT id, ${quoteId(column.name)} AS at FROM ${quoteId(spec.table)} WHERE id IN (${ids.map(() => '?').join(', ')})`,
        ids,
      );
      for (const r of rows) held.set(String(r['id']), typeof r['at'] === 'string' ? apiTime(r['at']) : Number.NaN);
    }
    return overlap.filter((o) => held.get(String(o.id)) !== o.at).length;
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

  /** A page's rows, each record's links (undefined: it did not send the relationship), its highest `updatedAt`. */
  private pageRows(spec: TableSpec, records: readonly ResourceObject[], changedAfter?: number): PageRows {
    const slots = this.slotsOf(spec);
    const read: unknown[] = new Array(spec.columns.length);
    const kinds = new Uint8Array(spec.columns.length);
    const updatedAt = spec.columns.findIndex((c) => 'attribute' in c.from && c.from.attribute === 'updatedAt');
    const relationshipOf = spec.columns.map((c) => ('relationship' in c.from ? c.from.relationship : undefined));
    // By id: a record twice in one page (a server's paging quirk) is written once, as it came last.
    const rows = new Map<number | bigint, SqlValue[]>();
    const links = spec.links.map(() => new Map<number | bigint, (number | bigint)[]>());
    let highest: string | null = null;
    let changed = 0;
    const overlap: PageRows['overlap'] = [];
    for (const r of records) {
      const id = sqlId(r.id);
      if (id === null) continue;
      const values: SqlValue[] = new Array(spec.columns.length + 1);
      values[0] = id;
      // The attributes from the page's bytes when they are still there (the cheap way: no object
      // of ~190 keys built per record): the members with a value where the page's scan marked
      // them, else the region read again; else from the decoded object.
      kinds.fill(0);
      const marked = attributeMarks(r);
      let fromBytes = marked !== undefined;
      if (marked) readMarkedValues(marked.page, marked.marks, marked.from, marked.to, slots, read, kinds);
      else {
        const raw = unparsedAttributesRegion(r);
        fromBytes = raw !== undefined && readAttributeValues(raw.page, raw.start, raw.end, slots, read, kinds);
      }
      const attributes = fromBytes ? undefined : r.attributes;
      // The relationships as the page's scanner wrote them (`,"account":3,"owner":[1,2]`: the ids of
      // those with data) when it could; else the decoded object, with its links.
      const flat = relationshipsText(r);
      const ids = flat === undefined ? undefined : (JSON.parse(`{${flat.slice(1)}}`) as Record<string, unknown>);
      const relationships = ids === undefined ? r.relationships : undefined;
      for (let i = 0; i < spec.columns.length; i++) {
        const rel = relationshipOf[i];
        // Most columns are attributes the record did not send a value in (nulls are not read).
        if (fromBytes && rel === undefined)
          values[i + 1] = kinds[i] === 0 ? null : storedValue(spec.columns[i]!, kinds[i] as never, read[i]);
        else if (rel !== undefined && ids) values[i + 1] = sqlId(ids[rel]);
        else values[i + 1] = columnValue(spec.columns[i]!, attributes, relationships);
      }
      rows.delete(id);
      rows.set(id, values);
      const stamp = updatedAt >= 0 ? values[updatedAt + 1] : undefined;
      if (typeof stamp === 'string') highest = laterOf(highest, stamp);
      // Not known to be older than the mirror (no date, or one that does not parse): changed.
      const at = typeof stamp === 'string' ? apiTime(stamp) : Number.NaN;
      if (changedAfter === undefined || !(at <= changedAfter)) changed++;
      else overlap.push({ id, at });
      spec.links.forEach((l, k) => {
        const members = ids ? flatLinkIds(ids[l.relationship]) : linkIds(r, l.relationship);
        // A record that did not send the relationship keeps the links it had.
        if (members !== undefined) links[k]!.set(id, members);
      });
    }
    return { rows: [...rows.values()], links, highest, changed, overlap };
  }

  /** One multi-row upsert for the records, and for each link table a delete and an insert of the members sent. */
  private async writePage(spec: TableSpec, page: PageRows): Promise<void> {
    const columns: WriteColumn[] = [{ name: 'id', kind: 'id' }, ...spec.columns.map((c) => ({ name: c.name, kind: kindOf(c) }))];
    await this.db.write(
      spec.table,
      columns,
      page.rows,
      ['id'],
      spec.columns.map((c) => c.name),
    );
    // The links the page's records sent replace theirs: one delete for every link table, then
    // each table's members.
    const sent = spec.links.map((l, k) => ({ table: l.table, column: l.ownerColumn, ids: [...page.links[k]!.keys()] }));
    const owning = sent.filter((t) => t.ids.length > 0);
    if (owning.length > 0) await this.db.deleteIn(owning);
    for (let k = 0; k < spec.links.length; k++) {
      const l = spec.links[k]!;
      const pairs: SqlValue[][] = [];
      for (const [owner, members] of page.links[k]!) for (const m of members) pairs.push([owner, m]);
      if (pairs.length === 0) continue;
      await this.db.write(
        l.table,
        [
          { name: l.ownerColumn, kind: 'id' },
          { name: l.memberColumn, kind: 'id' },
        ],
        pairs,
        [l.ownerColumn, l.memberColumn],
        [],
      );
    }
  }

  /**
   * Ends a run: the watermark moves to `watermark`. A full or reconcile run deletes the rows it
   * did not see (they are gone from the API).
   * @returns the ids deleted
   */
  finishRun(spec: TableSpec, kind: RunKind, watermark: string | null, at: string): Promise<number> {
    return this.tx(async () => {
      let deleted = 0;
      if (kind !== 'incremental') {
        const gone = (
          await this.db.all(`SELECT id FROM ${quoteId(spec.table)} WHERE id NOT IN (SELECT id FROM _svc_seen WHERE table_name = ?)`, [
            spec.table,
          ])
        ).map((r) => r.id as number | bigint);
        deleted = await this.removeRows(spec, gone, kind === 'full' ? 'full read' : 'reconcile', at);
        await this.db.run('DELETE FROM _svc_seen WHERE table_name = ?', [spec.table]);
      }
      const ended = 'run_cursor = NULL, run_kind = NULL, run_since = NULL, run_max = NULL, run_started_at = NULL';
      if (kind === 'reconcile') {
        await this.db.run(`UPDATE _svc_tables SET reconciled_at = ?, ${ended} WHERE table_name = ?`, [at, spec.table]);
      } else {
        // A full read reconciles too: what it did not see is gone.
        const also = kind === 'full' ? ', reconciled_at = ?' : '';
        const params = kind === 'full' ? [watermark, at, at, spec.table] : [watermark, at, spec.table];
        await this.db.run(`UPDATE _svc_tables SET watermark = ?, synced_at = ?${also}, ${ended} WHERE table_name = ?`, params);
      }
      return deleted;
    });
  }

  /** Deletes rows found gone by events; in one transaction with the events cursor. */
  deleteFromEvents(spec: TableSpec, ids: readonly (number | bigint)[], at: string): Promise<number> {
    return this.removeRows(spec, ids, 'event', at);
  }

  /**
   * Deletes rows, their links, and the references other tables hold to them (set to NULL, as the
   * API's own relationships lose a deleted record): a server that unlinks silently, without
   * touching the referrers' `updatedAt`, leaves the mirror right all the same.
   */
  private async removeRows(spec: TableSpec, ids: readonly (number | bigint)[], how: DeleteHow, at: string): Promise<number> {
    let n = 0;
    // Only a row this transaction took out is unlinked, logged and counted. Two syncers of one
    // PostgreSQL mirror apply the same delete events at once: both saw the row (a check before the
    // delete sees it while the other's delete is uncommitted), the second's delete waited for the
    // first's commit and removed nothing, and the removal was logged and counted twice.
    const remove = `DELETE FROM ${quoteId(spec.table)} WHERE id = ? RETURNING id`;
    const unlink = [
      ...spec.links.map((l) => `DELETE FROM ${quoteId(l.table)} WHERE ${quoteId(l.ownerColumn)} = ?`),
      ...[...this.specs.values()].flatMap((other) => [
        ...other.columns
          .filter((c) => 'relationship' in c.from && c.from.target === spec.type)
          .map((c) => `UPDATE ${quoteId(other.table)} SET ${quoteId(c.name)} = NULL WHERE ${quoteId(c.name)} = ?`),
        ...other.links
          .filter((l) => l.target === spec.type)
          .map((l) => `DELETE FROM ${quoteId(l.table)} WHERE ${quoteId(l.memberColumn)} = ?`),
      ]),
    ];
    for (const id of ids) {
      if ((await this.db.all(remove, [id])).length === 0) continue;
      for (const u of unlink) await this.db.run(u, [id]);
      await this.db.run('INSERT INTO _svc_deleted (type, id, detected_at, how) VALUES (?, ?, ?, ?)', [spec.type, id, at, how]);
      n++;
    }
    return n;
  }

  /** Rows of a table. */
  async count(table: string): Promise<number> {
    return Number((await this.db.get(`SELECT count(*) AS n FROM ${quoteId(table)}`))?.n ?? 0);
  }
}

/** A page made ready for its transaction (MirrorStore.preparePage). */
interface PreparedPage {
  /** Its rows; none for a reconcile run. */
  rows: PageRows | undefined;
  /** The ids a full or reconcile run notes as seen (`_svc_seen`); none for an incremental run. */
  seen: SqlValue[][] | undefined;
}

/** Ids a statement asks about at once (well under SQLite's and PostgreSQL's parameter limits). */
const OVERLAP_CHUNK = 500;

/** A page's rows made ready for writing (MirrorStore.pageRows). */
interface PageRows {
  rows: SqlValue[][];
  /** Per link table, the members each record sent. */
  links: Map<number | bigint, (number | bigint)[]>[];
  highest: string | null;
  /** Records updated after the time a caller asked about (all of them otherwise). */
  changed: number;
  /**
   * Records stamped at or before that time (the overlap an incremental run reads again): changed
   * only where the mirror holds another `updatedAt` for them, or no row (see changedOfOverlap).
   */
  overlap: { id: number | bigint; at: number }[];
}

/** What a committed page moved: the run's highest `updatedAt`, the page's changed records. */
interface CommittedPage {
  runMax: string | null;
  changed: number;
}

/** PostgreSQL's error for a drop that another object depends on. */
const DEPENDED_ON = '2BP01';

/**
 * A drop PostgreSQL refused because something depends on what it drops (a view of someone's),
 * said with what depends on it and the fix; any other error as it was.
 */
function dropRefused(err: unknown, what: string, fix: string): unknown {
  const e = err as { code?: string; detail?: string; message?: string };
  if (e.code !== DEPENDED_ON) return err;
  return new UsageError(`${what}: ${e.detail ?? e.message}`).hint(fix);
}

const SEEN_COLUMNS: readonly WriteColumn[] = [
  { name: 'table_name', kind: 'string' },
  { name: 'id', kind: 'id' },
];

/** An error opening the file, said in one line with the fix. */
export function openError(file: string, err: unknown): Error {
  const msg = err instanceof Error ? err.message : String(err);
  if (err instanceof LockTimeoutError || /database is locked|SQLITE_BUSY/i.test(msg)) {
    const who = err instanceof LockTimeoutError && err.owner ? ` (pid ${err.owner.pid})` : '';
    return new UsageError(`the mirror ${file} is busy: another svc${who} is writing it`).hint(
      'try again when that svc sync ends (on Node 22.13 and later, svc sql reads while a sync writes)',
    );
  }
  if (/not a database|malformed|file is encrypted/i.test(msg))
    return new UsageError(`${file} is not an svc mirror: not a SQLite database, or a damaged one`).hint(
      'if svc made it, delete it and run svc sync again (the org holds every record: nothing is lost); otherwise choose another file with --db',
    );
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
  return apiTime(b) > apiTime(a) ? b : a;
}
