/**
 * A bulk run's JSON summary for scripts (`-o json`, `--query`): the id of its record, which `svc
 * runs undo` takes, with its counts, printed also when the run exits 5. A CI step had only the
 * `recorded as run …` line on stderr to read it from, or `[0]` of `runs list`, where parallel jobs'
 * runs interleave (a trial). Without `-o` (a pipe), and with `--report -` alone, stdout stays as it
 * was; `--report -` beside the summary asked for is refused, both being stdout's.
 * In process against the sandbox, over HTTP.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

it('without -o (a pipe) stdout stays empty; with --report - alone it holds only the report lines', async () => {
  const file = inputFile('quiet.csv', 'Email,First Name\nquiet.one@summary.test,Di\n');
  const plain = await svc(['prospects', 'upsert', '--input', file, '--match', 'email']);
  expect(plain.code, plain.stderr).toBe(0);
  expect(plain.stdout).toBe('');
  const file2 = inputFile('report.csv', 'Email,First Name\nreport.one@summary.test,Ed\n');
  const rep = await svc(['prospects', 'upsert', '--input', file2, '--match', 'email', '--report', '-']);
  expect(rep.code, rep.stderr).toBe(0);
  const lines = rep.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ row: 1, status: 'created' });
  // A report to a file leaves stdout to the summary.
  const file3 = inputFile('to-file.csv', 'Email,First Name\nto.file@summary.test,Fa\n');
  const out = `${file3}.report.ndjson`;
  const id = await svc(['prospects', 'create', '--input', file3, '--report', out, '-o', 'raw', '--query', 'run']);
  expect(id.code, id.stderr).toBe(0);
  expect(id.stdout).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}\n$/);
  expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toMatchObject({ row: 1, status: 'created' });
});

/** Every file under `dir`, for "nothing was written". */
function filesUnder(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort() : [];
}

describe('--report - beside -o json, --json or --query is refused before anything is read or sent', () => {
  // A CI trial: `run=$(svc … --report - -o raw --query run)` got the report's lines in $run, exit
  // 0, the summary left out without a word (both want stdout).
  let inputs: Record<string, string>;
  let runId: string;
  beforeAll(async () => {
    const dir = path.dirname(inputFile('x', ''));
    const write = (name: string, text: string) => {
      fs.writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    inputs = {
      CREATE: write('rep2.csv', 'First Name,E-mail\nR1,rep2.r1@ci.test\nR2,rep2.r2@ci.test\n'),
      UPDATE: write('update.csv', 'id,title\n1,Refused\n'),
      DELETE: write('delete.csv', 'id\n2\n'),
      // Never read: the refusal comes first.
      PLAN: path.join(dir, 'no-such-plan.json'),
    };
    const made = await svc(['prospects', 'create', '--input', write('undo-me.csv', 'firstName\nUndo\n'), '-o', 'raw', '--query', 'run']);
    expect(made.code, made.stderr).toBe(0);
    runId = made.stdout.trim();
  });

  it.each([
    [['prospects', 'create', '--input', 'CREATE', '--report', '-', '--query', 'run', '-o', 'raw'], '-o raw --query', '-o raw and --query'],
    [['prospects', 'create', '--input', 'CREATE', '--report', '-', '-o', 'json'], '-o json', '-o json'],
    [['prospects', 'create', '--input', 'CREATE', '--report', '-', '--json'], '-o json', '-o json'],
    [['prospects', 'update', '--input', 'UPDATE', '--report', '-', '-o', 'ndjson'], '-o ndjson', '-o ndjson'],
    [['prospects', 'delete', '--input', 'DELETE', '--yes', '--report', '-', '-o', 'json'], '-o json', '-o json'],
    [['prospects', 'upsert', '--input', 'CREATE', '--match', 'email', '--report', '-', '--query', 'run'], '--query', '--query'],
    [['enroll', '--sequence', '1', '--mailbox', '1', '--prospect', '1', '--report', '-', '-o', 'json'], '-o json', '-o json'],
    [['runs', 'undo', 'RUN', '--yes', '--report', '-', '-o', 'json'], '-o json', '-o json'],
    [['dedupe', 'apply', 'PLAN', '--yes', '--report', '-', '--query', 'run', '-o', 'raw'], '-o raw --query', '-o raw and --query'],
  ])('%j', async (args, asked, leaveOut) => {
    const config = env.SVC_CONFIG_DIR!;
    const before = { inputs: filesUnder(path.dirname(inputs.CREATE!)), config: filesUnder(config) };
    const mark = sb.requests.length;
    const r = await svc(args.map((a) => (a === 'RUN' ? runId : (inputs[a] ?? a))));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').slice(0, 2)).toEqual([
      `error: --report - and ${asked} both write to stdout`,
      `hint: give --report a file (--report results.ndjson), or leave out ${leaveOut}`,
    ]);
    expect(sb.requests.length - mark).toBe(0);
    // No journal beside the input, no run record, no lock in the data folder.
    expect({ inputs: filesUnder(path.dirname(inputs.CREATE!)), config: filesUnder(config) }).toEqual(before);
  });

  it('a plan with --report - prints the plan: it writes no report', async () => {
    const file = inputFile('plan.csv', 'Email\nplan.one@summary.test\nplan.two@summary.test\n');
    const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--plan', '-o', 'json', '--report', '-']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ bill: { creates: 2 } });
    // Said, not left unwritten without a word (a --report FILE beside --plan was ignored so).
    expect(r.stderr).toMatch(/^warning: --report - is not written: a plan sends nothing \(the run writes it\)$/m);
    const report = path.join(path.dirname(file), 'plan.report.ndjson');
    const dry = await svc(['prospects', 'create', '--input', file, '--dry-run', '--report', report]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`warning: --report ${report} is not written: a plan sends nothing (the run writes it)`);
    expect(fs.existsSync(report)).toBe(false);
  });
});
