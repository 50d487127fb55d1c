/**
 * The streams a command talks to, with what is known about the terminal. Built once by the
 * CLI from the process (cli/process-io.ts; or by a test from buffers) and carried in the Context.
 */

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
  /**
   * Width of the terminal on stderr as it reports it now: 0 when stderr is no terminal or the
   * terminal reports none (`script`, `docker exec -t`). Unset means unknown.
   */
  readonly stderrColumns?: number;
  /** What a closed stdout or stderr does to the command (the process's IO only: see {@link ClosedOutput}). */
  closedOutput?: ClosedOutput;
}

/**
 * A closed stdout or stderr (`svc … | head`: the reader has what it wants) ends the process
 * quietly at once (cli/run-cli.ts). A bulk run cannot end so: its lock would stay, its record say
 * "cut short" and the exit be 0. While it writes it holds this, and a closed output winds it down
 * as Ctrl-C does (the abort signal) instead.
 */
interface ClosedOutput {
  /** From now on a closed output aborts the command rather than ending the process; returns the release. */
  windDown(): () => void;
  /** The output that closed while held (the first one), else undefined. */
  readonly closed: 'stdout' | 'stderr' | undefined;
}

/**
 * The width lines for people on stderr are fitted to (output/terminal-text.ts `fitLines`): the
 * terminal's, else the width known for stdout (80 when none is); undefined when stderr is no
 * terminal, so that logs, pipes and scripts get each line whole, as they grep it.
 */
export function stderrWidth(io: IO): number | undefined {
  return io.stderrIsTTY ? io.stderrColumns || io.columns || 80 : undefined;
}

/** The same for a view for people on stdout (a plan): undefined when stdout is no terminal. */
export function stdoutWidth(io: IO): number | undefined {
  return io.stdoutIsTTY ? io.columns || 80 : undefined;
}

/** Writes and waits for drain when the stream's buffer is full (constant memory when piping). */
export function writeOut(stream: NodeJS.WritableStream, text: string | Uint8Array): Promise<void> | void {
  // A stream closed under a command that goes on (a bulk run winding down, ClosedOutput) takes
  // nothing more and never drains: its writes are dropped rather than waited for for ever.
  if ((stream as { destroyed?: boolean }).destroyed) return;
  if (stream.write(text)) return;
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}
