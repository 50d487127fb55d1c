/**
 * Runs a command in a real terminal (a tmux session) to see what a person sees: send keys, read
 * the screen.
 *
 * Each session has a tmux server of its own (`-L`): on one shared server, a test killing its last
 * session stops the server while another test's `new-session` is connecting to it, and that one
 * fails with "server exited unexpectedly" (it did, in CI).
 *
 * The session is made by a tmux control-mode client (`tmux -C`), kept as a child with pipes for
 * the session's life: a command is a line written to its stdin, and its answer comes back on its
 * stdout between `%begin` and `%end` (or `%error`) lines. A screen read was a `tmux capture-pane`
 * process forked from the worker (a whole suite: ~500 synchronous spawns, ~40 ms each of a worker
 * of 200-400 MB, 20.7 s in all, while the in-process sandbox the svc in the terminal talks to could
 * not answer either). The control client sizes nothing: a control client that never sends its own
 * size (`refresh-client -C`) is left out of the window's size, so the window stays the `-x`/`-y`
 * the test asked for. Its `%output` lines (what the pane printed) only say that the screen
 * changed: `waitFor` reads the screen again when something was printed, not every 100 ms.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';

/** A word for sh: a path with spaces or quotes (a temporary folder, a clone in "My Projects") stays one word. */
export function sh(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A word for tmux's command parser, which reads a control client's lines: double quotes, with `\`,
 * `"` and `$` (a variable there) escaped, and control characters and `~` as octal escapes (a line
 * ends a command, so a newline in a word must not reach tmux as one; tmux 3.3 fails to parse a
 * quoted word that starts with `~`).
 */
function tmuxWord(word: string): string {
  return `"${word.replace(/[\\"$]|[\x00-\x1f\x7f~]/g, (c) => (/[\\"$]/.test(c) ? `\\${c}` : `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`))}"`;
}

/** Time the pane gets to finish what it started printing before the screen is read again. */
const SETTLE_MS = 25;
/** The longest `waitFor` goes without reading the screen, printed to or not. */
const IDLE_READ_MS = 500;

/** A command written to the control client, waiting for its answer. */
interface Pending {
  resolve(output: string): void;
  reject(error: Error): void;
  command: string;
}

/** A tmux session running one command. */
export class TmuxSession {
  readonly name: string;
  readonly #client: ChildProcessWithoutNullStreams;
  /**
   * Commands waiting for their answers, in order: those on the client's command line (the session
   * made), whose `%begin` lines end with flags 0, and those written to its stdin, with flags 1.
   */
  readonly #pending: { start: Pending[]; written: Pending[] } = { start: [], written: [] };
  /**
   * Lines held until the session exists: tmux reads the client's stdin while it may still be
   * running the command line, and a `capture-pane` before the session fails ("no current target").
   */
  #held: string[] | undefined = [];
  #killed = false;
  /** The answer being read: the `%begin` line's time, number and flags, which its `%end` repeats. */
  #block: { id: string; written: boolean; lines: string[] } | undefined;
  #partial = '';
  #stderr = '';
  /** Why the client is gone, once it is. */
  #gone: Error | undefined;
  /** A failed command that nobody awaited (a `send`): the next read throws it. */
  #failed: Error | undefined;
  /** How many `%output` lines came: the screen changed when this moves. */
  #outputs = 0;
  #onChange: (() => void) | undefined;

  constructor(command: string, opts: { width?: number; height?: number; env?: Record<string, string> } = {}) {
    this.name = `svc-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const envArgs = Object.entries(opts.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    // Set in the same call as the session, run right after it: a command that ends at once still
    // leaves its screen. destroy-unattached: when the control client goes (kill(), or a worker
    // that died without it), the session goes and its server with it.
    const start = [
      ['new-session', '-s', this.name, '-x', String(opts.width ?? 120), '-y', String(opts.height ?? 40), ...envArgs, command],
      ['set-option', '-t', this.name, 'remain-on-exit', 'on'],
      ['set-option', '-t', this.name, 'destroy-unattached', 'on'],
    ];
    this.#client = spawn('tmux', ['-L', this.name, '-C', ...start.flatMap((c, i) => (i ? [';', ...c] : c))], { stdio: 'pipe' });
    const made = start.map((c) => this.#expect('start', c));
    for (const m of made) m.catch((e: Error) => (this.#failed ??= e));
    Promise.allSettled(made).then(() => {
      const held = this.#held ?? [];
      this.#held = undefined;
      if (this.#gone) return;
      if (held.length) this.#client.stdin.write(held.join(''));
      if (this.#killed) this.#client.stdin.end();
    });
    this.#client.stdout.setEncoding('utf8');
    this.#client.stdout.on('data', (chunk: string) => this.#read(chunk));
    this.#client.stderr.setEncoding('utf8');
    this.#client.stderr.on('data', (chunk: string) => (this.#stderr += chunk));
    this.#client.stdin.on('error', () => {}); // a write after tmux went: the close below says why
    this.#client.on('error', (e) => this.#end(e));
    this.#client.on('close', (code, signal) => {
      // The server leaves its socket behind when killed: a run left ~22 in /tmp/tmux-<uid>, and
      // a machine that ran the suite all day held thousands.
      rmSync(path.join(process.env['TMUX_TMPDIR'] || '/tmp', `tmux-${process.getuid?.() ?? 0}`, this.name), { force: true });
      this.#end(
        new Error(`tmux control client of ${this.name} exited (${signal ?? code})${this.#stderr ? `: ${this.#stderr.trim()}` : ''}`),
      );
    });
  }

  /** Runs a tmux command against this session's own server; gives its output. */
  async tmux(...args: string[]): Promise<string> {
    const failed = this.#failed;
    if (failed) {
      this.#failed = undefined;
      throw failed;
    }
    if (this.#gone) throw this.#gone;
    const line = `${args.map(tmuxWord).join(' ')}\n`;
    if (this.#held) this.#held.push(line);
    else this.#client.stdin.write(line);
    return this.#expect('written', args);
  }
  /** The visible screen; with `escapes`, colour codes kept. */
  screen(escapes = false): Promise<string> {
    return this.tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', this.name);
  }
  /** Types keys; a failure is thrown by the next read of the screen (tmux answers in order). */
  send(...keys: string[]): void {
    // `--` ends tmux's options: pasted text that starts with `-` (a random client secret did) is text, not a flag.
    const [first, ...rest] = keys;
    this.tmux('send-keys', '-t', this.name, ...(first === '-l' ? ['-l', '--', ...rest] : keys)).catch((e: Error) => (this.#failed ??= e));
  }
  /** Waits until the screen matches: read at once, then again once the pane printed something. */
  async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const outputs = this.#outputs;
      const s = await this.screen();
      if (pattern.test(s)) return s;
      const left = end - Date.now();
      if (left < 0) throw new Error(`screen never matched ${pattern}:\n${s}`);
      await this.#changed(outputs, Math.min(IDLE_READ_MS, left + 1));
    }
  }
  /** Ends the session: its server and the command in it. */
  kill(): void {
    if (this.#gone || this.#killed) return;
    this.#killed = true;
    if (this.#held) this.#held.push('kill-server\n');
    else this.#client.stdin.end('kill-server\n');
  }

  /** Resolves when the pane printed after `outputs` (and settled), or after `ms`. */
  async #changed(outputs: number, ms: number): Promise<void> {
    const start = Date.now();
    if (this.#outputs === outputs && !this.#gone) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        this.#onChange = done;
        function done() {
          clearTimeout(timer);
          resolve();
        }
      });
      this.#onChange = undefined;
    }
    const settle = Math.min(SETTLE_MS, ms - (Date.now() - start));
    if (settle > 0 && !this.#gone) await new Promise((r) => setTimeout(r, settle));
  }
  #expect(from: 'start' | 'written', command: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.#gone) reject(this.#gone);
      else this.#pending[from].push({ resolve, reject, command: command.join(' ') });
    });
  }
  #read(chunk: string): void {
    const lines = (this.#partial + chunk).split('\n');
    this.#partial = lines.pop()!;
    for (const line of lines) {
      const block = this.#block;
      if (block) {
        const end = line.startsWith('%end ') ? 'end' : line.startsWith('%error ') ? 'error' : undefined;
        // Only the %end with the %begin's own numbers ends it: a screen line may read "%end".
        if (end && line.slice(end.length + 2) === block.id) {
          this.#block = undefined;
          const p = this.#pending[block.written ? 'written' : 'start'].shift();
          const output = block.lines.map((l) => `${l}\n`).join('');
          if (end === 'end') p?.resolve(output);
          else p?.reject(new Error(`tmux ${p.command}: ${output.trim()}`));
        } else block.lines.push(line);
      } else if (line.startsWith('%begin ')) {
        const id = line.slice('%begin '.length);
        this.#block = { id, written: id.endsWith(' 1'), lines: [] };
      } else if (line.startsWith('%output ')) {
        this.#outputs++;
        this.#onChange?.();
      }
    }
  }
  #end(error: Error): void {
    this.#gone ??= error;
    for (const p of [...this.#pending.start.splice(0), ...this.#pending.written.splice(0)]) p.reject(this.#gone);
    this.#onChange?.();
  }
}
