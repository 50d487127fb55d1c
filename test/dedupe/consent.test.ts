/**
 * A person's opt-out survives a dedupe merge: when the duplicate that is deleted is the record that
 * holds it (`optedOut`, `emailOptedOut`, `emailsOptStatus: opted_out`), the plan's `fill` carries it
 * to the survivor, and apply writes it there. Before, a boolean was never filled and a set status
 * never replaced, so the merge deleted the opt-out and the survivor went on being mailed.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import fs from 'node:fs';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { doc, start, type Client } from '../helpers/sandbox.js';

let c: Client;
let env: NodeJS.ProcessEnv;
let dir: string;
beforeAll(async () => {
  c = await start();
  dir = tempDir('svc-dedupe-consent-');
  env = baseEnv({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token });
});
afterAll(() => c.sb.close());

const svc = (args: string[]) => runInProcess(args, env, { timeoutMs: 30_000 });

it('a duplicate that opted out passes its opt-out to the survivor it is merged into', async () => {
  const made = async (attributes: Record<string, unknown>) => {
    const r = await c.post('/prospects', doc('prospect', { firstName: 'Ana', lastName: 'López', ...attributes }));
    expect(r.status, r.text).toBe(201);
    return String(r.body.data.id);
  };
  // The older record survives (--keep oldest); the newer one, which opted out, is the duplicate.
  const survivor = await made({ emails: ['ana.lopez@example.test'], emailsOptStatus: 'opted_in' });
  await new Promise((r) => setTimeout(r, 1100));
  const duplicate = await made({ emails: ['Ana.Lopez@Example.test'], optedOut: true, emailOptedOut: true, emailsOptStatus: 'opted_out' });

  const db = path.join(dir, 'org.sqlite');
  const sync = await svc(['sync', '--db', db, 'users', 'accounts', 'prospects']);
  expect(sync.code, sync.stderr).toBe(0);
  const plan = path.join(dir, 'plan.json');
  const found = await svc(['dedupe', 'prospects', '--db', db, '--keep', 'oldest', '--plan', plan]);
  expect(found.code, found.stderr).toBe(0);
  const cluster = JSON.parse(fs.readFileSync(plan, 'utf8')).clusters.find((k: any) => String(k.survivor.id) === survivor);
  expect(cluster?.duplicates.map((d: any) => String(d.id))).toEqual([duplicate]);
  expect(cluster.fill.optedOut).toEqual({ value: true, from: Number(duplicate) });
  expect(cluster.fill.emailOptedOut).toEqual({ value: true, from: Number(duplicate) });
  expect(cluster.fill.emailsOptStatus).toEqual({ value: 'opted_out', from: Number(duplicate) });

  const applied = await svc(['dedupe', 'apply', plan, '--yes']);
  expect(applied.code, applied.stderr).toBe(0);
  const kept = (await c.get(`/prospects/${survivor}`)).body.data.attributes;
  expect([kept.optedOut, kept.emailOptedOut, kept.emailsOptStatus]).toEqual([true, true, 'opted_out']);
  expect(kept.optedOutAt).not.toBeNull();
  expect((await c.get(`/prospects/${duplicate}`)).status).toBe(404);
});
