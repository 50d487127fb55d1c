/**
 * `svc runs undo` killed with SIGKILL in the middle (twice), then run again until it finishes:
 * every row of the run is undone exactly once — one PATCH per record across all the attempts —
 * and the records hold their values from before the run. The process matters here (kill -9), so
 * the killed undos are bin/svc, spawned (run `npm run build` first); the run being undone, the
 * rerun that finishes and the listing of runs are made in-process.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inputFile } from '../helpers/bulk.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, spawnSvc } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { killAtRequest } from '../helpers/trials.js';

const ROWS = Number(process.env.SVC_RUNS_KILL_ROWS ?? 200);

let sb: TestSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  const s = await sandboxWithEnv({ seed: ROWS + 20, latencyMs: 5 });
  sb = s.sb;
  env = s.env();
});
afterAll(() => sb?.close());

const svc = (args: string[]) => runInProcess(args, baseEnv(env), { timeoutMs: 60_000 });
const title = (id: number) => (sb.store.table('prospect').get(id)!.attributes as Record<string, unknown>)['title'];
const patches = (from: number) => sb.requests.slice(from).filter((r) => r.method === 'PATCH');
/** PATCHes the sandbox answered: those it carried out or refused, not those broken off (status 0). */
const taken = (from: number) => patches(from).filter((r) => r.status !== undefined && r.status !== 0);

/** Spawns the undo and kills it with SIGKILL once `after` more PATCHes reached the sandbox. */
async function killAfter(args: string[], after: number): Promise<string | true> {
  const child = spawnSvc(args, { env });
  const ended = await killAtRequest(child, sb.requests, (r) => r.method === 'PATCH', after);
  // Not killed: what the undo said instead (it ended, or stopped early).
  return ended.interrupted || `not killed after ${ended.seen} PATCHes; stderr:\n${ended.stderr}`;
}

it('kill -9 in the middle of an undo, rerun: every row undone once', { timeout: 120_000 }, async () => {
  const ids = [...sb.store.table('prospect').keys()].sort((a, b) => a - b).slice(0, ROWS);
  const before = new Map(ids.map((id) => [id, title(id)]));
  const csv = `id,title\n${ids.map((id) => `${id},Killed ${id}`).join('\n')}\n`;
  const run = await runInProcess(['prospects', 'update', '--input', inputFile('kill.csv', csv)], baseEnv(env), { timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(0);
  const id = /recorded as run (\S+):/.exec(run.stderr)![1]!;

  const mark = sb.requests.length;
  const args = ['runs', 'undo', id, '--concurrency', '4'];
  expect(await killAfter(args, Math.floor(ROWS / 4))).toBe(true);
  expect(await killAfter(args, Math.floor(ROWS / 4))).toBe(true);
  const done = patches(mark).length;
  expect(done).toBeGreaterThanOrEqual(Math.floor(ROWS / 2));
  expect(done).toBeLessThan(ROWS);

  const last = await svc(args);
  expect(last.code, last.stderr).toBe(0);
  expect(last.stderr).toMatch(/continuing the unfinished undo \S+/);
  // One PATCH per record taken by the server over the three attempts: none done twice, none
  // missing. A PATCH the kill cut while the sandbox still held it (its latency, before reading
  // the body) is recorded as broken off (status 0): not carried out, and the rerun sends it.
  const perRecord = new Map<string, number>();
  for (const r of taken(mark)) perRecord.set(r.path, (perRecord.get(r.path) ?? 0) + 1);
  expect(perRecord.size).toBe(ROWS);
  const twice = [...perRecord].filter(([, n]) => n !== 1).map(([p]) => `${p}: ${taken(mark).filter((r) => r.path === p).length}`);
  expect(twice).toEqual([]);
  for (const p of ids) expect(title(p)).toBe(before.get(p));
  // The three attempts are one undo run, and the run stands undone.
  const list = await svc(['runs', 'list', '-o', 'json']);
  const runs = JSON.parse(list.stdout) as { id: string; state: string; undoes?: string }[];
  expect(runs.filter((r) => r.undoes === id)).toHaveLength(1);
  expect(runs.find((r) => r.id === id)!.state).toMatch(/^undone by /);
});
