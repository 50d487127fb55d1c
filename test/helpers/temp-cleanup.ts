/**
 * Set-up file of every test file (vitest.config.ts): the temporary directories a file made with
 * tempDir are removed once its own after-all hooks have stopped the sandboxes and processes
 * that used them (set-up hooks are registered first, so they run last).
 *
 * With SVC_TEST_CPU_LOG=file, each test file appends a line to that file: the CPU of its worker
 * process plus the children it waited for (spawned `bin/svc`, bash, sandbox processes), read from
 * /proc/self/stat, its wall time, its path, when it started (ms since the epoch) and the worker's
 * own CPU (so the children's is the difference) — the suite is CPU-bound on two cores, so this is
 * where its time goes, and the start times show which files ran together. A worker runs one file
 * at a time, so the deltas belong to the file. test/timings.tsv keeps the first three columns.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { madeSchemas } from './pg-schemas.js';
import { removeTempDirs } from './run-svc.js';

const cpuLog = process.env['SVC_TEST_CPU_LOG'];
if (cpuLog) {
  /** This process's CPU seconds (utime + stime) and its waited-for children's (cutime + cstime). */
  const cpu = () => {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .slice(11, 15)
      .map((n) => Number(n) / 100);
    return { self: f[0]! + f[1]!, children: f[2]! + f[3]! };
  };
  let start = { cpu: cpu(), wall: 0, at: 0 };
  let file = '';
  // biome-ignore lint/correctness/noEmptyPattern: vitest 4 wants a destructuring pattern as a hook's first argument (its fixtures); the suite is the second.
  beforeAll(({}, suite) => {
    // The set-up file's hooks belong to the file's own suite, which carries its path.
    file = path.relative(process.cwd(), (suite as { filepath?: string }).filepath ?? '?');
    start = { cpu: cpu(), wall: performance.now(), at: Date.now() };
  });
  afterAll(() => {
    const now = cpu();
    const self = now.self - start.cpu.self;
    const all = self + now.children - start.cpu.children;
    const wall = (performance.now() - start.wall) / 1000;
    appendFileSync(cpuLog, `${all.toFixed(2)}\t${wall.toFixed(2)}\t${file}\t${start.at}\t${self.toFixed(2)}\n`);
  });
}

afterAll(removeTempDirs);
// The PostgreSQL schemas the file named (helpers/postgres.ts freshSchema): dropped, not left to
// fill the server's catalog run after run.
afterAll(async () => {
  if (madeSchemas.length > 0) await (await import('./postgres.js')).dropFreshSchemas();
});
