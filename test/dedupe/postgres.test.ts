/**
 * `svc dedupe` on a team's mirror on PostgreSQL (issue 33's mirror, against the server of
 * SVC_TEST_PG; skipped with a notice when none is reachable, a failure in CI): the same sandbox
 * org with planted duplicates synced into a SQLite file and into a PostgreSQL schema gives the
 * same clusters, rows and merge plan from both (the plan's `mirror` names where it was read, the
 * password never in it), and the plan made from PostgreSQL previews against the API with no
 * record taken for changed. Before, `svc dedupe` refused a mirror on PostgreSQL (exit 2).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { freshSchema, testPostgres } from '../helpers/postgres.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { start, type Client } from '../helpers/sandbox.js';

const PG = await testPostgres();
const TYPES = ['users', 'accounts', 'prospects', 'email-addresses', 'sequence-states', 'calls'];

let c: Client;
let env: NodeJS.ProcessEnv;
let dir: string;
let file: string;
let pgArgs: string[];

describe.skipIf(PG === undefined)('svc dedupe on a mirror on PostgreSQL', () => {
  beforeAll(async () => {
    c = await start({ seed: 300, duplicates: 5 });
    dir = tempDir('svc-dedupe-pg-');
    file = path.join(dir, 'org.sqlite');
    pgArgs = ['--db', PG!, '--schema', freshSchema('dedupe')];
    env = baseEnv({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token });
    for (const db of [['--db', file], pgArgs]) {
      const sync = await runInProcess(['sync', ...db, ...TYPES], env, { timeoutMs: 60_000 });
      expect(sync.code, sync.stderr).toBe(0);
    }
  }, 120_000);
  afterAll(async () => {
    await c?.sb.close();
  });

  /**
   * The plan with each date-time as one spelling: PostgreSQL gives a `timestamptz` back with a
   * `Z` (`…T05:06:13Z`) where the SQLite mirror keeps the API's `…T05:06:13` (UTC, no zone).
   */
  const utc = (plan: unknown): unknown => JSON.parse(JSON.stringify(plan).replace(/("\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)Z"/g, '$1"'));

  /** `svc dedupe TYPE` on a mirror, its rows and its plan (without when and where it was made). */
  async function dedupe(type: 'prospects' | 'accounts', db: string[], tag: string) {
    const planFile = path.join(dir, `${type}-${tag}.json`);
    const r = await runInProcess(['dedupe', type, ...db, '--plan', planFile, '-o', 'json'], env, { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const text = fs.readFileSync(planFile, 'utf8');
    const { madeAt, mirror, ...plan } = JSON.parse(text);
    return { rows: JSON.parse(r.stdout), plan: utc(plan), mirror: mirror as string, madeAt, text, planFile, stderr: r.stderr };
  }

  it.each(['prospects', 'accounts'] as const)('%s: the same clusters and merge plan as from the SQLite mirror', async (type) => {
    const lite = await dedupe(type, ['--db', file], 'sqlite');
    const pg = await dedupe(type, pgArgs, 'postgres');
    expect(lite.rows.length).toBeGreaterThan(0);
    expect(pg.rows).toEqual(lite.rows);
    expect(pg.plan).toEqual(lite.plan);
    expect(pg.stderr).toMatch(/cluster\(s\)/);
    // Where it was read, the server and schema named, the password not.
    expect(pg.mirror).toContain(`schema ${pgArgs[3]}`);
    const password = new URL(PG!).password;
    if (password) {
      expect(pg.text).not.toContain(password);
      expect(pg.stderr).not.toContain(password);
    }
  });

  it('the plan from PostgreSQL previews against the API with no record taken for changed', async () => {
    const pg = await dedupe('prospects', pgArgs, 'preview');
    const before = c.sb.requests.filter((q) => q.method !== 'GET').length;
    const preview = await runInProcess(['dedupe', 'apply', pg.planFile, '--plan'], env, { timeoutMs: 60_000 });
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stderr + preview.stdout).not.toMatch(/changed since the mirror/);
    expect(preview.stderr + preview.stdout).toMatch(/bill: \d+ request/);
    expect(c.sb.requests.filter((q) => q.method !== 'GET').length).toBe(before);
  });
});
