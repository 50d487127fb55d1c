/**
 * `--query` and `-o` on every JSON result, plans included, in process against the sandbox over
 * HTTP (a new user's trial): `--query` was ignored on upsert's plan, `-o raw --query` printed the
 * human plan (upsert, runs undo) or indented JSON (dedupe), and `-o csv` / `-o raw` were ignored
 * without a word (`sync` wrote nothing, a plan its prose). Now each goes through the one shaping
 * path (commands/shared/output.ts), and a format a command cannot write is refused before
 * anything is sent (exit 2).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: NodeJS.ProcessEnv;
let dir: string;
let csv: string;
let db: string;

beforeAll(async () => {
  let mk: () => Record<string, string>;
  ({ sb, env: mk } = await sandboxWithEnv({ seed: 60, duplicates: 2 }));
  dir = tempDir('svc-plan-query-');
  db = path.join(dir, 'org.sqlite');
  env = baseEnv({ ...mk(), SVC_CONFIG_DIR: dir });
  const first = sb.store.table('prospect').values().next().value!;
  const email = (first.attributes as { emails: string[] }).emails[0];
  csv = path.join(dir, 'up.csv');
  fs.writeFileSync(csv, `email,title\n${email},Chief Planner\nnew.one@plan-query.test,CEO\n`);
}, 60_000);
afterAll(() => sb.close());

const svc = (args: string[]) => runInProcess(args, env, { timeoutMs: 60_000 });
let journals = 0;
const upsertPlan = (...rest: string[]) =>
  svc(['prospects', 'upsert', '--input', csv, '--match', 'email', '--plan', '--journal', path.join(dir, `j${++journals}`), ...rest]);
const sent = (since: number) => sb.requests.length - since;

describe('--query on plans and other JSON results', () => {
  it('upsert --plan: --query picks from the plan with -o json, raw and ndjson', async () => {
    const bill = await upsertPlan('-o', 'json', '--query', 'bill');
    expect(bill.code, bill.stderr).toBe(0);
    expect(JSON.parse(bill.stdout)).toMatchObject({ creates: 1, updates: 1 });
    const rows = await upsertPlan('-o', 'raw', '--query', 'rows[].action');
    expect(rows.code, rows.stderr).toBe(0);
    expect(rows.stdout).toBe('update\ncreate\n');
    // A line per row and the bill last, each shaped on its own.
    const lines = await upsertPlan('-o', 'ndjson', '--query', 'action || bill.requests');
    expect(lines.stdout).toBe('"update"\n"create"\n5\n');
    // Without a shape, as before: the one document.
    expect(Object.keys(JSON.parse((await upsertPlan('-o', 'json')).stdout))).toEqual(['rows', 'bill']);
  });

  it('runs undo --plan -o raw --query prints one value a line', async () => {
    const input = path.join(dir, 'made.csv');
    fs.writeFileSync(input, 'firstName,lastName\nUn,Done\nDeux,Done\n');
    const run = await svc(['prospects', 'create', '--input', input, '--yes']);
    expect(run.code, run.stderr).toBe(0);
    const id = /recorded as run (\S+):/.exec(run.stderr)![1]!;
    const ids = await svc(['runs', 'undo', id, '--plan', '-o', 'raw', '--query', 'rows[].action']);
    expect(ids.code, ids.stderr).toBe(0);
    expect(ids.stdout).toBe('delete\ndelete\n');
    const csvPlan = await svc(['runs', 'undo', id, '--plan', '-o', 'csv']);
    expect(csvPlan.code).toBe(2);
    expect(csvPlan.stdout).toBe('');
    expect(csvPlan.stderr).toMatch(/^error: svc runs undo --plan prints table, json or ndjson, not csv$/m);
  });

  it('create --dry-run: --query shapes each row line', async () => {
    const r = await svc(['prospects', 'create', '--input', csv, '--dry-run', '-o', 'raw', '--query', 'body.data.attributes.title']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Chief Planner\nCEO\n');
  });

  it('dedupe and dedupe apply --plan: -o raw --query prints one value a line', async () => {
    expect((await svc(['sync', '--db', db, 'prospects'])).code).toBe(0);
    const plan = path.join(dir, 'merge.json');
    const json = await svc(['dedupe', 'prospects', '--db', db, '--plan', plan, '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const records = JSON.parse(json.stdout) as { id: number }[];
    expect(records.length).toBeGreaterThan(0);
    const raw = await svc(['dedupe', 'prospects', '--db', db, '-o', 'raw', '--query', '[].id']);
    expect(raw.stdout).toBe(records.map((r) => `${r.id}\n`).join(''));
    // -o raw alone keeps printing the clusters as JSON.
    expect(JSON.parse((await svc(['dedupe', 'prospects', '--db', db, '-o', 'raw'])).stdout)).toEqual(records);
    const survivors = await svc(['dedupe', 'apply', plan, '--plan', '-o', 'raw', '--query', 'clusters[].survivor']);
    expect(survivors.code, survivors.stderr).toBe(0);
    const doc = JSON.parse((await svc(['dedupe', 'apply', plan, '--plan', '-o', 'json'])).stdout);
    expect(survivors.stdout).toBe(doc.clusters.map((c: { survivor: number }) => `${c.survivor}\n`).join(''));
  });
});

describe("an undo's re-created ids", () => {
  /** A prospect made and deleted by svc: the delete's run, whose undo re-creates it. */
  async function deletedRun(name: string): Promise<{ run: string; old: number }> {
    const made = await svc(['prospects', 'create', '--attr', `firstName=${name}`, '--attr', 'lastName=Undone', '-o', 'json']);
    expect(made.code, made.stderr).toBe(0);
    const old = Number(JSON.parse(made.stdout).id);
    const del = await svc(['prospects', 'delete', String(old), '--yes']);
    expect(del.code, del.stderr).toBe(0);
    const runs = JSON.parse((await svc(['runs', 'list', '-o', 'json'])).stdout) as { id: string; command: string }[];
    return { run: runs.find((r) => r.command.includes(`delete ${old}`))!.id, old };
  }

  it('-o csv writes them as a table (type,old,new), as before the runs refused formats they cannot write', async () => {
    const { run, old } = await deletedRun('Csv');
    const r = await svc(['runs', 'undo', run, '-o', 'csv', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^type,old,new\\nprospect,${old},(\\d+)\\n$`));
  });

  it('with --report - stdout holds the report alone; the ids go to stderr', async () => {
    // They were printed after the report's NDJSON lines, in the middle of a script's stdout.
    const { run, old } = await deletedRun('Report');
    const r = await svc(['runs', 'undo', run, '--report', '-', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const l of lines) expect(() => JSON.parse(l), l).not.toThrow();
    const now = JSON.parse(lines[0]!).id;
    expect(r.stderr).toContain(`re-created prospect ${old} as ${now}`);
  });
});

describe('-o a command cannot write is refused before anything is sent', () => {
  it.each([
    [['sync', '-o', 'csv'], 'svc sync prints table, json or ndjson, not csv'],
    [['sync', '-o', 'raw'], 'svc sync prints table, json or ndjson, not raw'],
    [['sync', '--status', '-o', 'csv'], 'svc sync --status prints table, json, ndjson or raw, not csv'],
    [
      ['prospects', 'upsert', '--input', 'up.csv', '--match', 'email', '--plan', '-o', 'csv'],
      'svc prospects upsert --plan prints table, json or ndjson, not csv',
    ],
    [
      ['prospects', 'upsert', '--input', 'up.csv', '--match', 'email', '--plan', '-o', 'raw'],
      'svc prospects upsert --plan prints table, json or ndjson, not raw',
    ],
    [['dedupe', 'apply', 'merge.json', '--plan', '-o', 'csv'], 'svc dedupe apply --plan prints table, json or ndjson, not csv'],
    // The runs themselves: a trial's `-o csv` was ignored without a word (the lines for people on
    // stderr, nothing on stdout), where each row's outcome is --report's.
    [['prospects', 'create', '--input', 'up.csv', '-o', 'csv'], 'svc prospects create prints table, json or ndjson, not csv'],
    [
      ['prospects', 'create', '--input', 'up.csv', '--dry-run', '-o', 'raw'],
      'svc prospects create --dry-run prints table, json or ndjson, not raw',
    ],
    [
      ['prospects', 'upsert', '--input', 'up.csv', '--match', 'email', '-o', 'csv'],
      'svc prospects upsert prints table, json or ndjson, not csv',
    ],
    [['enroll', '--sequence', '1', '--prospect', '1', '-o', 'csv'], 'svc enroll prints table, json or ndjson, not csv'],
    [['runs', 'undo', 'r1', '-o', 'raw'], 'svc runs undo prints table, json, ndjson or csv, not raw'],
    [['dedupe', 'apply', 'merge.json', '-o', 'csv'], 'svc dedupe apply prints table, json or ndjson, not csv'],
    // Commands whose one result is a JSON summary (lines for people otherwise).
    [['schema', 'pull', '-o', 'csv'], 'svc schema pull prints table, json or ndjson, not csv'],
    [
      ['events', 'replay', '--since', '2026-11-01', '--to', 'http://127.0.0.1:9/x', '-o', 'csv'],
      'svc events replay prints table, json or ndjson, not csv',
    ],
    [['webhooks', 'cleanup', '--cleanup-token', 't', '-o', 'csv'], 'svc webhooks cleanup prints table, json or ndjson, not csv'],
    [
      ['webhooks', 'trigger', 'prospect.created', '--to', 'http://127.0.0.1:9/x', '-o', 'raw'],
      'svc webhooks trigger prints table, json or ndjson, not raw',
    ],
    [['sandbox', '--from-profile', 'default', '-o', 'csv'], 'svc sandbox --from-profile prints table, json or ndjson, not csv'],
  ])('%j', async (args, message) => {
    const mark = sb.requests.length;
    const files = fs.readdirSync(path.dirname(csv));
    const r = await svc(args.map((a) => (a === 'up.csv' ? csv : a === 'merge.json' ? path.join(dir, 'nothing.json') : a)));
    // Nothing written either: no journal beside the input.
    expect(fs.readdirSync(path.dirname(csv))).toEqual(files);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(`error: ${message}`);
    // A run's hint names where each row's outcome goes; a plan has none.
    const run = /^svc (prospects create|prospects upsert|enroll|runs undo|dedupe apply) prints/.test(message);
    expect(/--report FILE writes each row's outcome/.test(r.stderr)).toBe(run);
    expect(sent(mark)).toBe(0);
  });

  it('sync -o raw --query still prints the summary picked', async () => {
    const r = await svc(['sync', '--db', path.join(dir, 'other.sqlite'), 'accounts', '-o', 'raw', '--query', 'tables[0].table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^accounts\n$/);
  });
});
