/**
 * Copies of one bulk command started together on one input (its journal's lock left stale by a
 * killed run): one does the rows, the others stop before sending anything (exit 2, naming the
 * live owner), and every row is created once.
 *
 * The copies are bin/svc processes (a lock between processes is under test), three per trial:
 * `SVC_LOCK_TRIALS` trials, 2 by default (3 before; each trial is three spawns, ~1.2 CPU-s).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, spawnSvc, tempDir } from '../helpers/run-svc.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

/** Trials of the race (header). */
const TRIALS = Number(process.env['SVC_LOCK_TRIALS'] ?? 2);

let sb: TestSandbox;
let env: () => Record<string, string>;
beforeAll(async () => {
  // Slow enough that every copy starts while the first still runs: its six rows take 2.4 s. At
  // 150 ms (0.9 s) a loaded machine (load 21, CI) started the third copy after the first had
  // ended, and it found the journal done (exit 0, not the refusal this test is about).
  ({ sb, env } = await sandboxWithEnv({ seed: 10, latencyMs: 400 }));
});
afterAll(() => sb.close());

/** The pid of a process that has ended (`true`: not a Node start). */
const deadPid = () => spawnSync('true').pid;

describe('three copies of one bulk create on a stale lock', () => {
  it(`${TRIALS} trials: one run does every row, the others are refused before sending; no row twice`, async () => {
    for (let t = 0; t < TRIALS; t++) {
      const dir = tempDir('svc-lock-');
      const file = path.join(dir, 'rows.csv');
      const emails = Array.from({ length: 6 }, (_, i) => `r${i}.t${t}@lock.test`);
      fs.writeFileSync(file, `firstName,emails\n${emails.map((e, i) => `R${i},${e}`).join('\n')}\n`);
      fs.writeFileSync(`${file}.journal.ndjson.lock`, `${deadPid()}\n${os.hostname()}\n`);
      const e = env();
      const runs = await Promise.all(
        [0, 1, 2].map(() => runSvc(['prospects', 'create', '--input', file, '--concurrency', '1'], { env: e })),
      );
      const codes = runs.map((r) => r.code).sort();
      expect(codes, runs.map((r) => r.stderr).join('\n---\n')).toEqual([0, 2, 2]);
      for (const r of runs.filter((x) => x.code === 2))
        expect(r.stderr).toMatch(/^error: --journal .*rows\.csv\.journal\.ndjson: another svc run \(pid \d+\) is using this journal$/m);
      for (const email of emails) {
        const holders = [...sb.store.table('prospect').values()].filter((p) => (p.attributes['emails'] as string[]).includes(email));
        expect(holders, email).toHaveLength(1);
      }
      expect(fs.existsSync(`${file}.journal.ndjson.lock`)).toBe(false);
    }
  }, 60_000);
});

describe('a second run while the first holds the journal', () => {
  it('says only the lock\'s error and hint, before "recorded by earlier runs" or its plan; exit 2, nothing sent', async () => {
    const dir = tempDir('svc-lock-');
    const file = path.join(dir, 'lk.csv');
    fs.writeFileSync(file, `firstName,emails\n${Array.from({ length: 8 }, (_, i) => `S${i},s${i}@lock.test`).join('\n')}\n`);
    const journal = `${file}.journal.ndjson`;
    const e = env();
    // The first run, a process of its own (the lock is between processes), one row at a time at 400 ms a request.
    const first = spawnSvc(['prospects', 'create', '--input', file, '--concurrency', '1'], { env: e });
    const firstDone = new Promise<number | null>((resolve) => first.on('close', resolve));
    // Once it has journaled a row: the second run would read it as "done by earlier runs".
    const deadline = Date.now() + 20_000;
    while (!(fs.existsSync(journal) && fs.readFileSync(journal, 'utf8').includes('"created"')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    // The second run's own token: its requests told apart from the first's.
    const token = sb.issueToken({});
    const second = await svcInProcess(['prospects', 'create', '--input', file], { env: { ...e, SVC_TOKEN: token } });
    const stillRunning = first.exitCode === null;
    expect(await firstDone).toBe(0);
    expect(stillRunning, 'the first run ended before the second started: slow the sandbox').toBe(true);
    expect(second.stderr).toBe(
      `error: --journal ${journal}: another svc run (pid ${first.pid}) is using this journal\n` +
        `hint: wait for it to finish, or remove ${journal}.lock if that process is not svc\n`,
    );
    expect(second.code).toBe(2);
    // (The first run's requests carry its token: the filter tells them apart.)
    expect(sb.requests.some((q) => q.headers['authorization'] === `Bearer ${e.SVC_TOKEN}`)).toBe(true);
    expect(sb.requests.filter((q) => q.headers['authorization'] === `Bearer ${token}`)).toEqual([]);
    expect(fs.existsSync(`${journal}.lock`)).toBe(false);
  }, 60_000);
});
