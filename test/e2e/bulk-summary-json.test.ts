/**
 * A bulk run's JSON summary for scripts (`-o json`, `--query`): the id of its record, which `svc
 * runs undo` takes, with its counts, printed also when the run exits 5. A CI step had only the
 * `recorded as run …` line on stderr to read it from, or `[0]` of `runs list`, where parallel jobs'
 * runs interleave (a trial). Without `-o` (a pipe), and with `--report -`, stdout stays as it was.
 * In process against the sandbox, over HTTP.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inputFile } from '../helpers/bulk.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  const s = await sandboxWithEnv({ seed: 5 });
  sb = s.sb;
  env = baseEnv(s.env());
});
afterAll(() => sb.close());

const svc = (args: string[]) => runInProcess(args, env, { timeoutMs: 30_000 });

it('-o json prints the run id and counts, on exit 5 too; runs undo of that id prints its own', async () => {
  const file = inputFile('summary.csv', 'Email,First Name\nsum.one@summary.test,Ada\n,Bo\nsum.three@summary.test,Cy\n');
  const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '-o', 'json', '--yes']);
  expect(r.code, r.stderr).toBe(5);
  const s = JSON.parse(r.stdout);
  expect(s).toMatchObject({
    command: 'prospects upsert by emails',
    rows: 3,
    processed: 3,
    counts: { created: 2, failed: 1 },
    stopped: null,
    journal: `${file}.journal.ndjson`,
    report: null,
  });
  expect(s.run).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
  expect(r.stderr).toContain(`recorded as run ${s.run}:`);

  const undo = await svc(['runs', 'undo', s.run, '--yes', '--query', '{run: run, deleted: counts.deleted}']);
  expect(undo.code, undo.stderr).toBe(0);
  const u = JSON.parse(undo.stdout);
  expect(u.deleted).toBe(2);
  expect(u.run).not.toBe(s.run);
  const left = await svc(['prospects', 'list', '--filter', 'emails=sum.one@summary.test,sum.three@summary.test', '-o', 'json']);
  expect(JSON.parse(left.stdout)).toEqual([]);
});

it('without -o (a pipe) stdout stays empty; with --report - it holds only the report lines', async () => {
  const file = inputFile('quiet.csv', 'Email,First Name\nquiet.one@summary.test,Di\n');
  const plain = await svc(['prospects', 'upsert', '--input', file, '--match', 'email']);
  expect(plain.code, plain.stderr).toBe(0);
  expect(plain.stdout).toBe('');
  const file2 = inputFile('report.csv', 'Email,First Name\nreport.one@summary.test,Ed\n');
  const rep = await svc(['prospects', 'upsert', '--input', file2, '--match', 'email', '--report', '-', '-o', 'json']);
  expect(rep.code, rep.stderr).toBe(0);
  const lines = rep.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ row: 1, status: 'created' });
});
