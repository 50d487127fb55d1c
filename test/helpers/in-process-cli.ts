/**
 * Runs svc's real program (`runProgram` of src/cli/run-cli.ts: the same command tree, option
 * parsing, Context and error reporting as bin/svc) inside the test process, on an App whose
 * stdout and stderr are captured in memory. For checks that send nothing (usage errors, dry runs,
 * help) and for property tests that need thousands of cases: a child process costs 100–300 ms
 * each. What main.ts does around the program — turning an exception into "unexpected failure" —
 * is reported here as `threw`, which a test counts as a crash.
 *
 * Behaviour that involves the process itself (signals, exit codes of the binary, pipes, TTYs,
 * the network for real) stays in the e2e tests that run bin/svc.
 */
import { PassThrough } from 'node:stream';
import { runProgram } from '../../src/cli/run-cli.js';
import type { IO } from '../../src/output/io.js';
import type { App } from '../../src/runtime/app.js';
import { type Running, watchedOutput } from './long-running.js';
import { baseEnv, type RunOptions, type SvcResult } from './run-svc.js';

/** The outcome of one in-process run. */
export interface InProcessResult {
  code: number | undefined;
  stdout: string;
  stderr: string;
  /** The program threw: main.ts would print "unexpected failure" (a crash). */
  threw?: unknown;
  /** It did not finish within the time limit. */
  hung?: boolean;
}

/** Options of {@link runInProcess} beyond the environment. */
export interface InProcessOptions {
  /** Given on stdin (then closed); stdin is empty otherwise. */
  input?: string;
  /** Terminal width reported to the program. @default COLUMNS, else 80 */
  columns?: number;
  /** stdout is a terminal (the program's people-facing output, not a terminal's bytes). */
  tty?: boolean;
  /**
   * stderr is a terminal `columns` wide too (its lines for people fitted to it); stdin is not, so
   * nothing is asked (test/helpers/terminal-context.ts is the Context that answers questions).
   */
  stderrTty?: boolean;
  /** Give up after this long. @default 10000 */
  timeoutMs?: number;
  /** Called with each chunk as the program writes it (for a test that answers a prompt or a URL). */
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  /** Aborting it is a Ctrl-C for the program: what bin/svc's SIGINT handler does (run-cli.ts). */
  signal?: AbortSignal;
}

/** Runs one argv through the program with captured output; stdin, stdout and stderr are not terminals. */
export async function runInProcess(
  argv: string[],
  env: NodeJS.ProcessEnv,
  options: InProcessOptions | number = {},
): Promise<InProcessResult> {
  const opts = typeof options === 'number' ? { timeoutMs: options } : options;
  const out = { stdout: '', stderr: '' };
  const capture = (name: 'stdout' | 'stderr') => {
    const s = new PassThrough();
    s.setEncoding('utf8').on('data', (d: string) => {
      out[name] += d;
      opts.onOutput?.(name, d);
    });
    return s;
  };
  const stdin = new PassThrough();
  stdin.end(opts.input ?? '');
  const io: IO = {
    stdout: capture('stdout'),
    stderr: capture('stderr'),
    stdin,
    stdoutIsTTY: opts.tty === true,
    stderrIsTTY: opts.stderrTty === true,
    stdinIsTTY: false,
    color: false,
    // As bin/svc reads it when stdout is no terminal.
    columns: opts.columns ?? (Number(env.COLUMNS) || 80),
    stderrColumns: opts.stderrTty ? (opts.columns ?? 80) : 0,
  };
  const controller = new AbortController();
  opts.signal?.addEventListener('abort', () => controller.abort(), { once: true });
  const app: App = { io, env, exitCode: 0, signal: controller.signal, argv };
  let timer: NodeJS.Timeout | undefined;
  // What was written is read on the next turn of the event loop: collect it before answering.
  const settled = () => new Promise<void>((resolve) => setImmediate(resolve));
  try {
    const run = runProgram(app, argv, '0.0.0-test').then(
      async (code) => {
        await settled();
        return { code, ...out };
      },
      async (threw: unknown) => {
        await settled();
        return { code: undefined, threw, ...out };
      },
    );
    const limit = new Promise<InProcessResult>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve({ code: undefined, hung: true, ...out });
      }, opts.timeoutMs ?? 10_000);
    });
    return await Promise.race([run, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * {@link runSvc}'s twin in the test process: the same arguments, options and result, for e2e
 * behaviour tests where the process itself plays no part (no signal, TTY, kill or start-up
 * under test). A run costs ~30 ms here against ~450 ms for a spawn of bin/svc. What main.ts does
 * around the program is reproduced: an exception becomes its "unexpected failure" line and
 * exit 1, so a test that asserts no crash still sees one; a run past `timeoutMs` ends as the
 * spawn's does, killed (code null, SIGKILL). `cwd` is refused: relative paths are the process's.
 */
export async function svcInProcess(args: string[], opts: RunOptions = {}): Promise<SvcResult> {
  if (opts.cwd !== undefined) throw new Error('svcInProcess: cwd is the process’s own; use runSvc');
  const r = await runInProcess(args, baseEnv(opts.env), {
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    timeoutMs: opts.timeoutMs ?? 30_000,
  });
  if (r.hung) return { code: null, signal: 'SIGKILL', stdout: r.stdout, stderr: r.stderr };
  if ('threw' in r) {
    const err = r.threw;
    const verbose = args.includes('--verbose') || args.includes('-v');
    const stderr = `${r.stderr}error: unexpected failure: ${err instanceof Error ? err.message : String(err)}\n${
      verbose && err instanceof Error && err.stack ? `${err.stack}\n` : 'hint: run again with --verbose for details\n'
    }`;
    return { code: 1, signal: null, stdout: r.stdout, stderr };
  }
  return { code: r.code ?? 0, signal: null, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `startSvc`'s twin (long-running.ts) in the test process, for a long-running command (`webhooks
 * listen`) whose behaviour is under test, not its process: the same output, `waitFor` and
 * `stop`, where `stop` is a Ctrl-C (the abort bin/svc's SIGINT handler makes) whatever signal is
 * named.
 */
export function startInProcess(args: string[], opts: RunOptions = {}): Omit<Running, 'child'> {
  let ended: InProcessResult | undefined;
  const watched = watchedOutput(() => (ended ? `ended (${ended.code})` : undefined));
  const ctrlC = new AbortController();
  const exited = runInProcess(args, baseEnv(opts.env), {
    timeoutMs: opts.timeoutMs ?? 120_000,
    signal: ctrlC.signal,
    onOutput: watched.add,
  }).then((r) => {
    ended = r;
    watched.poke();
    return r.hung ? null : (r.code ?? 1);
  });
  return {
    exited,
    stdout: () => watched.out.stdout,
    stderr: () => watched.out.stderr,
    waitFor: watched.waitFor,
    async stop() {
      ctrlC.abort();
      return exited;
    },
  };
}
