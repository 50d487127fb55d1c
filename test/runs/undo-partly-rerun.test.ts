/**
 * A rerun after a partial undo (a trial): `svc runs undo` left a conflict, so the run is not
 * marked undone, but the rows it set back are still done in the run's journal. The same command
 * again (one row of the file edited) skipped them, exit 0, and they stayed undone without a word.
 * Now refused before anything is sent, as after a whole undo, with the ways on. In process,
 * against a sandbox over HTTP.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: NodeJS.ProcessEnv;
let dir: string;
beforeAll(async () => {
  const s = await sandboxWithEnv({ seed: 5 });
  sb = s.sb;
  dir = tempDir('svc-partly-');
  env = baseEnv({ ...s.env(), SVC_CONFIG_DIR: path.join(dir, 'config') });
});
afterAll(() => sb?.close());

const svc = (args: string[]) => runInProcess(args, env, { timeoutMs: 30_000 });
const title = (id: number) => (sb.store.table('prospect').get(id)!.attributes as Record<string, unknown>)['title'];
const writes = (since: number) => sb.requests.slice(since).filter((r) => r.method !== 'GET').length;

it('a rerun after a partial undo: refused, nothing sent, the rows it would skip named; afresh, written again', async () => {
  const before = [1, 2, 3].map(title);
  const file = path.join(dir, 'titles.ndjson');
  const rows = (first: string) => `{"id":1,"title":"${first}"}\n{"id":2,"title":"Two"}\n{"id":3,"title":"Three"}\n`;
  fs.writeFileSync(file, rows('One'));
  const run = await svc(['prospects', 'update', '--input', file]);
  expect(run.code, run.stderr).toBe(0);
  const id = /recorded as run (\S+):/.exec(run.stderr)![1]!;
  // Row 2's record changes since: the undo leaves it (a conflict, exit 5) and sets back rows 1 and 3.
  sb.store.table('prospect').get(2)!.attributes['title'] = 'Someone Else';
  const undo = await svc(['runs', 'undo', id]);
  expect(undo.code, undo.stderr).toBe(5);
  expect(undo.stderr).toMatch(/2 set back, 1 skipped/);
  expect([1, 3].map(title)).toEqual([before[0], before[2]]);
  // Row 1 edited, the same command again.
  fs.writeFileSync(file, rows('One, edited'));
  const mark = sb.requests.length;
  const again = await svc(['prospects', 'update', '--input', file]);
  expect(again.code).toBe(2);
  expect(again.stderr).toMatch(
    new RegExp(
      `^error: the rows .+ holds as done include 2 that run ${id} wrote and \`svc runs undo\` took back \\(run \\S+, in part\\): run again, it would skip them$`,
      'm',
    ),
  );
  expect(again.stderr).toMatch(/^hint: to write them again, start afresh: remove .+, or give --journal a new file$/m);
  expect(writes(mark)).toBe(0);
  expect(title(3)).toBe(before[2]);
  // Started afresh, every row of the file is written.
  fs.rmSync(/remove (.+), or give/.exec(again.stderr)![1]!);
  const afresh = await svc(['prospects', 'update', '--input', file]);
  expect(afresh.code, afresh.stderr).toBe(0);
  expect([1, 2, 3].map(title)).toEqual(['One, edited', 'Two', 'Three']);
});
