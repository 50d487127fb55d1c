/** The IO of the running process (output/io.ts), built by the CLI at start-up. */
import type { IO } from '../output/io.js';

/** IO of the current process, honouring NO_COLOR and --no-color. */
export function processIO(opts: { noColor?: boolean; env?: NodeJS.ProcessEnv } = {}): IO {
  const env = opts.env ?? process.env;
  const stdoutIsTTY = process.stdout.isTTY === true;
  const stderrIsTTY = process.stderr.isTTY === true;
  const noColor = opts.noColor === true || (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || env.TERM === 'dumb';
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // Performance machinery (src/README.md, Build): stdin created only when read.
    // Creating process.stdin (and asking whether it is a terminal) costs ~2 ms: only the
    // commands that read it or prompt pay for it.
    get stdin() {
      return process.stdin;
    },
    get stdinIsTTY() {
      return process.stdin.isTTY === true;
    },
    stdoutIsTTY,
    stderrIsTTY,
    color: !noColor && stdoutIsTTY,
    columns: process.stdout.columns || Number(env.COLUMNS) || 80,
    // Read at each use: a terminal can be resized while a command runs.
    get stderrColumns() {
      return stderrIsTTY ? (process.stderr.columns ?? 0) : 0;
    },
  };
}
