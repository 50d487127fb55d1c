/**
 * Shared set-up of the reliability suite: a sandbox with a fault proxy in front, the env that
 * points `bin/svc` at the proxy, and checks on what svc printed (one clear error line, no stack).
 */
import { expect } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { tempDir, type SvcResult } from './run-svc.js';
import { sandboxWithEnv, type TestSandbox } from './sandbox.js';

/** A sandbox and a proxy in front of it. */
export interface Rig {
  sb: TestSandbox;
  proxy: FaultProxy;
  /** Env for svc: base and auth URL through the proxy, the sandbox's token, a fresh config dir. */
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

/** Starts a sandbox and a fault proxy in front of it. */
export async function startRig(opts: SandboxOptions = {}): Promise<Rig> {
  const { sb } = await sandboxWithEnv(opts);
  const proxy = await startFaultProxy(sb.authUrl);
  return rigOf(sb, proxy, async () => {
    await proxy.close();
    await sb.close();
  });
}

/**
 * A rig of its own in front of another rig's sandbox: a fresh fault proxy (its own rules, log and
 * up/down state) for a test that runs beside others (`describe.concurrent`) and asserts on the
 * proxy's log or plans faults on paths the others use. The proxy closes when the test ends.
 */
export async function ownProxy(base: Rig, ctx: { onTestFinished: (fn: () => Promise<void>) => void }): Promise<Rig> {
  const proxy = await startFaultProxy(base.sb.authUrl);
  const rig = rigOf(base.sb, proxy, () => proxy.close());
  ctx.onTestFinished(() => rig.close());
  return rig;
}

function rigOf(sb: TestSandbox, proxy: FaultProxy, close: () => Promise<void>): Rig {
  return {
    sb,
    proxy,
    env: (extra = {}) => ({
      SVC_CONFIG_DIR: tempDir(),
      SVC_BASE_URL: `${proxy.origin}/api/v2`,
      SVC_AUTH_URL: proxy.origin,
      SVC_TOKEN: sb.token,
      ...extra,
    }),
    close,
  };
}

/**
 * At most `n` of a file's concurrent tests past this point at a time (first come, first served),
 * the turn given back when the test ends: for runs whose waits may overlap but whose work, all in
 * the worker's one event loop beside the sandbox and the proxies, would eat the margins of their
 * timers on a loaded machine. `await take(ctx)` at the start of each such test.
 */
export function turns(n: number): (ctx: { onTestFinished: (fn: () => void) => void }) => Promise<void> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (ctx) => {
    if (running < n) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    ctx.onTestFinished(() => {
      const next = waiting.shift();
      if (next) next();
      else running--;
    });
  };
}

/** The lines of stderr that are not `--verbose` trace lines (`* …`). */
export function messageLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('* '));
}

/** Stack-trace lines (`    at f (file:1:2)`) and the `Name: message` line above them. */
const STACK_LINE = /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>\)?)$/;

/**
 * Asserts what every failure must look like: one `error:` line first, no stack trace, no
 * crash. `verbose` runs may add a stack trace (a stack trace only with --verbose).
 */
export function expectCleanFailure(r: SvcResult, code: number, pattern?: RegExp, opts: { verbose?: boolean } = {}): string {
  expect(r.code, `exit code; stderr:\n${r.stderr}`).toBe(code);
  expect(r.signal).toBeNull();
  let lines = messageLines(r.stderr);
  if (opts.verbose) {
    // Drop the stack: its `Name: message` header line and the `at` lines.
    const first = lines.findIndex((l) => STACK_LINE.test(l));
    if (first > 0) lines = lines.filter((l, i) => i !== first - 1 && !STACK_LINE.test(l));
  }
  const errors = lines.filter((l) => l.startsWith('error: '));
  expect(errors, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/unexpected failure/);
  if (!opts.verbose)
    expect(
      r.stderr.split('\n').some((l) => STACK_LINE.test(l)),
      r.stderr,
    ).toBe(false);
  // Nothing but the error and its hints — and with -o json the errors again as one JSON line.
  for (const l of lines) {
    if (l.startsWith('{')) expect(JSON.parse(l), r.stderr).toHaveProperty('errors');
    else expect(l, r.stderr).toMatch(/^(error|hint|warning): /);
  }
  if (pattern) expect(errors[0], r.stderr).toMatch(pattern);
  return errors[0]!;
}

/** Asserts that stderr holds no stack trace and no "unexpected failure". */
export function expectNoCrash(r: SvcResult): void {
  expect(r.signal, r.stderr).toBeNull();
  expect(r.stderr).not.toMatch(/unexpected failure/);
  expect(
    r.stderr.split('\n').some((l) => STACK_LINE.test(l)),
    r.stderr,
  ).toBe(false);
}
