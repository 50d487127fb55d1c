#!/usr/bin/env node
/**
 * Start-up benchmark (the start-up targets of bench/README.md § Performance, and the `--limit 50` one):
 * every command is run as a fresh process, interleaved with the floors (`node empty.mjs`,
 * `node -e 0`) in the same rounds, against a sandbox already running in its own process with a profile logged in to it.
 * Run alone: `node bench/startup.mjs` prints JSON; `bench/run.mjs` calls {@link startupBench}.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchEnv, probeRuns, stats, timeInterleaved } from './lib/measure.mjs';
import { SVC, startSandboxProcess } from './lib/sandbox-process.mjs';

const node = process.execPath;

/**
 * Measures start-up times (ms) and the peak RSS of `--version` (KiB).
 * @param opts.runs rounds per command @default 30
 */
export async function startupBench({ runs = 30 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-startup-'));
  const empty = join(dir, 'empty.mjs');
  writeFileSync(empty, '');
  const sandbox = await startSandboxProcess({});
  try {
    // A logged-in profile, as a user has: the list command reads it like any other run.
    const configDir = join(dir, 'config');
    const env = benchEnv({ SVC_CONFIG_DIR: configDir });
    execFileSync(node, [SVC, 'login', '--with-token', '--base-url', sandbox.baseUrl], {
      env,
      input: `${sandbox.token}\n`,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    const cmds = {
      emptyFile: [node, empty],
      nodeE0: [node, '-e', '0'],
      version: [node, SVC, '--version'],
      help: [node, SVC, '--help'],
      resourceHelp: [node, SVC, 'prospects', '--help'],
      listLimit1: [node, SVC, 'prospects', 'list', '--limit', '1', '-o', 'json'],
      listLimit50: [node, SVC, 'prospects', 'list', '--limit', '50', '-o', 'json'],
    };
    const names = Object.keys(cmds);
    const times = timeInterleaved(Object.values(cmds), { runs, env });
    const result = { runs, times: {}, rssKb: {} };
    names.forEach((n, i) => {
      result.times[n] = stats(times[i]);
    });
    result.cpuMs = {};
    // CPU time and peak RSS, through a preload, interleaved too: steadier than wall time.
    const probes = Object.fromEntries(names.map((n) => [n, { rssKb: [], cpuMs: [] }]));
    for (let round = 0; round < Math.max(5, Math.round(runs / 3)); round++) {
      for (const n of names) {
        const p = probeRuns(cmds[n], { env, runs: 1 });
        probes[n].rssKb.push(...p.rssKb);
        probes[n].cpuMs.push(...p.cpuMs);
      }
    }
    for (const n of names) {
      result.rssKb[n] = stats(probes[n].rssKb);
      result.cpuMs[n] = stats(probes[n].cpuMs);
    }
    return result;
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await startupBench({ runs: Number(process.env.RUNS ?? 30) });
  const f = r.times.emptyFile.median;
  const c = r.cpuMs.emptyFile.median;
  for (const [n, s] of Object.entries(r.times)) {
    const cpu = r.cpuMs[n].median;
    process.stdout.write(
      `${n.padEnd(14)} wall ${s.median.toFixed(1).padStart(6)} ms [${s.p25.toFixed(1)}–${s.p75.toFixed(1)}] ${(s.median / f).toFixed(2)}×` +
        `   cpu ${cpu.toFixed(1).padStart(6)} ms ${(cpu / c).toFixed(2)}×   rss ${r.rssKb[n].median} KiB\n`,
    );
  }
}
