/**
 * Compares a mirror with the API, written apart from src/mirror so that a mistake there cannot
 * hide itself: every record the API lists (read here by keyset, plain fetch) must be a row with
 * each attribute in its snake_case column (booleans 0/1, lists and objects as JSON text), each
 * to-one relationship in `<name>_id`, each embedded to-many relationship in its link table; and
 * no row may be left that the API does not list.
 */
import { expect } from 'vitest';
import type { Client } from './sandbox.js';
import { resolve } from 'node:path';
import { plainRow } from '../../src/commands/sql/handler.js';
import { isPostgresUrl } from '../../src/mirror/dialect/postgres.js';
import { openReadMirror } from '../../src/mirror/reader.js';
import type { MirrorDb } from '../../src/mirror/dialect/types.js';
import type { MirrorTarget } from '../../src/mirror/store.js';

const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/;
const instant = (s: string) => Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(s) ? s : `${s}Z`);
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Every record of a collection path, by id keyset (accounts with `named` both ways). */
export async function apiRecords(c: Client, path: string): Promise<any[]> {
  const out: any[] = [];
  let from = 0;
  for (;;) {
    const named = path === '/accounts' ? '&filter[named]=true,false' : '';
    const r = await c.get(`${path}?sort=id&page[limit]=1000&filter[id]=${from}..inf${named}`);
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    out.push(...r.body.data);
    if (r.body.data.length < 1000) return out;
    from = Math.max(...r.body.data.map((d: any) => Number(d.id))) + 1;
  }
}

/**
 * The API's records of each path a client compared, kept with the sandbox store's version at
 * the time: the store bumps it on every mutation (insert, update, delete, restore, a silent
 * cascade, the rules' timed changes), and for the sandbox's admin token a listing renders the
 * store alone (the org is fixed at start). A comparison of the same sandbox with no write since
 * (another database's mirror of it, another table after the same sync) takes the records again
 * instead of paging through the API once more: the rendering and parsing of the pages were ~3.4
 * of the ~11.5 CPU-s of the comparisons.
 */
const seen = new WeakMap<Client, Map<string, { version: number; token: string; records: any[] }>>();

/** {@link apiRecords}, or the same records again while the sandbox's store is unchanged. */
async function apiRecordsOnce(c: Client, path: string): Promise<any[]> {
  let byPath = seen.get(c);
  if (byPath === undefined) seen.set(c, (byPath = new Map()));
  const version = c.sb.store.version;
  const hit = byPath.get(path);
  if (hit !== undefined && hit.version === version && hit.token === c.sb.token) return hit.records;
  const records = await apiRecords(c, path);
  // Kept only when nothing changed while the pages were read (a write between two pages); the
  // records of an older version can never be taken again.
  for (const [p, kept] of byPath) if (kept.version !== version) byPath.delete(p);
  if (c.sb.store.version === version) byPath.set(path, { version, token: c.sb.token, records });
  else byPath.delete(path);
  return records;
}

/** `--db FILE`, or the arguments that name a mirror (`--db postgres://… --schema s`). */
export type MirrorArgs = string | readonly string[];
const dbArgs = (db: MirrorArgs): string[] => (typeof db === 'string' ? ['--db', db] : [...db]);

/** The mirror the arguments name: `--db FILE`, or `--db postgres://… --schema s`. */
function targetOf(db: MirrorArgs): MirrorTarget {
  const args = dbArgs(db);
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i < 0 ? undefined : args[i + 1];
  };
  const file = flag('--db');
  const schema = flag('--schema');
  if (file === undefined || args.length !== (schema === undefined ? 2 : 4)) throw new Error(`not a mirror's arguments: ${args.join(' ')}`);
  if (isPostgresUrl(file)) {
    if (schema === undefined) throw new Error(`a mirror on PostgreSQL needs --schema: ${args.join(' ')}`);
    return { kind: 'postgres', url: file, schema };
  }
  return { kind: 'file', file: resolve(file) };
}

/**
 * The rows of a mirror table as `svc sql -o ndjson` prints them, read through the reader `svc sql`
 * uses (src/mirror/reader.ts: the same connection, type parsers and pages) without the command
 * around it: its printing and this side's parsing of the printed lines were ~60 % of the
 * comparison's CPU (`svc sql`'s formats are tested in sync-sql). Each row made plain by the
 * command's own plainRow (bigints past 2^53 as digit strings, blobs as hex). Checked against
 * `svc sql -o ndjson` on every table the mirror files compare (261 reads, 55,074 rows, SQLite
 * and PostgreSQL): the same JSON text, key order included.
 */
export async function mirrorRows(db: MirrorArgs, table: string): Promise<any[]> {
  const mirror = await openReadMirror(targetOf(db));
  try {
    return await rowsOf(mirror, table);
  } finally {
    await mirror.close();
  }
}

/** {@link mirrorRows} through a mirror already open. */
async function rowsOf(mirror: MirrorDb, table: string): Promise<any[]> {
  const result = await mirror.query(`select * from "${table}" order by 1, 2`, {});
  const rows: any[] = [];
  for await (const page of result.pages) {
    for (const row of page) rows.push(plainRow(row));
  }
  return rows;
}

/** Asserts the mirror's table of `path` (and its link tables) equals the API's records. */
export async function expectTableEqualsApi(c: Client, db: MirrorArgs, path: string): Promise<number> {
  const table = snake(path.slice(1));
  const records = await apiRecordsOnce(c, path);
  // One connection for the table and its link tables (a prospect has six): opening one on
  // PostgreSQL (a backend started, the password checked) cost ~9 ms of this process's CPU and
  // ~38 ms of wall time, the SQLite file ~3 ms.
  const mirror = await openReadMirror(targetOf(db));
  try {
    return await compare(table, records, await rowsOf(mirror, table), (key) => rowsOf(mirror, key));
  } finally {
    await mirror.close();
  }
}

/** Asserts `rows` (and each link table `linkRows` reads) equal the API's `records` of `table`. */
async function compare(table: string, records: any[], rows: any[], linkRows: (table: string) => Promise<any[]>): Promise<number> {
  expect(
    rows.map((r) => String(r.id)),
    `${table}: ids`,
  ).toEqual(records.map((r) => String(r.id)).sort((a, b) => Number(a) - Number(b)));
  const byId = new Map(rows.map((r) => [String(r.id), r]));
  // Differences collected and asserted once: an expect() per cell would cost seconds a table.
  const diffs: string[] = [];
  // A cell's place and values are written out only when it differs, and a record's attributes
  // are walked without an entries array: a string and an array made for each of ~500,000 cells
  // (a table of 3,000 rows) were some 40 % of this loop's CPU.
  const differs = (cell: unknown, want: unknown): boolean => {
    if (cell === want) return false;
    // Two strings that differ have different JSON texts too; a typed column (PostgreSQL's
    // timestamptz) prints the same instant in ISO with its zone.
    if (typeof cell === 'string' && typeof want === 'string')
      return !(DATE_TIME.test(cell) && DATE_TIME.test(want) && instant(cell) === instant(want));
    return JSON.stringify(cell) !== JSON.stringify(want);
  };
  const differ = (cell: unknown, want: unknown, where: string) =>
    diffs.push(`${where}: mirror ${JSON.stringify(cell)}, API ${JSON.stringify(want)}`);
  const links = new Map<string, Set<string>>();
  // Each attribute's and to-one relationship's column name, made once per table instead of once per cell.
  const columns = new Map<string, string>();
  const column = (name: string): string => {
    let col = columns.get(name);
    if (col === undefined) columns.set(name, (col = snake(name)));
    return col;
  };
  const idColumns = new Map<string, string>();
  const idColumn = (name: string): string => {
    let col = idColumns.get(name);
    if (col === undefined) idColumns.set(name, (col = `${snake(name)}_id`));
    return col;
  };
  for (const rec of records) {
    const row = byId.get(String(rec.id))!;
    const attributes = rec.attributes ?? {};
    for (const name in attributes) {
      const v = attributes[name];
      const col = column(name);
      if (!Object.hasOwn(row, col)) {
        diffs.push(`${table} ${rec.id} ${col}: no such column`);
        continue;
      }
      let cell = row[col];
      let want = v;
      if (v === null || v === undefined) want = null;
      // 0/1 in SQLite, a boolean in PostgreSQL.
      else if (typeof v === 'boolean') {
        if (typeof cell === 'boolean') cell = Number(cell);
        want = v ? 1 : 0;
      } else if (typeof v === 'object' && typeof cell === 'string') cell = JSON.parse(cell);
      if (differs(cell, want)) differ(cell, want, `${table} ${rec.id} ${col}`);
    }
    for (const [name, rel] of Object.entries<any>(rec.relationships ?? {})) {
      if (!('data' in rel)) continue;
      if (Array.isArray(rel.data)) {
        const key = `${table}_${snake(name)}`;
        const set = links.get(key) ?? new Set<string>();
        for (const m of rel.data) set.add(`${rec.id}:${m.id}`);
        links.set(key, set);
      } else {
        const col = idColumn(name);
        const want = rel.data === null ? null : Number(rel.data.id);
        if (differs(row[col], want)) differ(row[col], want, `${table} ${rec.id} ${col}`);
      }
    }
  }
  expect(diffs.slice(0, 20), `${table}: ${diffs.length} differences`).toEqual([]);
  for (const [key, want] of links) {
    const got = (await linkRows(key)).map((r) => Object.values(r).join(':'));
    expect(new Set(got), key).toEqual(want);
  }
  return records.length;
}
