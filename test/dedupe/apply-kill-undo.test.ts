/**
 * `svc dedupe apply` killed with SIGKILL mid-merge and run again, then `svc runs undo` of the run
 * id the rerun prints: every duplicate either run deleted is re-created exactly once. The rerun
 * continues the killed run's record (bulk-run/run-continue.ts), so the one undo holds every step; before
 * that, the rerun was a run of its own and its undo left the duplicates the killed run deleted
 * deleted (the third of them here). The process matters (kill -9), so the killed apply is bin/svc,
 * spawned (`npm run build` first); the rerun and the undo run in this process. Size: SVC_DEDUPE_APPLY_KILL_DUPS (percent of planted duplicates, default 10).
 * Measured (2 shared cores, 2026-11-28): 10 passes in 10 runs with two busy loops of background
 * CPU, 5 in 5 without; 13–15 s of test time. At 30 % (60 duplicates): passes, 13 s.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, spawnSvc } from '../helpers/run-svc.js';
import { externalIdCounts, killWhen, plantedOrg } from '../helpers/dedupe-org.js';
import type { TestSandbox } from '../helpers/sandbox.js';

const DUPS = Number(process.env.SVC_DEDUPE_APPLY_KILL_DUPS ?? 10);
let sb: TestSandbox;
let env: Record<string, string>;
let dir: string;
beforeAll(async () => {
  ({ sb, env, dir } = await plantedOrg(DUPS, 'svc-dedupe-apply-kill-', { latencyMs: 5 }));
}, 60_000);
afterAll(() => sb?.close());

const svc = (args: string[]) => runInProcess(args, baseEnv(env), { timeoutMs: 60_000 });
const deletes = (from: number) => sb.requests.slice(from).filter((r) => r.method === 'DELETE' && r.status === 204);

it('kill -9 mid-apply, rerun, undo the apply: every deleted duplicate re-created exactly once', { timeout: 120_000 }, async () => {
  const db = path.join(dir, 'org.sqlite');
  expect((await svc(['sync', '--db', db])).code).toBe(0);
  const plan = path.join(dir, 'merge.json');
  const found = await svc(['dedupe', 'prospects', '--db', db, '--plan', plan, '-o', 'json']);
  expect(found.code, found.stderr).toBe(0);
  const dups: number[] = JSON.parse(fs.readFileSync(plan, 'utf8')).clusters.flatMap((c: any) => c.duplicates.map((d: any) => d.id));
  expect(dups.length).toBeGreaterThan(3);
  const externalIdOf = new Map<number, string>();
  for (const id of dups) externalIdOf.set(id, sb.store.table('prospect').get(id)!.attributes['externalId'] as string);

  // The apply, killed after its third delete, then run again to its end.
  const mark = sb.requests.length;
  const args = ['dedupe', 'apply', plan, '--concurrency', '1', '--yes'];
  const child = spawnSvc(args, { env });
  child.stdout!.resume();
  child.stderr!.resume();
  expect(await killWhen(child, () => deletes(mark).length >= 3)).toBe(true);
  const rerun = await svc(args);
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(rerun.stderr).toMatch(/continuing run \S+ \(killed after/);
  const run = /recorded as run (\S+):/.exec(rerun.stderr)?.[1];
  expect(run, rerun.stderr).toBeTruthy();
  // Every duplicate deleted, by the killed run or the rerun.
  for (const id of dups) expect(sb.store.table('prospect').get(id), `duplicate ${id}`).toBeUndefined();

  const undoMark = sb.requests.length;
  const undo = await svc(['runs', 'undo', run!]);
  expect(undo.code, undo.stderr).toBe(0);
  const creates = sb.requests.slice(undoMark).filter((r) => r.method === 'POST' && r.path === '/api/v2/prospects' && r.status === 201);
  expect(creates.length).toBe(dups.length);
  const held = externalIdCounts(sb);
  for (const id of dups) if (externalIdOf.get(id)) expect(held.get(externalIdOf.get(id)!) ?? 0, `duplicate ${id}`).toBe(1);
});
