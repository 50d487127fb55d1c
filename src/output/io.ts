/**
 * The streams a command talks to, with what is known about the terminal. Built once by the
 * CLI from the process (or by a test from buffers) and carried in the Context.
 */
import { isatty } from 'node:tty';

/** Output and input streams plus terminal facts. */
export interface IO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Colour allowed on stdout/stderr (TTY, no NO_COLOR, no --no-color). */
  color: boolean;
  /** Terminal width, 80 when unknown. */
  columns: number;
}

/** IO of the current process, honouring NO_COLOR and --no-color. */
export function processIO(opts: { noColor?: boolean; env?: NodeJS.ProcessEnv } = {}): IO {
  const env = opts.env ?? process.env;
  const stdoutIsTTY = process.stdout.isTTY === true;
  const stderrIsTTY = process.stderr.isTTY === true;
  const noColor = opts.noColor === true || (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || env.TERM === 'dumb';
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // Creating process.stdin costs ~2 ms: only commands that read it pay for it.
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY,
    stderrIsTTY,
    stdinIsTTY: isatty(0),
    color: !noColor && stdoutIsTTY,
    columns: process.stdout.columns || Number(env.COLUMNS) || 80,
  };
}

/** Writes and waits for drain when the stream's buffer is full (constant memory when piping). */
export function writeOut(stream: NodeJS.WritableStream, text: string): Promise<void> | void {
  if (stream.write(text)) return;
  return new Promise((resolve) => stream.once('drain', () => resolve()));
}
