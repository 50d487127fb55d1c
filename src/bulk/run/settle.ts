/**
 * The settle window of an ambiguous write: a request that was sent but got no definite answer
 * (a gateway's 500/502/504, `--timeout`, a connection reset after sending) may still be carried
 * out by the server seconds later — a gateway gives up on the backend long before the backend
 * gives up on the request. Looking once at once and sending again when nothing is found makes
 * duplicates whenever the first request lands late.
 *
 * So the row is parked: the run goes on with other rows while the row's lookup is repeated —
 * at once (most lost answers are for work already done), then at 1/8, 1/4, 1/2 and the end of
 * the window, counted from the failure. Only when the last lookup, at the end of the window,
 * still finds nothing may the write be sent again. Ctrl-C ends the wait: the row stays
 * `pending` in the journal and a rerun finishes the window from the time the request was sent.
 *
 * A backend may commit later than any window (a queue that drains after a minute), so "not found
 * at the end of the window" does not prove a create absent: updates and deletes are sent again
 * (doing them twice does no harm), but a create or an enrolment is reported `unknown` unless the
 * user opts in with `--resend-unconfirmed`; a rerun looks the row up again before deciding.
 */
import { Stopped } from './requester.js';

/** Seconds a parked write is watched before it may be sent again. @default 30 */
export const DEFAULT_SETTLE_SECONDS = 30;

/** Longest `--settle`: an hour (a longer wait is a mistake, not a precaution). */
export const MAX_SETTLE_SECONDS = 3600;

/** Fractions of the window at which the lookup runs (0: at once). */
const TRIES = [0, 1 / 8, 1 / 4, 1 / 2, 1];

/** What a settle wait needs from the run. */
export interface SettleClock {
  /** Length of the window (ms). */
  windowMs: number;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
}

/** Times (ms after the start of the window) at which the lookup runs. */
export function settleSchedule(windowMs: number): number[] {
  return windowMs <= 0 ? [0] : TRIES.map((f) => Math.round(f * windowMs));
}

/**
 * Runs `look` over the window that started at `from` (epoch ms) until it returns a verdict;
 * undefined means "not there yet" and, after the last try, "not there at the end of the window".
 * Tries whose successor is already due (a window started by an earlier run) are skipped; the
 * last one always runs.
 * @throws Stopped when the run is interrupted while waiting
 */
export async function settle<T>(clock: SettleClock, from: number, look: () => Promise<T | undefined>): Promise<T | undefined> {
  const times = settleSchedule(clock.windowMs);
  for (let i = 0; i < times.length; i++) {
    const at = from + times[i]!;
    const last = i === times.length - 1;
    const wait = at - clock.now();
    // A try whose successor is due too (the window started long ago) would only repeat it.
    if (!last && from + times[i + 1]! <= clock.now()) continue;
    if (wait > 0) await clock.sleep(wait, clock.signal);
    if (clock.signal.aborted) throw new Stopped();
    const verdict = await look();
    if (verdict !== undefined) return verdict;
  }
  return undefined;
}
