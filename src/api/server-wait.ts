/**
 * How long the server asks a client to wait (`Retry-After`, `X-RateLimit-Reset`), read the ways
 * the spec writes it — a delay in seconds, epoch seconds, an HTTP date or an ISO time — and
 * judged before anyone sleeps on it. The API's rate window is an hour and its maintenance windows
 * are announced times, so a wait of more than a day, a reset time well in the past, or a number
 * that only makes sense as epoch milliseconds is a server (or gateway) mistake: sleeping on it
 * would hang the run for days, or, past the ~24.8 days a timer can hold, spin.
 */
import { apiTime } from '../api-time.js';
import { ExitCode, SvcError } from '../errors.js';
import { grouped } from '../grouped.js';

/** The longest wait a server may ask for and be obeyed. */
const MAX_SERVER_WAIT_MS = 24 * 3600_000;

/** How far in the past a reset time may lie and still mean "now" (clocks drift; resets are whole seconds). */
const PAST_TOLERANCE_MS = 60_000;

/**
 * A wait read from a header: how long, or why it cannot be meant (`past`: a time long gone,
 * which a maintenance that overran its announced end may still send).
 */
type ServerWait = { ms: number } | { absurd: string; past?: true };

/**
 * Reads a `Retry-After` or `X-RateLimit-Reset` value. Undefined when there is none or it cannot
 * be read (the caller backs off on its own).
 */
export function readServerWait(value: string | undefined, now: number): ServerWait | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) {
    const n = Number(v);
    // Epoch seconds have ten digits until the year 2286; thirteen are epoch milliseconds.
    if (n >= 1e11) return { absurd: `a time in epoch milliseconds (${iso(n)}), not seconds` };
    // Small numbers are a delay in seconds, large ones a time in epoch seconds.
    if (n <= 1e9) return n * 1000 > MAX_SERVER_WAIT_MS ? { absurd: `a wait of ${human(n * 1000)}, over 24 hours` } : { ms: n * 1000 };
    return judgeTime(n * 1000, now);
  }
  // An ISO time without a zone is UTC, as the API writes its times (not local time).
  const t = apiTime(v);
  return Number.isNaN(t) ? undefined : judgeTime(t, now);
}

/**
 * The wait a refusal (429, 503) asks for. A maintenance end (503) that has long passed means the
 * maintenance overran it: nothing to wait for by the header (the caller backs off), no error.
 */
export function refusalWait(status: number, value: string | undefined, now: number): ServerWait | undefined {
  const w = readServerWait(value, now);
  return w && 'past' in w && status === 503 ? undefined : w;
}

function judgeTime(t: number, now: number): ServerWait {
  const ms = t - now;
  if (ms < -PAST_TOLERANCE_MS) return { absurd: `a time in the past (${iso(t)}, ${human(-ms)} ago)`, past: true };
  if (ms > MAX_SERVER_WAIT_MS) return { absurd: `a wait of ${human(ms)} (until ${iso(t)}), over 24 hours` };
  return { ms: Math.max(0, ms) };
}

/** A server asked for a wait that cannot be meant: the command stops instead (exit 1). */
export class ServerWaitError extends SvcError {
  constructor(
    /** What happened, e.g. `HTTP 429 (Rate limit exceeded)`. */
    lead: string,
    header: string,
    readonly value: string,
    /** From {@link readServerWait}. */
    reason: string,
  ) {
    super(`${lead}: ${header}: ${value} is ${reason}; not waiting for it`, ExitCode.API);
  }
}

function iso(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? 'beyond any date' : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `30 days`, `1.5 days`, `5 hours`, `12 minutes`, `40 s`. */
function human(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s >= 86400) {
    const d = Number((s / 86400).toFixed(1));
    return `${grouped(d)} day${d === 1 ? '' : 's'}`;
  }
  if (s >= 2 * 3600) return `${Math.round(s / 3600)} hours`;
  if (s >= 120) return `${Math.round(s / 60)} minutes`;
  return `${s} s`;
}
