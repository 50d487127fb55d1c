/**
 * How a bulk run sends one request: paced, waiting out 429 and 503 for as long as `Retry-After`
 * says, retrying reads after network failures and gateway errors, and never repeating a write
 * whose answer was lost: the caller watches for it over the settle window first (settle.ts).
 *
 * The ApiClient is called with `noRetry` so that these rules live in one place, and without the
 * Ctrl-C signal: a request on the wire is always finished, so that its outcome can be journaled.
 */
import type { ApiClient, ApiRequest, ApiResponse } from '../../api/client.js';
import type { PageClient } from '../../api/paginate.js';
import { refusalWait, ServerWaitError } from '../../api/server-wait.js';
import { ApiError, NetworkError, neverSent } from '../../errors.js';
import type { Pacer } from './pacing.js';

/** The run is stopping (Ctrl-C) and this request was not sent. */
export class Stopped extends Error {
  constructor() {
    super('stopped before sending');
  }
}

/** A write was sent but its answer was lost: it may have been done, or may still be done. */
export class AnswerLost extends Error {
  constructor(readonly reason: string) {
    super(`the answer was lost (${reason})`);
  }
}

/**
 * `read` (GET: repeated after failures), `idempotent` (PATCH, DELETE) and `create` (POST):
 * writes are repeated only when they certainly did not reach the server.
 */
type RequestKind = 'read' | 'idempotent' | 'create';

/** Options of {@link Requester}. */
interface RequesterOptions {
  client: ApiClient;
  pacer: Pacer;
  /** Aborted on Ctrl-C: no new request starts, waits end early. */
  signal: AbortSignal;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  /** Told of waits after 429/503 and of retries (progress display). */
  onWait?: (ms: number, reason: string) => void;
  /** Attempts for a request failing with network or gateway errors. @default 5 */
  maxAttempts?: number;
  /** How to resume, added to the error when the server asks for a wait that cannot be meant. */
  resumeHint?: string;
  /**
   * The rate budget shared with the user's other svc processes (budget/gate.ts): a request
   * waits here for its turn before it is journaled as leaving.
   */
  gate?: { reserve(signal: AbortSignal): Promise<boolean> };
}

/** Answers after which the request may or may not have been carried out. */
const MAYBE_DONE = new Set([500, 502, 504]);

/** Sends the requests of a bulk run. */
export class Requester {
  private readonly now: () => number;
  /** Waits after 429 or 503 answers (for the summary). */
  refusals = 0;
  /**
   * Refusals (429/503) in a row: the backoff when the server gives no `Retry-After` grows with
   * this — not with every refusal of the run (a long run that met many well-announced 429s would
   * otherwise wait a minute at the first one without a header), and not with each of the
   * workers refused at the same moment (requests sent before the last wait ended count once).
   */
  private streak = 0;
  /** When the latest refusal's wait ends (epoch ms). */
  private waitEnds = 0;

  constructor(private readonly opts: RequesterOptions) {
    this.now = opts.now ?? Date.now;
  }

  /**
   * Sends one request.
   * @throws Stopped when the run stops before the request is sent
   * @throws AnswerLost for a write whose outcome is unknown
   * @throws ApiError for an answer that is an error (4xx, or 5xx after the retries)
   * @param opts.track counts the attempts that were sent (a DELETE answered 404 after a retry
   *   was most likely done by the attempt whose answer was lost)
   * @param opts.beforeSend runs once, right before the first attempt leaves (after any pacing
   *   wait), before the request is handed to the client: where the run's record takes the row's
   *   before-image and a create is journaled `pending`, so that a run stopped while waiting
   *   leaves neither for a request that was never sent (and a request sent is never without them)
   */
  async send(req: ApiRequest, kind: RequestKind, opts: { track?: { sent: number }; beforeSend?: () => void } = {}): Promise<ApiResponse> {
    const { track } = opts;
    let beforeSend = opts.beforeSend;
    const { pacer, client } = this.opts;
    const max = this.opts.maxAttempts ?? 5;
    let attempt = 0;
    for (;;) {
      if (!(await this.acquire())) throw new Stopped();
      let res: ApiResponse;
      if (track) track.sent++;
      beforeSend?.();
      beforeSend = undefined;
      const sentAt = this.now();
      try {
        res = await client.request({ ...req, noRetry: true, retryNeverSent: false, signal: undefined });
      } catch (err) {
        pacer.release();
        if (err instanceof ApiError && (err.status === 429 || err.status === 503)) {
          // Refused before being processed: repeat after the wait, even a create.
          this.refusals++;
          if (sentAt >= this.waitEnds) this.streak++;
          const asked = refusalWait(err.status, err.retryAfter, this.now());
          if (asked && 'absurd' in asked) {
            // Every worker stops with this error: nothing more is sent, the journal stays whole.
            pacer.fail(new ServerWaitError(`HTTP ${err.status} (${err.message})`, 'Retry-After', err.retryAfter!, asked.absurd));
            continue;
          }
          // `Retry-After` is the wait, but a second at least: zero (or a moment ago) answered
          // by one refusal after another would be a burst of requests. Without one, the wait
          // grows with the streak.
          const wait = asked ? Math.max(asked.ms, 1000) : Math.min(1000 * 2 ** (this.streak - 1), 60_000);
          const why = err.status === 429 ? 'rate limited (HTTP 429)' : 'service unavailable (HTTP 503, maintenance)';
          // Every worker waits (the pacer shows the wait once).
          this.waitEnds = Math.max(this.waitEnds, this.now() + wait);
          pacer.block(this.now() + wait, why);
          continue;
        }
        attempt++;
        if (err instanceof NetworkError) {
          const notSent = neverSent(err);
          if (kind !== 'read' && !notSent) throw new AnswerLost(err.message);
          if (attempt < max) {
            await this.backoff(attempt, err.message);
            continue;
          }
          throw err;
        }
        if (err instanceof ApiError && MAYBE_DONE.has(err.status)) {
          if (kind !== 'read') throw new AnswerLost(`HTTP ${err.status}`);
          if (attempt < max) {
            await this.backoff(attempt, `HTTP ${err.status}`);
            continue;
          }
        }
        throw err;
      }
      pacer.release();
      this.streak = 0;
      return res;
    }
  }

  /** The pacer's acquire, with how to resume added to the error that stops the run. */
  private async acquire(): Promise<boolean> {
    try {
      // The pacer first: a refusal's wait is shown as the run's own; then the turn in the budget
      // shared with the user's other processes.
      if (!(await this.opts.pacer.acquire(this.opts.signal))) return false;
      if (this.opts.gate && !(await this.opts.gate.reserve(this.opts.signal))) {
        this.opts.pacer.release();
        return false;
      }
      return true;
    } catch (err) {
      if (err instanceof ServerWaitError && this.opts.resumeHint && !err.hints.includes(this.opts.resumeHint))
        err.hint(this.opts.resumeHint);
      throw err;
    }
  }

  private async backoff(attempt: number, why: string): Promise<void> {
    const ms = Math.min(250 * 2 ** (attempt - 1), 8000);
    this.opts.onWait?.(ms, `retrying after ${why}`);
    await this.opts.sleep(ms, this.opts.signal);
    if (this.opts.signal.aborted) throw new Stopped();
  }
}

/** A client for `paginate` whose requests go through the requester (paced, waiting out 429). */
export function pagedClient(requester: Requester, client: ApiClient): PageClient {
  return {
    baseUrl: client.baseUrl,
    resolve: (p) => client.resolve(p),
    request: (req) => requester.send(req, 'read'),
  };
}
