#!/usr/bin/env node
/**
 * `npm run bench`: every benchmark of the project on this machine — start-up (startup.mjs),
 * listing throughput and memory (list.mjs), bulk runs (bulk.mjs) and the sandbox (sandbox.mjs),
 * the last two run as they are when they exist — then bench/RESULTS.md: the machine, the date,
 * each figure beside its target and beside the floor measured in the same run.
 * Pure Node: nothing to install beyond `npm ci`. NODE_EXTRA_CA_CERTS and NODE_OPTIONS are unset
 * for every measured process (the first adds ~28 ms to every Node start on some machines).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { listBench } from './list.mjs';
import { benchEnv } from './lib/measure.mjs';
import { renderResults } from './lib/report.mjs';
import { startupBench } from './startup.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const started = Date.now();
const log = (m) => process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${m}\n`);

/** Runs another benchmark script; resolves with the JSON document it prints last, or an error. */
function runScript(file, timeoutMs) {
  return new Promise((resolve) => {
    // Its own process group: on timeout the script goes with the servers it started, which would
    // otherwise hold its output pipes open (and this run waiting) after it is gone.
    const child = spawn(process.execPath, [file], { cwd: root, env: benchEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        child.kill('SIGTERM');
      }
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const start = out.indexOf('{');
      try {
        if (code !== 0)
          throw new Error(signal ? `stopped after ${timeoutMs / 1000} s` : `exited ${code}: ${err.trim().split('\n').slice(-3).join(' ')}`);
        resolve({ result: JSON.parse(out.slice(start)) });
      } catch (e) {
        resolve({ error: e instanceof Error ? e.message : String(e) });
      }
    });
  });
}

/** One of the other engineers' benchmarks, when its script exists. */
async function optional(name, file, timeoutMs) {
  if (!existsSync(here(file))) {
    log(`${name}: not yet available (${file} does not exist)`);
    return { missing: true };
  }
  log(`${name}: running ${file}…`);
  return runScript(here(file), timeoutMs);
}

log('building (npm run build)…');
execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: benchEnv() });

/** The commit measured, and whether the working tree differed from it (nothing when git is absent). */
function measuredCode() {
  const git = (...a) => execFileSync('git', a, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git('rev-parse', '--short', 'HEAD');
    // RESULTS.md and the results files are what this run rewrites: their changes do not count.
    const changed = git('status', '--porcelain', '--untracked-files=no')
      .split('\n')
      .filter((l) => l && !/ bench\/(RESULTS\.md|[\w-]+-results\.json)$/.test(l));
    return changed.length ? `${commit} with uncommitted changes` : commit;
  } catch {
    return undefined;
  }
}

const machine = {
  date: new Date().toISOString(),
  code: measuredCode(),
  cpus: `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}`,
  memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
  os: `${os.type()} ${os.release()} (${os.arch()})`,
  node: process.version,
  load: os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' '),
};

log('start-up: every command as a new process, interleaved with the floors…');
const startup = await startupBench({ runs: Number(process.env.RUNS ?? 30) });
log('listing: 100,000 prospects (sandbox, recorded pages, raw undici loop)…');
const list = await listBench({ records: Number(process.env.RECORDS ?? 100_000), runs: 3, log: (m) => log(`listing: ${m}`) });
const bulk = await optional('bulk', './bulk.mjs', 300_000);
const sandbox = await optional('sandbox', './sandbox.mjs', 120_000);
machine.seconds = Math.round((Date.now() - started) / 1000);
machine.loadAfter = os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');

const text = renderResults({ machine, startup, list, bulk, sandbox });
writeFileSync(here('./RESULTS.md'), text);
process.stdout.write(text);
log(`done in ${machine.seconds} s: bench/RESULTS.md written`);
