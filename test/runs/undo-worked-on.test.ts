/**
 * `svc runs undo` of a create leaves a record someone has worked on since: a title set, a note
 * written after the import. Deleting it took that work too, with `0 conflicts` in the plan, and an
 * undo of the undo re-created the record but not its history (a trial). A record's `updatedAt`
 * past its `createdAt` is a conflict now, skipped unless `--force`. And `runs list`/`show` count the
 * rows refused before sending, which the record holds only in its end line. In process, over HTTP.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { doc, start, type Client } from '../helpers/sandbox.js';

let c: Client;
let env: NodeJS.ProcessEnv;
let dir: string;
beforeAll(async () => {
  c = await start();
  dir = tempDir('svc-undo-worked-');
  env = baseEnv({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token });
});
afterAll(() => c.sb.close());

const svc = (args: string[]) => runInProcess(args, env, { timeoutMs: 30_000 });

it('a created record changed since the run is a conflict; the untouched one is deleted; --force deletes the other', async () => {
  const file = path.join(dir, 'import.csv');
  fs.writeFileSync(file, 'First Name,Email\nWorked,worked.on@undo.test\nUntouched,untouched@undo.test\n');
  const made = await svc(['prospects', 'create', '--input', file]);
  expect(made.code, made.stderr).toBe(0);
  const run = (await svc(['runs', 'list', '-o', 'json'])).stdout;
  const id = JSON.parse(run)[0].id as string;
  const byEmail = async (email: string) => (await c.get(`/prospects?filter[emails]=${email}`)).body.data[0]?.id as string | undefined;
  const worked = String(await byEmail('worked.on@undo.test'));
  const untouched = String(await byEmail('untouched@undo.test'));
  // A rep's edit, later than the service's own writes that follow a create.
  await new Promise((r) => setTimeout(r, 2100));
  const edit = await c.patch(
    `/prospects/${worked}`,
    doc('prospect', { title: 'CEO', personalNote1: 'called, very interested' }, {}, worked),
  );
  expect(edit.status, edit.text).toBe(200);

  // The plan ends as the undo would: exit 5, a row left as it is.
  const plan = await svc(['runs', 'undo', id, '--plan']);
  expect(plan.code, plan.stderr).toBe(5);
  const planned = JSON.parse(plan.stdout);
  expect(planned.bill.conflicts).toBe(1);
  expect(planned.rows.map((r: any) => [r.id, r.action])).toEqual([
    [Number(worked), 'conflict'],
    [Number(untouched), 'delete'],
  ]);
  const undo = await svc(['runs', 'undo', id, '--yes']);
  expect(undo.code, undo.stderr).toBe(5);
  expect(undo.stderr).toMatch(
    /changed since the run created it: createdAt \S+, updatedAt \S+, updater user \d+ \(you\); skipped \(--force deletes it anyway; with --rows, only the rows you checked\)/,
  );
  expect((await c.get(`/prospects/${worked}`)).status).toBe(200);
  expect((await c.get(`/prospects/${untouched}`)).status).toBe(404);

  const forced = await svc(['runs', 'undo', id, '--force', '--yes']);
  expect(forced.code, forced.stderr).toBe(0);
  expect((await c.get(`/prospects/${worked}`)).status).toBe(404);
});

it("a record svc's own later run changed, even undone since, is a conflict too: svc cannot tell it from an edit before that run; --rows N --force takes it back once checked", async () => {
  // An exemption for svc's later runs deleted a person's edits made before them (a review).
  const file = path.join(dir, 'day.csv');
  fs.writeFileSync(file, 'First Name,Email\nDay,day.one@undo.test\n');
  expect((await svc(['prospects', 'create', '--input', file])).code).toBe(0);
  const created = JSON.parse((await svc(['runs', 'list', '-o', 'json'])).stdout)[0].id as string;
  const id = String((await c.get('/prospects?filter[emails]=day.one@undo.test')).body.data[0].id);
  await new Promise((r) => setTimeout(r, 2100));
  const upd = path.join(dir, 'day-update.csv');
  fs.writeFileSync(upd, `id,title\n${id},Fixed\n`);
  expect((await svc(['prospects', 'update', '--input', upd])).code).toBe(0);
  const updated = JSON.parse((await svc(['runs', 'list', '-o', 'json'])).stdout)[0].id as string;
  expect((await svc(['runs', 'undo', updated])).code).toBe(0);
  const undo = await svc(['runs', 'undo', created]);
  expect(undo.code, undo.stderr).toBe(5);
  expect(undo.stderr).toMatch(
    /changed since the run created it: .*; skipped \(--force deletes it anyway; with --rows, only the rows you checked\)/,
  );
  expect((await c.get(`/prospects/${id}`)).status).toBe(200);
  const forced = await svc(['runs', 'undo', created, '--rows', '1', '--force', '--yes']);
  expect(forced.code, forced.stderr).toBe(0);
  expect((await c.get(`/prospects/${id}`)).status).toBe(404);
});

it('runs list and runs show count the rows refused before sending: a run that exited 5 does not read as whole', async () => {
  const file = path.join(dir, 'half.csv');
  fs.writeFileSync(file, 'First Name,Email,Score\nGood,good@half.test,1\nBad,bad@half.test,lots\n');
  const made = await svc(['prospects', 'create', '--input', file]);
  expect(made.code).toBe(5);
  const list = await svc(['runs', 'list', '-o', 'json']);
  const run = JSON.parse(list.stdout)[0];
  expect(run.rows).toBe('1 created, 1 failed');
  const show = await svc(['runs', 'show', run.id]);
  expect(show.stderr).toMatch(/ · 1 created, 1 failed · done/);
});
