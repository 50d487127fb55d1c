/**
 * Compares a mirror with the API, written apart from src/mirror so that a mistake there cannot
 * hide itself: every record the API lists (read here by keyset, plain fetch) must be a row with
 * each attribute in its snake_case column (booleans 0/1, lists and objects as JSON text), each
 * to-one relationship in `<name>_id`, each embedded to-many relationship in its link table; and
 * no row may be left that the API does not list.
 */
import { expect } from 'vitest';
import type { Client } from './sandbox.js';
import { runInProcess } from './in-process-cli.js';

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

/** `--db FILE`, or the arguments that name a mirror (`--db postgres://… --schema s`). */
export type MirrorArgs = string | readonly string[];
const dbArgs = (db: MirrorArgs): string[] => (typeof db === 'string' ? ['--db', db] : [...db]);

/**
 * The rows of a mirror table, through `svc sql -o ndjson`: each line is the JSON text `-o json`
 * indents (both write JSON.stringify of the same row), without the indenting and the longer text
 * to parse (the indenter was ~3 % of mirror-faults' worker CPU; `-o json` is tested in sync-sql).
 */
export async function mirrorRows(env: NodeJS.ProcessEnv, db: MirrorArgs, table: string): Promise<any[]> {
  const r = await runInProcess(['sql', ...dbArgs(db), '-o', 'ndjson', `select * from "${table}" order by 1, 2`], env, {
    timeoutMs: 600_000,
  });
  expect(r.code, r.stderr).toBe(0);
  const rows: any[] = [];
  for (const line of r.stdout.split('\n')) if (line !== '') rows.push(JSON.parse(line));
  return rows;
}

/** Asserts the mirror's table of `path` (and its link tables) equals the API's records. */
export async function expectTableEqualsApi(c: Client, env: NodeJS.ProcessEnv, db: MirrorArgs, path: string): Promise<number> {
  const table = snake(path.slice(1));
  const records = await apiRecords(c, path);
  const rows = await mirrorRows(env, db, table);
  expect(
    rows.map((r) => String(r.id)),
    `${table}: ids`,
  ).toEqual(records.map((r) => String(r.id)).sort((a, b) => Number(a) - Number(b)));
  const byId = new Map(rows.map((r) => [String(r.id), r]));
  // Differences collected and asserted once: an expect() per cell would cost seconds a table.
  const diffs: string[] = [];
  const same = (cell: unknown, want: unknown, where: string) => {
    // Most cells are equal strings or numbers: no JSON text for those (a table of 3,000 rows has ~500,000 cells).
    if (cell === want || JSON.stringify(cell) === JSON.stringify(want)) return;
    // A typed column (PostgreSQL's timestamptz) prints the same instant in ISO with its zone.
    if (
      typeof cell === 'string' &&
      typeof want === 'string' &&
      DATE_TIME.test(cell) &&
      DATE_TIME.test(want) &&
      instant(cell) === instant(want)
    )
      return;
    diffs.push(`${where}: mirror ${JSON.stringify(cell)}, API ${JSON.stringify(want)}`);
  };
  const links = new Map<string, Set<string>>();
  // Each attribute's column name, made once per table instead of once per cell.
  const columns = new Map<string, string>();
  const column = (name: string): string => {
    let col = columns.get(name);
    if (col === undefined) columns.set(name, (col = snake(name)));
    return col;
  };
  for (const rec of records) {
    const row = byId.get(String(rec.id))!;
    for (const [name, v] of Object.entries<any>(rec.attributes ?? {})) {
      const col = column(name);
      const where = `${table} ${rec.id} ${col}`;
      if (!Object.hasOwn(row, col)) diffs.push(`${where}: no such column`);
      else if (v === null || v === undefined) same(row[col], null, where);
      // 0/1 in SQLite, a boolean in PostgreSQL.
      else if (typeof v === 'boolean') same(typeof row[col] === 'boolean' ? Number(row[col]) : row[col], v ? 1 : 0, where);
      else if (typeof v === 'object') same(typeof row[col] === 'string' ? JSON.parse(row[col]) : row[col], v, where);
      else same(row[col], v, where);
    }
    for (const [name, rel] of Object.entries<any>(rec.relationships ?? {})) {
      if (!('data' in rel)) continue;
      if (Array.isArray(rel.data)) {
        const key = `${table}_${snake(name)}`;
        const set = links.get(key) ?? new Set<string>();
        for (const m of rel.data) set.add(`${rec.id}:${m.id}`);
        links.set(key, set);
      } else {
        same(row[`${snake(name)}_id`], rel.data === null ? null : Number(rel.data.id), `${table} ${rec.id} ${snake(name)}_id`);
      }
    }
  }
  expect(diffs.slice(0, 20), `${table}: ${diffs.length} differences`).toEqual([]);
  for (const [key, want] of links) {
    const got = (await mirrorRows(env, db, key)).map((r) => Object.values(r).join(':'));
    expect(new Set(got), key).toEqual(want);
  }
  return records.length;
}
