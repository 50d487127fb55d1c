/**
 * A spinner on stderr, only on a TTY (ora is loaded only then); a no-op otherwise, so that
 * pipes and CI logs stay clean.
 */
import type { IO } from './io.js';
import { terminalSafe } from './terminal-text.js';

/** A running spinner. */
export interface Spinner {
  update(text: string): void;
  stop(): void;
}

const NOOP: Spinner = { update() {}, stop() {} };

/** Starts a spinner when stderr is a terminal. */
export async function startSpinner(io: IO, text: string): Promise<Spinner> {
  if (!io.stderrIsTTY || !io.color) return NOOP;
  const { default: ora } = await import('ora');
  const s = ora({ text: terminalSafe(text), stream: io.stderr as NodeJS.WriteStream, discardStdin: false });
  // ora is not interactive under CI even on a terminal: it would print a static line and leave it.
  if (!(s as unknown as { isEnabled: boolean }).isEnabled) return NOOP; // a runtime getter its types omit
  s.start();
  return {
    update: (t) => {
      s.text = terminalSafe(t);
    },
    stop: () => s.stop(),
  };
}
