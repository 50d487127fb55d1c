/**
 * A merge plan is of the org whose mirror it was made from: `svc dedupe apply` of it with a
 * profile of another org (another sandbox here, as `svc --sandbox` beside a running `svc
 * sandbox`) is refused in one line before a record is read, nothing written. Before, it read
 * every cluster's records by the plan's ids in the wrong org and reported them all "changed since
 * the mirror read them" (a trial); with records alike in both, it would have merged them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { doc, start, type Client } from '../helpers/sandbox.js';

let a: Client;
let b: Client;
let dir: string;
beforeAll(async () => {
  [a, b] = await Promise.all([start(), start()]);
  dir = tempDir('svc-dedupe-other-org-');
});
afterAll(async () => {
  await Promise.all([a?.sb.close(), b?.sb.close()]);
});

const envOf = (c: Client, config: string) =>
  baseEnv({ SVC_CONFIG_DIR: config, SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token });

it("a plan made from one org's mirror is refused for another org, before any read of its records", async () => {
  // The same two people in both orgs: ids alike, so only the org tells the plan's records apart.
  for (const c of [a, b])
    for (const email of ['ana.lopez@example.test', 'Ana.Lopez@Example.test'])
      expect((await c.post('/prospects', doc('prospect', { firstName: 'Ana', lastName: 'López', emails: [email] }))).status).toBe(201);
  const envA = envOf(a, path.join(dir, 'a'));
  const db = path.join(dir, 'org.sqlite');
  expect((await runInProcess(['sync', '--db', db, 'users', 'accounts', 'prospects'], envA)).code).toBe(0);
  const plan = path.join(dir, 'plan.json');
  const found = await runInProcess(['dedupe', 'prospects', '--db', db, '--plan', plan], envA);
  expect(found.code, found.stderr).toBe(0);
  expect(JSON.parse(fs.readFileSync(plan, 'utf8')).org).toMatchObject({ baseUrl: expect.stringMatching(/^sandbox:/) });

  const envB = envOf(b, path.join(dir, 'b'));
  for (const args of [['--plan'], ['--yes']]) {
    const mark = b.sb.requests.length;
    const r = await runInProcess(['dedupe', 'apply', plan, ...args], envB);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /^error: .*plan\.json was made from a mirror of org ".*" \(.*\) at sandbox:\S+, not org ".*" \(.*\) at sandbox:\S+: its ids are that org's; nothing was written$/m,
    );
    expect(r.stderr).toMatch(/^hint: .*dedupe prospects --plan FILE$/m);
    // One request: whose the org is. No record read, nothing written.
    expect(b.sb.requests.slice(mark).map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/v2']);
  }
  expect(fs.readdirSync(dir).filter((f) => f.includes('journal'))).toEqual([]);
  // The org it was made from takes it.
  const same = await runInProcess(['dedupe', 'apply', plan, '--plan'], envA);
  expect(same.code, same.stderr).toBe(0);
  // And carries it out, its progress counting clusters (it said "rows/s", a trial).
  const applied = await runInProcess(['dedupe', 'apply', plan, '--yes'], { ...envA, SVC_PROGRESS_INTERVAL: '0.001' });
  expect(applied.code, applied.stderr).toBe(0);
  expect(applied.stderr).toMatch(/^progress: dedupe apply prospects: .* clusters\/s/m);
  expect(applied.stderr).not.toContain('rows/s');
});
