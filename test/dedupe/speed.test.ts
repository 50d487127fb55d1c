/**
 * `svc dedupe prospects` at scale: a mirror file of N prospects (written here directly, with the
 * columns `svc sync` gives them, so that the size costs no sandbox), 5 % of them with a duplicate
 * of another's address, number or name, read and clustered by the command in process.
 *
 * SVC_DEDUPE_SPEED=200000 runs it at the size (< 30 s). Measured 2026-11-28 on 2 cores
 * shared with other jobs (load average 7 to 14): 210,000 prospects, 10,000 clusters found; the
 * command 23.4 s in all (15.8 s to read the mirror and cluster, the rest printing 20,000 rows).
 * The clustering alone takes about 5 s of CPU for 200,000 prospects.
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/mirror/sqlite.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';

const N = Number(process.env.SVC_DEDUPE_SPEED ?? 20000);
const FIRST = ['Ada', 'Ben', 'Chloe', 'Dan', 'Eve', 'Finn', 'Gia', 'Hugo', 'Ivy', 'Jon', 'Kai', 'Lea', 'Max', 'Nia', 'Otto', 'Pia'];
const LAST = ['Petrov', 'Stone', 'Garcia', 'Wong', 'Berg', 'Moss', 'Lind', 'Okafor', 'Rossi', 'Novak', 'Silva', 'Kim'];

it(`clusters ${N.toLocaleString('en-US')} prospects of a mirror in under 30 s`, async () => {
  const dir = tempDir('svc-dedupe-speed-');
  const file = path.join(dir, 'org.sqlite');
  const db = await openDatabase(file);
  db.exec(`CREATE TABLE _svc_mirror (key TEXT PRIMARY KEY, value TEXT);
    CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT, domain TEXT, owner_id INTEGER, created_at TEXT, updated_at TEXT);
    CREATE TABLE prospects (id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT, emails TEXT, work_phones TEXT, mobile_phones TEXT,
      company TEXT, account_id INTEGER, owner_id INTEGER, created_at TEXT, updated_at TEXT, external_id TEXT);
    BEGIN;`);
  const accounts = Math.ceil(N / 10);
  const acc = db.prepare('INSERT INTO accounts VALUES (?, ?, ?, 1, ?, ?)');
  for (let a = 1; a <= accounts; a++) acc.run([a, `Company ${a} Inc.`, `company-${a}.test`, '2026-01-01T00:00:00', '2026-01-01T00:00:00']);
  const ins = db.prepare('INSERT INTO prospects VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)');
  const planted = Math.round(N * 0.05);
  for (let i = 1; i <= N; i++) {
    const first = FIRST[i % FIRST.length]!;
    // Unique names: two colleagues of one name would make a duplicate by name ambiguous (matched to neither).
    const last = `${LAST[i % LAST.length]!}${i}`;
    const a = (i % accounts) + 1;
    // Numbers of their own (two people sharing one, with alike names, would make a duplicate ambiguous).
    const d = String(2_000_000 + i);
    const phone = `+1 555 ${d.slice(0, 3)} ${d.slice(3)}`;
    const email = `${first}.${last}${i}@company-${a}.test`.toLowerCase();
    ins.run([
      i,
      first,
      last,
      JSON.stringify([email]),
      JSON.stringify([phone]),
      '[]',
      `Company ${a}`,
      a,
      '2026-01-01T00:00:00',
      '2026-01-01T00:00:00',
      null,
    ]);
  }
  // Duplicates of the first `planted` prospects: by address, by number, by name.
  for (let k = 1; k <= planted; k++) {
    const i = k * 7;
    const first = FIRST[i % FIRST.length]!;
    const last = `${LAST[i % LAST.length]!}${i}`;
    const a = (i % accounts) + 1;
    const d = String(2_000_000 + i);
    const emails = k % 3 === 0 ? [`${first}.${last}${i}+x@company-${a}.test`.toUpperCase()] : [`${first}${i}@gmail.com`];
    const phones = k % 3 === 1 ? [`(555) ${d.slice(0, 3)}-${d.slice(3)}`] : [];
    ins.run([
      N + k,
      first.toUpperCase(),
      last,
      JSON.stringify(emails),
      JSON.stringify(phones),
      '[]',
      `COMPANY ${a}, Inc`,
      a,
      '2026-02-01T00:00:00',
      '2026-02-01T00:00:00',
      `planted-dup:${i}`,
    ]);
  }
  db.exec(`COMMIT; INSERT INTO _svc_mirror VALUES ('base_url', 'http://example.test'), ('org_id', '1'), ('org_name', 'Speed');`);
  db.close();

  const env = baseEnv({ SVC_CONFIG_DIR: dir });
  const started = Date.now();
  const r = await runInProcess(['dedupe', 'prospects', '--db', file, '-o', 'ndjson'], env, { timeoutMs: 300_000 });
  const seconds = (Date.now() - started) / 1000;
  expect(r.code, r.stderr).toBe(0);
  const rows = r.stdout.trim().split('\n').length;
  console.log(
    `dedupe: ${(N + planted).toLocaleString('en-US')} prospects clustered in ${seconds.toFixed(1)} s (${rows} rows of clusters); ${r.stderr.trim()}`,
  );
  expect(r.stderr).toMatch(new RegExp(`${planted.toLocaleString('en-US')} likely duplicate`));
  expect(seconds).toBeLessThan(30);
}, 600_000);
