/**
 * Runs the built `bin/svc` as a child process, the way users and scripts do, and collects its
 * stdout, stderr and exit code. Every e2e test goes through here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'svc');

/** Result of one run. */
export interface SvcResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runSvc}. */
export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Written to stdin, then stdin is closed. */
  input?: string;
  cwd?: string;
  /** Kill after this many ms. @default 30000 */
  timeoutMs?: number;
}

/** Directories made by {@link tempDir} in this test file, removed after it (temp-cleanup.ts). */
const made: string[] = [];

/** A fresh directory for one test (config, input files, reports), removed when its file ends. */
export function tempDir(prefix = 'svc-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every directory {@link tempDir} made: a full run makes a few thousand. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** Environment every run starts from: no user config, no colour, no inherited svc settings. */
export function baseEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('SVC_') && k !== 'NODE_OPTIONS' && v !== undefined) env[k] = v;
  }
  env.NO_COLOR = '1';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/**
 * With SVC_TEST_SPAWN_LOG set (in the test runner's environment; children never see SVC_*), one
 * line per spawn of bin/svc is appended to that file: the test file that spawned it and the
 * command. For counting where the suite's processes go (test/README.md "Suite time").
 */
function logSpawn(args: string[]): void {
  const log = process.env.SVC_TEST_SPAWN_LOG;
  if (!log) return;
  const caller = /[^\s(]*\.test\.ts/.exec(new Error().stack ?? '')?.[0] ?? 'unknown';
  fs.appendFileSync(log, `${path.relative(ROOT, caller.replace(/^file:\/\//, ''))}\t${args.slice(0, 2).join(' ')}\n`);
}

/** Starts svc without waiting (for interrupt tests and long-running commands). */
export function spawnSvc(args: string[], opts: RunOptions = {}): ChildProcess {
  logSpawn(args);
  return spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: baseEnv(opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Runs svc to completion. */
export function runSvc(args: string[], opts: RunOptions = {}): Promise<SvcResult> {
  return new Promise((resolve, reject) => {
    const child = spawnSvc(args, opts);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    // A child that exits without reading its stdin closes the pipe: not the test's failure.
    child.stdin!.on('error', () => {});
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    else child.stdin!.end();
  });
}

/** Parses stdout as JSON, with the output in the error when it is not. */
export function json<T = unknown>(r: SvcResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${r.code}):\n${r.stdout}\nstderr:\n${r.stderr}`);
  }
}
