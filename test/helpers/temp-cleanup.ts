/**
 * Set-up file of every test file (vitest.config.ts): the temporary directories a file made with
 * tempDir are removed once its own after-all hooks have stopped the sandboxes and processes
 * that used them (set-up hooks are registered first, so they run last).
 *
 * With SVC_TEST_CPU_LOG=file, each test file appends a line to that file: its wall time and the
 * CPU of its worker process plus the children it waited for (spawned `bin/svc`, bash, sandbox
 * processes), read from /proc/self/stat — the suite is CPU-bound on two cores, so this is where
 * its time goes. A worker runs one file at a time, so the deltas belong to the file.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { removeTempDirs } from './run-svc.js';

const cpuLog = process.env['SVC_TEST_CPU_LOG'];
if (cpuLog) {
  /** utime + stime + cutime + cstime of this process, in seconds (clock ticks of 1/100 s). */
  const cpu = () => {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
  };
  let start = { cpu: 0, wall: 0 };
  let file = '';
  // biome-ignore lint/correctness/noEmptyPattern: vitest 4 wants a destructuring pattern as a hook's first argument (its fixtures); the suite is the second.
  beforeAll(({}, suite) => {
    // The set-up file's hooks belong to the file's own suite, which carries its path.
    file = path.relative(process.cwd(), (suite as { filepath?: string }).filepath ?? '?');
    start = { cpu: cpu(), wall: performance.now() };
  });
  afterAll(() => {
    const line = `${(cpu() - start.cpu).toFixed(2)}\t${((performance.now() - start.wall) / 1000).toFixed(2)}\t${file}\n`;
    appendFileSync(cpuLog, line);
  });
}

afterAll(removeTempDirs);
