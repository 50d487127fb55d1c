/**
 * The SQLite dialect's multi-row upserts (src/mirror/dialect/sqlite.ts), which bind only the
 * columns some row of a run has a value in: a column left out is NULL, on insert and on update —
 * also a value an earlier run wrote — and more statement shapes than are kept prepared still
 * write right (the evicted ones are freed). Runs with the binding of the Node under test
 * (node-sqlite3-wasm on Node 20, node:sqlite on 22.13 and later).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteMirrorDb } from '../../src/mirror/dialect/sqlite.js';
import type { MirrorDb, WriteColumn } from '../../src/mirror/dialect/types.js';
import { openDatabase } from '../../src/mirror/sqlite.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function open(file: string): Promise<MirrorDb> {
  return sqliteMirrorDb(await openDatabase(file), file);
}

const COLUMNS: WriteColumn[] = [
  { name: 'id', kind: 'id' },
  { name: 'a', kind: 'string' },
  { name: 'b', kind: 'string' },
  { name: 'c', kind: 'integer' },
];
const UPDATE = ['a', 'b', 'c'];

describe('SQLite multi-row upserts', () => {
  it('writes NULL in the columns no row has a value in, on insert and over an earlier run’s values', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sqlite-write-'));
    dirs.push(dir);
    const file = path.join(dir, 'm.sqlite');
    let db = await open(file);
    await db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b TEXT, c INTEGER)');
    await db.tx(() =>
      db.write(
        't',
        COLUMNS,
        [
          [1, 'x', null, 5],
          [2, null, null, null],
        ],
        ['id'],
        UPDATE,
      ),
    );
    expect(await db.all('SELECT * FROM t ORDER BY id')).toEqual([
      { id: 1, a: 'x', b: null, c: 5 },
      { id: 2, a: null, b: null, c: null },
    ]);
    await db.close();
    // A new run (a new process): only `b` has a value in its rows, so `a` and `c` are not bound —
    // and the values the first run wrote there must go.
    db = await open(file);
    await db.tx(() =>
      db.write(
        't',
        COLUMNS,
        [
          [1, null, 'y', null],
          [3, null, null, null],
        ],
        ['id'],
        UPDATE,
      ),
    );
    expect(await db.all('SELECT * FROM t ORDER BY id')).toEqual([
      { id: 1, a: null, b: 'y', c: null },
      { id: 2, a: null, b: null, c: null },
      { id: 3, a: null, b: null, c: null },
    ]);
    // A column once sent stays sent in the run: a later write with it null still clears it.
    await db.tx(() => db.write('t', COLUMNS, [[1, 'z', null, 7]], ['id'], UPDATE));
    await db.tx(() => db.write('t', COLUMNS, [[1, null, null, 8]], ['id'], UPDATE));
    expect(await db.get('SELECT * FROM t WHERE id = 1')).toEqual({ id: 1, a: null, b: null, c: 8 });
    await db.close();
  });

  it('writes right through more statement shapes than it keeps prepared', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sqlite-write-'));
    dirs.push(dir);
    const file = path.join(dir, 'm.sqlite');
    const db = await open(file);
    const tables = Array.from({ length: 24 }, (_, i) => `t${i}`);
    for (const t of tables) await db.exec(`CREATE TABLE ${t} (id INTEGER PRIMARY KEY, a TEXT, b TEXT, c INTEGER)`);
    // Twice over: the second pass finds its statements evicted by the first pass's later tables.
    for (let pass = 0; pass < 2; pass++) {
      await db.tx(async () => {
        for (const [i, t] of tables.entries()) {
          const rows = Array.from({ length: i + 1 }, (_, k) => [k + 1, `${t}-${pass}-${k}`, null, pass]);
          await db.write(t, COLUMNS, rows, ['id'], UPDATE);
        }
      });
    }
    for (const [i, t] of tables.entries()) {
      const rows = await db.all(`SELECT * FROM ${t} ORDER BY id`);
      expect(rows).toEqual(Array.from({ length: i + 1 }, (_, k) => ({ id: k + 1, a: `${t}-1-${k}`, b: null, c: 1 })));
    }
    await db.close();
  });
});
