/**
 * A sync that waits for another syncer of the same mirror says so once: two syncs side by side
 * take turns table by table, and each table's lease it waited for was a line of its own on
 * stderr (a trial: a screenful of "another svc sync is writing this table; waiting for it").
 * The other syncer is this test holding the tables' leases (the lock files a sync takes,
 * src/mirror/dialect/sqlite.ts), let go one after the other. In process, against the sandbox.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { acquireLock } from '../../src/auth/lock.js';
import { startInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  const made = await sandboxWithEnv();
  sb = made.sb;
  env = made.env();
});
afterAll(async () => {
  await sb?.close();
});

it('waiting for another sync table after table is said once', async () => {
  const db = path.join(tempDir(), 'shared.sqlite');
  const users = await acquireLock(`${db}.users.lease`);
  const stages = await acquireLock(`${db}.stages.lease`);
  const mark = sb.requests.length;
  const run = startInProcess(['sync', 'users', 'stages', '--db', db], { env, timeoutMs: 30_000 });
  try {
    await run.waitFor('stderr', /users: another svc sync is writing this table; waiting for it/);
    users();
    // Its users read, the sync comes to stages, held too: a second wait.
    const until = Date.now() + 10_000;
    while (received(sb, mark, 'users').every((r) => r.status === undefined) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 500));
    expect(received(sb, mark, 'stages')).toHaveLength(0);
  } finally {
    users();
    stages();
  }
  expect(await run.exited).toBe(0);
  expect(received(sb, mark, 'stages').length).toBeGreaterThan(0);
  expect(run.stderr().match(/another svc sync/g), run.stderr()).toHaveLength(1);
});
