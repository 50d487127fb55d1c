/**
 * A spinner on stderr, drawn only where it can do no harm: stderr is a terminal that reports its
 * width, colour is allowed (a terminal on stdout too, no NO_COLOR, TERM is not dumb), not under
 * CI. Anywhere else it is a no-op, so that pipes, logs and terminals that report zero columns
 * (`script`, `docker exec -t`) get nothing at all.
 *
 * It draws a single line narrower than the terminal (it never wraps), and erases only that line.
 * Data on stdout is never touched: the spinner goes, for good, before the first byte of data
 * reaches a stdout that shares its terminal — a frame drawn after part of the data would sit in
 * the middle of it, and erasing it would erase the data's last line.
 */
import type { IO } from './io.js';
import { terminalSafe } from './terminal-text.js';

/** A running spinner. */
interface Spinner {
  update(text: string): void;
  /** Erases the line now (before a message on stderr); the next frame draws it again below. */
  clear(): void;
  /** The IO to write data with: its stdout takes the spinner away before the first write. */
  dataIO(io: IO): IO;
  /** Stops for good and erases the line. */
  stop(): void;
}

const NOOP: Spinner = { update() {}, clear() {}, dataIO: (io) => io, stop() {} };
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 80;

/**
 * Starts a spinner when stderr is a terminal of known width (else a no-op).
 * @param env the process environment (a spinner on a CI terminal would be a log of frames)
 */
export function startSpinner(io: IO, text: string, env: NodeJS.ProcessEnv = {}): Spinner {
  if (!io.stderrIsTTY || !io.color || env.CI !== undefined || !((io.stderrColumns ?? 0) > 0)) return NOOP;
  let frame = 0;
  let drawn = false;
  let stopped = false;
  const draw = () => {
    const width = io.stderrColumns ?? 0;
    // Resized to nothing: draw nothing (and erase what is there).
    if (width < 4) return clear();
    const line = [...`${FRAMES[frame++ % FRAMES.length]} ${terminalSafe(text)}`].slice(0, width - 1).join('');
    io.stderr.write(`\r${line}\x1b[K`);
    drawn = true;
  };
  const clear = () => {
    if (drawn) io.stderr.write('\r\x1b[K');
    drawn = false;
  };
  const timer = setInterval(draw, FRAME_MS);
  timer.unref();
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    clear();
  };
  return {
    update: (t) => {
      text = t;
    },
    clear,
    dataIO: (target) => {
      // Off the spinner's terminal (stdout redirected), data and frames cannot meet.
      if (!target.stdoutIsTTY) return target;
      const out = target.stdout;
      const stdout = new Proxy(out, {
        get(o, prop) {
          if (prop === 'write') {
            return (...args: Parameters<NodeJS.WritableStream['write']>) => {
              stop();
              return (o.write as (...a: unknown[]) => boolean)(...args);
            };
          }
          const v = Reflect.get(o, prop, o) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(o) : v;
        },
      });
      // Everything else as the target has it (its getters too: stdin is created only when read).
      return Object.create(target, { stdout: { value: stdout, enumerable: true } }) as IO;
    },
    stop,
  };
}
