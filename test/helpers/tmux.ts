/**
 * Runs a command in a real terminal (a detached tmux session) to see what a person sees:
 * send keys, read the screen.
 *
 * Each session has a tmux server of its own (`-L`): on one shared server, a test killing its last
 * session stops the server while another test's `new-session` is connecting to it, and that one
 * fails with "server exited unexpectedly" (it did, in CI).
 */
import { execFileSync } from 'node:child_process';

/** A word for sh: a path with spaces or quotes (a temporary folder, a clone in "My Projects") stays one word. */
export function sh(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A tmux session running one command. */
export class TmuxSession {
  readonly name: string;
  constructor(command: string, opts: { width?: number; height?: number; env?: Record<string, string> } = {}) {
    this.name = `svc-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const envArgs = Object.entries(opts.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    this.tmux('new-session', '-d', '-s', this.name, '-x', String(opts.width ?? 120), '-y', String(opts.height ?? 40), ...envArgs, command);
    this.tmux('set-option', '-t', this.name, 'remain-on-exit', 'on');
  }
  /** Runs a tmux command against this session's own server; returns its output. */
  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.name, ...args], { encoding: 'utf8' });
  }
  /** The visible screen; with `escapes`, colour codes kept. */
  screen(escapes = false): string {
    return this.tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', this.name);
  }
  send(...keys: string[]): void {
    // `--` ends tmux's options: pasted text that starts with `-` (a random client secret did) is text, not a flag.
    const [first, ...rest] = keys;
    this.tmux('send-keys', '-t', this.name, ...(first === '-l' ? ['-l', '--', ...rest] : keys));
  }
  /** Waits until the screen matches. */
  async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const s = this.screen();
      if (pattern.test(s)) return s;
      if (Date.now() > end) throw new Error(`screen never matched ${pattern}:\n${s}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  kill(): void {
    try {
      execFileSync('tmux', ['-L', this.name, 'kill-server'], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
}
