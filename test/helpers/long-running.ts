/**
 * A long-running `svc` child (e.g. `webhooks listen`): collects its output and waits for lines
 * to appear, the way a person watches a terminal.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnSvc, type RunOptions } from './run-svc.js';

/** A running svc process. */
export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `re` in the stream, or rejects after `timeoutMs`. */
  waitFor(stream: 'stdout' | 'stderr', re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/**
 * The output of a running svc, collected, and waits for lines in it: `end` says how the run
 * ended (`exited (1)`), or undefined while it runs. Shared with startInProcess (in-process-cli.ts).
 */
export function watchedOutput(end: () => string | undefined) {
  const out = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  const poke = () => {
    for (const w of waiters) w();
  };
  return {
    out,
    poke,
    add(stream: 'stdout' | 'stderr', text: string) {
      out[stream] += text;
      poke();
    },
    waitFor(stream: 'stdout' | 'stderr', re: RegExp, timeoutMs = 10_000): Promise<RegExpMatchArray> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out[stream].match(re);
          if (m) return finish(() => resolve(m));
          const ended = end();
          if (ended !== undefined)
            finish(() => reject(new Error(`svc ${ended} before ${re} on ${stream}\nstdout:\n${out.stdout}\nstderr:\n${out.stderr}`)));
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error(`timed out waiting for ${re} on ${stream}\nstdout:\n${out.stdout}\nstderr:\n${out.stderr}`))),
          timeoutMs,
        );
        const finish = (f: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          f();
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** Spawns svc and starts collecting its output. */
export function startSvc(args: string[], opts: RunOptions = {}): Running {
  const child = spawnSvc(args, opts);
  const watched = watchedOutput(() => (child.exitCode !== null ? `exited (${child.exitCode})` : undefined));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => watched.add('stdout', d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => watched.add('stderr', d));
  child.stdin!.end();
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      watched.poke();
      resolve(code);
    }),
  );
  return {
    child,
    exited,
    stdout: () => watched.out.stdout,
    stderr: () => watched.out.stderr,
    waitFor: watched.waitFor,
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
