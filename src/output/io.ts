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
}

/** Writes and waits for drain when the stream's buffer is full (constant memory when piping). */
export function writeOut(stream: NodeJS.WritableStream, text: string | Uint8Array): Promise<void> | void {
  if (stream.write(text)) return;
  return new Promise((resolve) => stream.once('drain', () => resolve()));
}
