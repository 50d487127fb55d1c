/**
 * Timing and memory helpers shared by the benchmarks: repeated, interleaved child-process runs
 * (so that a noisy neighbour slows both sides of a ratio alike), medians with spread, and peak
 * RSS read by a tiny preload. Pure Node: no hyperfine needed on a fresh clone.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PROBE = fileURLToPath(new URL('./probe.cjs', import.meta.url));

/** The environment benchmarks run in: NODE_EXTRA_CA_CERTS and NODE_OPTIONS unset (see README). */
export function benchEnv(extra = {}) {
  const env = { ...process.env, NO_COLOR: '1', ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_OPTIONS;
  for (const k of Object.keys(env)) if (k.startsWith('SVC_') && !(k in extra)) delete env[k];
  return env;
}

/** Median, quartiles and extremes of a list of numbers. */
export function stats(values) {
  const v = [...values].sort((a, b) => a - b);
  const q = (p) => {
    const i = (v.length - 1) * p;
    const lo = Math.floor(i);
    return v[lo] + (v[Math.ceil(i)] - v[lo]) * (i - lo);
  };
  return { n: v.length, median: q(0.5), p25: q(0.25), p75: q(0.75), min: v[0], max: v[v.length - 1] };
}

/** Runs one command to completion; throws when it fails (a benchmark of an error is worthless). */
export function runOnce(cmd, { env = benchEnv(), input, maxBuffer = 64 << 20 } = {}) {
  const started = process.hrtime.bigint();
  const r = spawnSync(cmd[0], cmd.slice(1), { env, input, stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'], maxBuffer });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd.join(' ')} exited ${r.status ?? r.signal}: ${String(r.stderr).slice(0, 500)}`);
  return ms;
}

/**
 * Wall time of each command over `runs` rounds, the commands interleaved in every round so that
 * load changes hit all of them; `warmup` rounds first (file cache, CPU frequency) are dropped.
 * @returns one array of milliseconds per command, in the order given
 */
export function timeInterleaved(cmds, { runs = 30, warmup = 3, env } = {}) {
  const times = cmds.map(() => []);
  for (let round = 0; round < warmup + runs; round++) {
    cmds.forEach((cmd, i) => {
      const ms = runOnce(cmd, { env: cmd.env ?? env });
      if (round >= warmup) times[i].push(ms);
    });
  }
  return times;
}

/**
 * Peak resident memory (KiB) and CPU time (ms, user + system) of a Node command, read with a
 * `--require` preload that records them on exit; the preload costs the same on both sides of a
 * ratio. CPU time is steadier than wall time on a busy machine. `cmd` is `[node, script, ...args]`.
 * @returns `{ rssKb: number[], cpuMs: number[] }`
 */
export function probeRuns(cmd, { runs = 5, env = benchEnv() } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-probe-'));
  const out = join(dir, 'probe');
  try {
    const rssKb = [];
    const cpuMs = [];
    for (let i = 0; i < runs; i++) {
      writeFileSync(out, '');
      runOnce([cmd[0], '--require', PROBE, ...cmd.slice(1)], { env: { ...env, BENCH_PROBE_OUT: out } });
      const [rss, cpu] = readFileSync(out, 'utf8').trim().split(' ').map(Number);
      rssKb.push(rss);
      cpuMs.push(cpu);
    }
    return { rssKb, cpuMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Rounds for display. */
export function fmt(n, digits = 1) {
  return Number.isFinite(n) ? n.toFixed(digits) : String(n);
}

/**
 * Runs a Node command asynchronously (servers in this process keep answering) with the probe
 * preload: wall time, CPU time and peak RSS of the child; with `countLines`, its stdout is read
 * and its lines counted; with `stdoutFile`, it is written to that file; else it goes to /dev/null.
 * Rejects when the command fails.
 * @returns `{ ms, cpuMs, rssKb, lines }`
 */
export async function runMeasured(cmd, { env = benchEnv(), countLines = false, stdoutFile } = {}) {
  const { spawn } = await import('node:child_process');
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-run-'));
  const out = join(dir, 'probe');
  try {
    const fd = stdoutFile ? openSync(stdoutFile, 'w') : undefined;
    const started = process.hrtime.bigint();
    const child = spawn(cmd[0], ['--require', PROBE, ...cmd.slice(1)], {
      env: { ...env, BENCH_PROBE_OUT: out },
      stdio: ['ignore', countLines ? 'pipe' : (fd ?? 'ignore'), 'pipe'],
    });
    if (fd !== undefined) closeSync(fd);
    let lines = 0;
    let stderr = '';
    child.stdout?.on('data', (b) => {
      for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) lines++;
    });
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (code !== 0) throw new Error(`${cmd.join(' ')} exited ${code}: ${stderr.slice(0, 500)}`);
    const [rssKb, cpuMs] = readFileSync(out, 'utf8').trim().split(' ').map(Number);
    return { ms, cpuMs, rssKb, lines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
