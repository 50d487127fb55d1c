/**
 * A bulk run whose journal another live run holds is refused before it reads the journal, says
 * or sends anything: its stderr is the lock's error and hint alone, exit 2, no request. Before,
 * it read the live run's rows ("journal …: 179 row(s) recorded by earlier runs"), printed its plan
 * ("123 to create, 177 done by earlier runs") and sent its reads, and only then met the lock (a CI
 * engineer's trial). Every kind of bulk run: create, update and delete --input, upsert, enroll,
 * runs undo, dedupe apply. A plan (`--plan`, `--dry-run`) writes no journal and still runs beside
 * the holder; a stale lock (its pid dead) is still taken over.
 *
 * In process: the holder is a live process of this host other than this one (the test runner's
 * parent), as a running svc is to the lock; a lock of this process's own pid would be taken for one
 * left by an earlier process with the same pid (run-lock.ts). e2e/bulk-lock.test.ts holds the
 * lock with a real bin/svc run.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { freeProspects, inputFile, newSequence } from '../helpers/bulk.js';

let sb: TestSandbox;
let env: Record<string, string>;
let dir: string;
beforeAll(async () => {
  let mk: () => Record<string, string>;
  ({ sb, env: mk } = await sandboxWithEnv({ seed: 120, duplicates: 5, rateLimit: 10_000_000 }));
  dir = tempDir('svc-lock-first-');
  env = { ...mk(), SVC_CONFIG_DIR: dir };
}, 30_000);
afterAll(() => sb.close());

const svc = (args: string[]) => svcInProcess(args, { env, timeoutMs: 60_000 });

/** A live process of this host that is not this one: to the lock, another svc run. */
const LIVE = process.ppid;

/** Locks `journal` as a run of `pid` does (pid, host); the lock's text, to see it is left as it was. */
function holdAs(journal: string, pid: number): string {
  const text = `${pid}\n${os.hostname()}\n`;
  fs.writeFileSync(`${journal}.lock`, text);
  return text;
}

/** The whole stderr of a run refused by the lock `journal` holds. */
const refusal = (journal: string) =>
  `error: --journal ${journal}: another svc run (pid ${LIVE}) is using this journal\n` +
  `hint: wait for it to finish, or remove ${journal}.lock if that process is not svc\n`;

/**
 * Runs `args` while a live run holds `journal`: refused with the lock's lines alone, nothing sent,
 * the journal and the lock as they were; then `plans` (each writes nothing) run beside the holder.
 */
async function refusedWhileHeld(journal: string, args: string[], plans: string[][] = []): Promise<void> {
  const lock = holdAs(journal, LIVE);
  const before = fs.existsSync(journal) ? fs.readFileSync(journal, 'utf8') : undefined;
  const mark = sb.requests.length;
  const r = await svc(args);
  expect(r.stderr).toBe(refusal(journal));
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(sb.requests.slice(mark).map((q) => `${q.method} ${q.path}`)).toEqual([]);
  expect(fs.readFileSync(`${journal}.lock`, 'utf8')).toBe(lock);
  expect(fs.existsSync(journal) ? fs.readFileSync(journal, 'utf8') : undefined).toBe(before);
  for (const plan of plans) {
    const p = await svc(plan);
    expect(p.code, `${plan.join(' ')}\n${p.stderr}`).toBe(0);
    expect(p.stderr).not.toMatch(/another svc run/);
    expect(fs.readFileSync(`${journal}.lock`, 'utf8')).toBe(lock);
  }
  expect(fs.existsSync(journal) ? fs.readFileSync(journal, 'utf8') : undefined).toBe(before);
  fs.rmSync(`${journal}.lock`);
}

/** A first run that completes (its journal then records rows as done), and its run id. */
async function firstRun(args: string[]): Promise<string> {
  const r = await svc([...args, '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { run: string }).run;
}

describe('a bulk run on a journal another run holds', () => {
  it('create --input: only the error and hint, before "recorded by earlier runs" or the plan; a stale lock is taken over', async () => {
    const file = inputFile('lk.csv', `firstName,emails\n${[0, 1, 2, 3].map((i) => `L${i},l${i}@lock-first.test`).join('\n')}\n`);
    const run = ['prospects', 'create', '--input', file];
    await firstRun(run);
    const journal = `${file}.journal.ndjson`;
    await refusedWhileHeld(journal, run, [[...run, '--dry-run']]);
    // A lock whose run was killed (its pid dead on this host) is taken over, as before.
    holdAs(journal, spawnSync('true').pid!);
    const rerun = await svc(run);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/^journal .*: 4 row\(s\) recorded by earlier runs$/m);
    expect(fs.existsSync(`${journal}.lock`)).toBe(false);
  });

  it('update and delete --input, upsert (and --plan beside the holder), the --shard hint', async () => {
    const ids = freeProspects(sb, 3);
    const upd = inputFile('upd.csv', `id,title\n${ids.map((id) => `${id},Lock ${id}`).join('\n')}\n`);
    const update = ['prospects', 'update', '--input', upd];
    await firstRun(update);
    await refusedWhileHeld(`${upd}.journal.ndjson`, update, [
      [...update, '--plan'],
      [...update, '--dry-run'],
    ]);

    const up = inputFile('up.csv', 'firstName,emails\nU1,u1@lock-first.test\nU2,u2@lock-first.test\n');
    const upsert = ['prospects', 'upsert', '--input', up, '--match', 'email'];
    await firstRun(upsert);
    await refusedWhileHeld(`${up}.journal.ndjson`, upsert, [
      [...upsert, '--plan'],
      [...upsert, '--dry-run'],
    ]);

    const del = inputFile('del.csv', `id\n${ids[0]}\n`);
    const remove = ['prospects', 'delete', '--input', del, '--yes'];
    await firstRun(remove);
    await refusedWhileHeld(`${del}.journal.ndjson`, remove, [[...remove, '--dry-run']]);

    // A shard is told that shards at once each need a journal of their own, as before.
    const journal = `${up}.journal.ndjson`;
    holdAs(journal, LIVE);
    const mark = sb.requests.length;
    const shard = await svc([...upsert, '--shard', '1/2']);
    expect(shard.code).toBe(2);
    expect(shard.stderr).toBe(
      `${refusal(journal)}hint: if the holder is another shard of this file: shards run at once on one machine each need a journal of their own from their first run (--journal ${up}.shard-1.journal.ndjson); a shard that has run before keeps its journal, or its rows are sent again\n`,
    );
    expect(sb.requests.length).toBe(mark);
    fs.rmSync(`${journal}.lock`);
  });

  it('enroll --input (and --dry-run beside the holder)', async () => {
    const seq = await newSequence(sb);
    const file = inputFile('enrol.csv', `${freeProspects(sb, 2).join('\n')}\n`);
    const enroll = ['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--yes'];
    await firstRun(enroll);
    await refusedWhileHeld(`${file}.journal.ndjson`, enroll, [[...enroll, '--dry-run']]);
  });

  it('runs undo (and --plan beside the holder)', async () => {
    const file = inputFile('undo.csv', 'firstName,emails\nN1,n1@lock-first.test\nN2,n2@lock-first.test\n');
    const id = await firstRun(['prospects', 'create', '--input', file]);
    const journal = path.join(dir, 'data', 'runs', `${id}.undo.journal.ndjson`);
    await refusedWhileHeld(journal, ['runs', 'undo', id, '--yes'], [['runs', 'undo', id, '--plan']]);
    // Not taken back: the refused undo did nothing.
    expect((await svc(['runs', 'undo', id, '--yes'])).code).toBe(0);
  });

  it('dedupe apply (and --plan beside the holder)', async () => {
    const db = path.join(dir, 'org.sqlite');
    expect((await svc(['sync', '--db', db])).code).toBe(0);
    const plan = path.join(dir, 'merge.json');
    expect((await svc(['dedupe', 'prospects', '--db', db, '--plan', plan, '-o', 'json'])).code).toBe(0);
    await refusedWhileHeld(`${plan}.journal.ndjson`, ['dedupe', 'apply', plan, '--yes'], [['dedupe', 'apply', plan, '--plan']]);
  });
});
