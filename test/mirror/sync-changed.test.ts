/**
 * What an incremental `svc sync` counts as changed. It reads again the records stamped in the
 * minute before the last run's newest `updatedAt` (the overlap: a record committed after its page
 * was read may carry an earlier stamp), and counts as changed those the mirror holds with another
 * `updatedAt`, or not at all. Comparing stamps with the last run's newest alone called a record
 * changed in that same second, or earlier in the overlap, unchanged: `0 changed` for three new
 * changes, which a job that acts on `changed` (a report rebuilt only when something changed)
 * would miss. A table read in full on every sync (its `updatedAt` not filterable: email_addresses)
 * counts the same way against the last run's watermark: it counted every row as changed on every
 * sync (a trial). The sandbox's clock is held, so that the stamps fall where the test puts them. In
 * process, on each database of ../helpers/postgres.ts.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { mirrorDatabases, testPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/run-svc.js';
import { doc, start, type Client } from '../helpers/sandbox.js';

const DATABASES = mirrorDatabases(await testPostgres());

let c: Client;
let env: Record<string, string>;
beforeAll(async () => {
  c = await start({ seed: 30 });
  env = { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token };
});
afterAll(async () => {
  await c.sb.close();
});

const title = async (id: number, t: string) =>
  expect((await c.patch(`/prospects/${id}`, doc('prospect', { title: t }, {}, id))).status).toBe(200);

describe.each(DATABASES)('on $name', (d) => {
  it('counts the records changed in the same second as the last run, and earlier in its overlap', async () => {
    const db = d.fresh(path.join(tempDir(), 'org.sqlite'));
    // In the past (a watermark is never later than its run's start: a stamp ahead of the clock is
    // read again as changed), and apart from the other database's run.
    const t = Math.floor(Date.now() / 1000) * 1000 - (d.name === 'sqlite' ? 40_000 : 10_000);
    c.sb.store.now = () => t;
    try {
      await title(1, `Newest ${d.name}`);
      const first = await svcInProcess(['sync', ...db, '-o', 'json', 'prospects'], { env });
      expect(first.code, first.stderr).toBe(0);

      // The same second as the newest record the first run read, and 20 s before it (the overlap).
      await title(2, `Same second ${d.name}`);
      await title(3, `Same second too ${d.name}`);
      c.sb.store.now = () => t - 20_000;
      await title(4, `Earlier in the overlap ${d.name}`);
      c.sb.store.now = () => t;

      const second = await svcInProcess(['sync', ...db, '-o', 'json', 'prospects'], { env });
      expect(second.code, second.stderr).toBe(0);
      const [table] = JSON.parse(second.stdout).tables;
      // Record 1, read again unchanged, is not counted.
      expect(table).toMatchObject({ table: 'prospects', kind: 'incremental', changed: 3 });
      const rows = await svcInProcess(['sql', ...db, '-o', 'json', 'select id, title from prospects where id in (2, 3, 4) order by id'], {
        env,
      });
      expect(JSON.parse(rows.stdout).map((r: { title: string }) => r.title)).toEqual([
        `Same second ${d.name}`,
        `Same second too ${d.name}`,
        `Earlier in the overlap ${d.name}`,
      ]);

      // Nothing changed since: a third run counts none of the overlap it reads again.
      const third = await svcInProcess(['sync', ...db, '-o', 'json', 'prospects'], { env });
      expect(JSON.parse(third.stdout).tables[0]).toMatchObject({ changed: 0 });
    } finally {
      c.sb.store.now = Date.now;
    }
  });

  it('a table read in full on every sync (updatedAt not filterable) counts only what changed since the last run', async () => {
    const db = d.fresh(path.join(tempDir(), 'org.sqlite'));
    const sync = async () => {
      const r = await svcInProcess(['sync', ...db, '-o', 'json', 'emailAddresses'], { env });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout).tables[0] as { kind: string; written: number; changed: number };
    };
    const first = await sync();
    expect(first).toMatchObject({ kind: 'full', changed: first.written });
    expect(first.written).toBeGreaterThan(1);
    // Nothing changed: every row read again, none counted (it said `changed` = `written` each time).
    expect(await sync()).toMatchObject({ kind: 'full', written: first.written, changed: 0 });
    const [one] = (await c.get('/emailAddresses?page[limit]=1')).body.data;
    const changedTo = `changed-${d.name}@example.com`;
    expect((await c.patch(`/emailAddresses/${one.id}`, doc('emailAddress', { email: changedTo }, {}, Number(one.id)))).status).toBe(200);
    expect(await sync()).toMatchObject({ kind: 'full', written: first.written, changed: 1 });
    const rows = await svcInProcess(['sql', ...db, '-o', 'json', `select email from email_addresses where id = ${Number(one.id)}`], {
      env,
    });
    expect(JSON.parse(rows.stdout)).toEqual([{ email: changedTo }]);
  });
});
