/**
 * A command's Context as on a terminal, for the questions a handler asks there (a delete, an
 * undo that deletes, `runs prune`, enroll's go-ahead): `svcInProcess` and bin/svc in a pipe have
 * no terminal, so they never ask. stdin and stderr are terminals (stdout too unless told), each
 * question goes to `confirm`, and stdout and stderr are kept as text (what a person sees is both).
 */
import { PassThrough } from 'node:stream';
import type { App } from '../../src/runtime/app.js';
import type { Clock, GlobalOptions } from '../../src/runtime/context.js';
import { createContext } from '../../src/runtime/create-context.js';
import type { Prompter } from '../../src/runtime/prompter.js';

export interface TerminalContextOptions {
  /** Answers each yes/no question (the message and its default). */
  confirm: (message: string, defaultValue?: boolean) => boolean | Promise<boolean>;
  /** Options the command line would give, over a token and base URL from `env`. */
  globals?: Partial<GlobalOptions>;
  /** false: stdout is a pipe (the data goes to a file, the questions still to the person). */
  stdoutIsTTY?: boolean;
  clock?: Clock;
}

export function terminalContext(env: NodeJS.ProcessEnv, opts: TerminalContextOptions) {
  let stderr = '';
  let stdout = '';
  const err = new PassThrough().setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const out = new PassThrough().setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const io = {
    stdout: out,
    stderr: err,
    stdin: new PassThrough(),
    stdoutIsTTY: opts.stdoutIsTTY ?? true,
    stderrIsTTY: true,
    stdinIsTTY: true,
    color: false,
    columns: 80,
    stderrColumns: 0,
  };
  const app: App = { io, env, exitCode: 0, signal: new AbortController().signal, ...(opts.clock ? { clock: opts.clock } : {}) };
  const prompter = { confirm: async (message: string, def?: boolean) => opts.confirm(message, def) } as Prompter;
  const globals: GlobalOptions = {
    baseUrl: env.SVC_BASE_URL,
    token: env.SVC_TOKEN,
    verbose: false,
    dryRun: false,
    yes: false,
    sandbox: false,
    timeoutMs: 10_000,
    ...opts.globals,
  };
  const ctx = createContext(app, globals, { prompter });
  return { ctx, app, stderr: () => stderr, stdout: () => stdout };
}
