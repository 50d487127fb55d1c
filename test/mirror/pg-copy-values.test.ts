/**
 * Values through PostgreSQL's COPY (src/mirror/dialect/postgres.ts writes a page by `COPY …
 * FROM STDIN` in text format into a staging table, then one upsert): every value comes back
 * exactly as written — text with the bytes the format escapes (tab, newline, carriage return,
 * backslash), text that looks like the format's own markers (`\N`, `\.`), the empty string apart
 * from NULL, CJK and emoji, JSON with escapes inside, booleans, big integers past 2^53 up to
 * 2^63 − 1, doubles, dates and date-times — and a column no row of a page has a value in (left
 * out of the COPY) is NULL on insert and over an earlier value. A page none of whose keys is in
 * the table yet (a first sync) goes by COPY straight into it, no staging table; one with a key
 * already there is merged through the staging table. A transaction that fails takes
 * its staging table with it and the next write makes it again. Then end to end: prospects with
 * such values created through the sandbox's API, synced into each database (SQLite and
 * PostgreSQL), equal to what the API lists; and into a database where the role may not make
 * temporary tables (no staging table: the page goes in as one jsonb parameter instead).
 *
 * Against the server of SVC_TEST_PG (skipped with a notice when none is reachable;
 * SVC_TEST_REQUIRE_PROGRAMS=1 makes that a failure). At scale the COPY path is held by the
 * equality test of sync-sql.test.ts: with SVC_MIRROR_SEED=50000 it passed on PostgreSQL 15 in
 * 66 s (Node 26, 2026-11-28, COPY; 126 s recorded there for the jsonb statement, another load).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/mirror/dialect/postgres.js';
import type { MirrorDb, WriteColumn } from '../../src/mirror/dialect/types.js';
import type { SqlValue } from '../../src/mirror/sqlite.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { expectTableEqualsApi } from '../helpers/mirror.js';
import { adminSql, asUser, freshSchema, mirrorDatabases, testPostgres } from '../helpers/postgres.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { doc, start, type Client } from '../helpers/sandbox.js';

const PG = await testPostgres();

/** Strings that COPY's text format must carry through unchanged. */
const TEXTS = [
  'tab\there',
  'line\nbreak',
  'cr\rand crlf\r\n',
  'back\\slash',
  'ends with a backslash\\',
  '\\N',
  '\\.',
  'a\\tb',
  '',
  ' leading and trailing ',
  '中文字符、日本語、한국어',
  '😀 emoji 👩‍👩‍👧 and a flag 🇫🇷',
  '"quoted" \'single\' ,comma; semi|pipe',
  'all of them:\t\n\r\\ 中 😀 \\N',
];

const COLUMNS: WriteColumn[] = [
  { name: 'id', kind: 'id' },
  { name: 's', kind: 'string' },
  { name: 'n', kind: 'integer' },
  { name: 'x', kind: 'number' },
  { name: 'b', kind: 'boolean' },
  { name: 'd', kind: 'date' },
  { name: 't', kind: 'date-time' },
  { name: 'j', kind: 'object' },
  { name: 'l', kind: 'string[]' },
];
const UPDATE = COLUMNS.slice(1).map((c) => c.name);
const JSON_VALUE = { a: 'x\ny\t\\z', b: [1, '\\N', null, true], c: '中😀', d: { e: '"\\."' } };

describe.skipIf(PG === undefined)('values through COPY on PostgreSQL', () => {
  let db: MirrorDb;
  let schema: string;
  beforeAll(async () => {
    schema = freshSchema('copy');
    db = await openPostgres({ url: PG!, schema });
    await db.exec(
      'CREATE TABLE t (id bigint PRIMARY KEY, s text, n bigint, x double precision, b boolean, d date, t timestamptz, j jsonb, l jsonb)',
    );
  });
  afterAll(async () => {
    await db?.close();
    if (PG) await adminSql(PG, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });

  const rows = async () => db.all('SELECT * FROM t ORDER BY id');

  it('writes every value as it was given, and NULL where none was', async () => {
    // Row i as written; `b` is written 1/0 (as the store writes booleans) and read as a boolean.
    const INTS = [9223372036854775807n, -9007199254740993n];
    const DOUBLES = [0.1, -1.5e-7, 1e300];
    const want = TEXTS.map((s, i) => ({
      id: i + 1,
      s,
      n: INTS[i] ?? i,
      x: DOUBLES[i] ?? i + 0.5,
      b: i % 3 === 2 ? null : i % 2 === 1,
      d: i === 0 ? '2024-02-29' : null,
      t: i === 0 ? '2024-05-01T10:00:00.123Z' : '2024-05-01T10:00:00Z',
      j: { ...JSON_VALUE, s },
      l: [s, s.length],
    }));
    const page: SqlValue[][] = want.map((w) => [
      w.id,
      w.s,
      w.n,
      w.x,
      w.b === null ? null : Number(w.b),
      w.d,
      w.t,
      JSON.stringify(w.j),
      JSON.stringify(w.l),
    ]);
    // A page whose rows have nothing in `d` but the first, and one row with NULL everywhere.
    page.push([1000, null, null, null, null, null, null, null, null]);
    await db.tx(() => db.write('t', COLUMNS, page, ['id'], UPDATE));
    const got = await rows();
    expect(got.slice(0, -1).map((r) => ({ ...r, j: JSON.parse(String(r.j)), l: JSON.parse(String(r.l)) }))).toEqual(want);
    expect(got.at(-1)).toEqual({ id: 1000, s: null, n: null, x: null, b: null, d: null, t: null, j: null, l: null });
    // The empty string is not NULL, and `\N` as text is not NULL either.
    expect(await db.get("SELECT count(*)::int AS n FROM t WHERE s = ''")).toEqual({ n: 1 });
    expect(await db.get("SELECT count(*)::int AS n FROM t WHERE s = '\\N'")).toEqual({ n: 1 });
  });

  it('overwrites every column on a conflict, NULL in those the page sent no value in', async () => {
    await db.tx(() =>
      db.write(
        't',
        COLUMNS,
        [
          [1, 'again\t1', null, null, null, null, null, null, null],
          [2, null, 5, null, null, null, null, null, null],
        ],
        ['id'],
        UPDATE,
      ),
    );
    const got = await db.all('SELECT * FROM t WHERE id IN (1, 2) ORDER BY id');
    expect(got).toEqual([
      { id: 1, s: 'again\t1', n: null, x: null, b: null, d: null, t: null, j: null, l: null },
      { id: 2, s: null, n: 5, x: null, b: null, d: null, t: null, j: null, l: null },
    ]);
  });

  it('leaves a conflicting row alone when nothing is to be updated, and keeps one row for a key sent twice', async () => {
    const cols: WriteColumn[] = [
      { name: 'k', kind: 'string' },
      { name: 'id', kind: 'id' },
    ];
    await db.exec('CREATE TABLE seen (k text NOT NULL, id bigint NOT NULL, PRIMARY KEY (k, id))');
    await db.tx(() =>
      db.write(
        'seen',
        cols,
        [
          ['a\tb', 1],
          ['a\tb', 1],
          ['c', 2],
        ],
        ['k', 'id'],
        [],
      ),
    );
    await db.tx(() => db.write('seen', cols, [['c', 2]], ['k', 'id'], []));
    expect(await db.all('SELECT * FROM seen ORDER BY id')).toEqual([
      { k: 'a\tb', id: 1 },
      { k: 'c', id: 2 },
    ]);
  });

  it('a page none of whose keys is in the table goes straight into it (no staging table); one that has some is merged', async () => {
    await db.exec('CREATE TABLE f (id bigint PRIMARY KEY, s text, n bigint)');
    const cols = COLUMNS.slice(0, 3);
    // The staging tables this connection has made (temporary: its own schema).
    const stages = async () =>
      (await db.all("SELECT relname FROM pg_class WHERE relnamespace = pg_my_temp_schema() AND relkind = 'r' ORDER BY 1")).map((r) =>
        String(r.relname),
      );
    const before = await stages();
    // A first page, an id twice in it: the later row is the one kept, as an upsert would keep it.
    await db.tx(() =>
      db.write(
        'f',
        cols,
        [
          [1, 'first\tone', 1],
          [2, 'two', null],
          [1, 'second one', null],
        ],
        ['id'],
        ['s', 'n'],
      ),
    );
    expect(await stages()).toEqual(before);
    expect(await db.all('SELECT * FROM f ORDER BY id')).toEqual([
      { id: 1, s: 'second one', n: null },
      { id: 2, s: 'two', n: null },
    ]);
    // New ids only again: still straight in. Then a page with one id already there: merged
    // through a staging table, every row right.
    await db.tx(() => db.write('f', cols, [[3, 'three', 3]], ['id'], ['s', 'n']));
    expect(await stages()).toEqual(before);
    await db.tx(() =>
      db.write(
        'f',
        cols,
        [
          [4, 'four', 4],
          [2, 'two again', 2],
        ],
        ['id'],
        ['s', 'n'],
      ),
    );
    expect((await stages()).length).toBe(before.length + 1);
    // New ids around ones already there (the check asks of their range): merged, nothing lost;
    // an id twice in a merged page keeps the later row too (the merge refused it before:
    // "ON CONFLICT DO UPDATE command cannot affect row a second time").
    await db.tx(() =>
      db.write(
        'f',
        cols,
        [
          [9, 'nine', 9],
          [0, 'zero', 0],
          [2, 'two, first', null],
          [2, 'two, later', 22],
        ],
        ['id'],
        ['s', 'n'],
      ),
    );
    expect(await db.all('SELECT * FROM f ORDER BY id')).toEqual([
      { id: 0, s: 'zero', n: 0 },
      { id: 1, s: 'second one', n: null },
      { id: 2, s: 'two, later', n: 22 },
      { id: 3, s: 'three', n: 3 },
      { id: 4, s: 'four', n: 4 },
      { id: 9, s: 'nine', n: 9 },
    ]);
  });

  it('a failed page leaves nothing, its staging table goes with it, and the next page is written', async () => {
    await db.exec('CREATE TABLE u (id bigint PRIMARY KEY, s text)');
    const cols = COLUMNS.slice(0, 2);
    // The first write of `u` makes its staging table inside a transaction that then fails.
    await expect(
      db.tx(async () => {
        await db.write('u', cols, [[1, 'kept?']], ['id'], ['s']);
        throw new Error('the page failed');
      }),
    ).rejects.toThrow('the page failed');
    expect(await db.all('SELECT * FROM u')).toEqual([]);
    // A value the column's type refuses: the server's error, and nothing of the page written.
    await expect(db.tx(() => db.write('t', COLUMNS.slice(0, 3), [[50, 'x', 'not a number']], ['id'], ['s', 'n']))).rejects.toThrow(
      /invalid input syntax for type bigint/,
    );
    expect(await db.all('SELECT id FROM t WHERE id = 50')).toEqual([]);
    await db.tx(() => db.write('u', cols, [[2, 'line\nbreak']], ['id'], ['s']));
    expect(await db.all('SELECT * FROM u')).toEqual([{ id: 2, s: 'line\nbreak' }]);
  });
});

describe('values through a sync, equal to the API', () => {
  let c: Client;
  let env: NodeJS.ProcessEnv;
  let dir: string;
  beforeAll(async () => {
    c = await start({ seed: 5 });
    dir = tempDir('svc-copy-values-');
    env = baseEnv({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token });
    for (const [i, s] of TEXTS.entries()) {
      const r = await c.post(
        '/prospects',
        doc('prospect', {
          firstName: s,
          lastName: `Copy ${i}`,
          title: [...s].reverse().join(''),
          personalNote1: `${s}\n${s}\t${s}`,
          tags: [s, `${s}\\`, '中'],
          emailOptedOut: i % 2 === 0,
          proNetConnections: i === 0 ? 9007199254740991 : i,
          score: i + 0.25,
        }),
      );
      expect(r.status, r.text).toBe(201);
    }
  });
  afterAll(async () => {
    await c?.sb.close();
  });

  it.skipIf(PG === undefined)('a role without temporary tables (TEMPORARY revoked) still syncs, by the jsonb statement', async () => {
    // A database of its own: revoking TEMPORARY from PUBLIC on the shared one would change it for other tests.
    const name = freshSchema('notemp');
    await adminSql(PG!, `CREATE DATABASE ${name}`);
    await adminSql(PG!, `REVOKE TEMPORARY ON DATABASE ${name} FROM PUBLIC; CREATE ROLE ${name} LOGIN PASSWORD 'no-temp-secret-5'`);
    await adminSql(PG!, `GRANT CREATE ON DATABASE ${name} TO ${name}`);
    try {
      const url = new URL(asUser(PG!, name, 'no-temp-secret-5'));
      url.pathname = `/${name}`;
      const db = ['--db', url.toString(), '--schema', 'mirror'];
      const r = await runInProcess(['sync', ...db, 'prospects'], env, { timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(await expectTableEqualsApi(c, db, '/prospects')).toBeGreaterThan(TEXTS.length);
      // The first sync went straight in (empty tables); a changed record merges, by the jsonb statement.
      const one = await c.get('/prospects?page[limit]=1');
      const id = (one.body as { data: { id: number }[] }).data[0]!.id;
      expect((await c.patch(`/prospects/${id}`, doc('prospect', { title: 'changed\there' }, {}, id))).status).toBe(200);
      const again = await runInProcess(['sync', ...db, 'prospects'], env, { timeoutMs: 60_000 });
      expect(again.code, again.stderr).toBe(0);
      expect(await expectTableEqualsApi(c, db, '/prospects')).toBeGreaterThan(TEXTS.length);
    } finally {
      await adminSql(PG!, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await adminSql(PG!, `DROP ROLE IF EXISTS ${name}`);
    }
  });

  describe.each(mirrorDatabases(PG))('on $name', (d) => {
    it('mirrors prospects whose values hold every escaped byte, CJK and emoji', async () => {
      const db = d.fresh(path.join(dir, 'org.sqlite'));
      const r = await runInProcess(['sync', ...db, 'prospects'], env, { timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(await expectTableEqualsApi(c, db, '/prospects')).toBeGreaterThan(TEXTS.length);
      const q = await runInProcess(
        ['sql', ...db, '-o', 'json', "select first_name from prospects where last_name like 'Copy %' order by id"],
        env,
      );
      expect(q.code, q.stderr).toBe(0);
      expect(JSON.parse(q.stdout).map((x: { first_name: string }) => x.first_name)).toEqual(TEXTS);
    });
  });
});
