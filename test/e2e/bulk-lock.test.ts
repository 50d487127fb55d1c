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
import { runSvc, tempDir } from '../helpers/run-svc.js';
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
