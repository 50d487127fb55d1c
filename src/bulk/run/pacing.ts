/**
 * Pacing of a bulk run by the `X-RateLimit-*` headers, so that the run slows down before the
 * service answers 429 rather than after.
 *
 * Every response tells how many requests are left in the current window and when it resets.
 * Requests still in flight may not be counted yet, so the budget is `remaining − in flight`.
 * While the budget is large, requests go at full speed. Below a low-water mark (2 × concurrency,
 * or 5 % of the limit if more) the remaining requests are spread evenly until the reset, and
 * with no budget left every worker waits for the window to reset. Until a reading says how much
 * a window holds — at the start, and after each reset — one request goes alone as a probe, so
 * that a window the server started earlier than announced (reset times are whole seconds) is
 * never overrun. A 429 or 503 that comes anyway (another process sharing the user's budget,
 * maintenance) blocks every worker until its `Retry-After`, so that one refusal does not
 * become eight. A server that sends no rate-limit headers is not paced at all.
 *
 * The server's own count is believed: a 429 that still says thousands of requests are left is a
 * refusal for its `Retry-After`, not a sign that the window is spent. A reset time that cannot be
 * meant (over a day away, long past, epoch milliseconds) is only an error when the run would have
 * to wait for it; then, as after any such wait asked by a refusal ({@link Pacer.fail}), every
 * worker stops with that error instead of sending.
 */
import type { RateLimitInfo } from '../../api/jsonapi.js';
import { readServerWait, ServerWaitError } from '../../api/server-wait.js';

/** Options of {@link Pacer}. */
interface PacerOptions {
  concurrency: number;
  now?: () => number;
  /** Resolves after `ms`, or early when `signal` aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told of every wait of a second or more, with why (for the progress display). */
  onWait?: (ms: number, reason: string) => void;
  /**
   * True while the user's processes share the window through the rate budget's ledger
   * (budget/gate.ts): it hands out the window's last requests, so the low-water spreading,
   * which assumes this run is alone, is off (it would leave them unused at the reset).
   */
  shared?: () => boolean;
}

/** Extra time after a window's announced reset, for clock skew and rounding to seconds. */
const RESET_SKEW_MS = 300;

/** Shared by all workers of a run. */
export class Pacer {
  private limit: number | undefined;
  private remaining: number | undefined;
  /** Epoch ms when the current window resets. */
  private resetAt: number | undefined;
  private inflight = 0;
  private lastStart = 0;
  private blockedUntil = 0;
  private blockReason = '';
  /** The server sends no rate-limit headers. */
  private unpaced = false;
  private waiters: (() => void)[] = [];
  /** `X-RateLimit-Reset` of the latest reading, when it cannot be meant. */
  private badReset: { value: string; reason: string } | undefined;
  /** Set by {@link fail}: every acquire throws it, every wait ends. */
  private failure: Error | undefined;
  private readonly failed = new AbortController();
  private readonly now: () => number;
  /** Requests that had to wait for the rate limit (for the summary). */
  waits = 0;

  constructor(private readonly opts: PacerOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Takes a rate-limit reading from a response (the ApiClient's `onRateLimit` hook). */
  observe(info: RateLimitInfo, _status: number): void {
    this.wake();
    if (info.remaining === undefined) {
      // No headers: nothing to pace by (and no probing, which would serialise the run).
      if (this.remaining === undefined) this.unpaced = true;
      return;
    }
    this.unpaced = false;
    const now = this.now();
    const read = readServerWait(info.reset, now);
    this.badReset = read && 'absurd' in read ? { value: info.reset!, reason: read.absurd } : undefined;
    const resetAt = read && 'ms' in read ? now + read.ms : undefined;
    if (info.limit !== undefined) this.limit = info.limit;
    // Even on a 429: the refusal's own wait is its Retry-After (see block), and the window is
    // only spent when the server's count says so.
    const remaining = info.remaining;
    const newer =
      this.remaining === undefined ||
      this.resetAt === undefined ||
      resetAt === undefined ||
      resetAt > this.resetAt + 1500 ||
      // More left than a late answer of this window could show: the count was reset.
      (remaining > this.remaining + this.opts.concurrency && resetAt >= this.resetAt);
    if (newer) {
      this.remaining = remaining;
      this.resetAt = resetAt;
    } else if (resetAt >= this.resetAt! - 1500) {
      // Same window: the server's count only grows, so the lowest reading is the latest.
      this.remaining = Math.min(this.remaining!, remaining);
    }
    // else: a late answer from the previous window; it says nothing about this one.
  }

  /** Makes every worker wait until `untilMs` (after a 429 or 503). */
  block(untilMs: number, reason: string): void {
    if (untilMs > this.blockedUntil) {
      this.blockedUntil = untilMs;
      this.blockReason = reason;
    }
  }

  /**
   * Stops the run: every worker waiting or about to send throws `err` (a wait the server asked
   * for that cannot be meant) instead of sending.
   */
  fail(err: Error): void {
    this.failure ??= err;
    this.failed.abort();
    this.wake();
  }

  /**
   * Waits until a request may start. Resolves false when `signal` aborts first.
   * Call {@link release} when the request is answered.
   * @throws the error given to {@link fail}, or a ServerWaitError when the window is spent and
   *   its reset time cannot be meant
   */
  async acquire(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (this.failure) throw this.failure;
      if (signal.aborted) return false;
      const now = this.now();
      if (this.blockedUntil > now) {
        await this.wait(this.blockedUntil - now, this.blockReason, signal);
        continue;
      }
      if (this.remaining === undefined && !this.unpaced && this.inflight > 0) {
        // Nothing known about this window yet: one probe at a time until an answer tells.
        await this.change(signal);
        continue;
      }
      if (this.remaining !== undefined && this.resetAt === undefined && this.badReset && this.remaining - this.inflight <= 0) {
        const { value, reason } = this.badReset;
        this.fail(new ServerWaitError('no requests left in this window', 'X-RateLimit-Reset', value, reason));
        continue;
      }
      if (this.remaining !== undefined && this.resetAt !== undefined) {
        if (now >= this.resetAt + RESET_SKEW_MS) {
          // The window has reset: probe it rather than assume it is full (it may have started
          // earlier, with one of our own requests).
          this.remaining = undefined;
          this.resetAt = undefined;
          continue;
        }
        const budget = this.remaining - this.inflight;
        if (budget <= 0) {
          this.waits++;
          await this.wait(
            this.resetAt + RESET_SKEW_MS - now,
            'rate limit: no requests left in this window, waiting for it to reset',
            signal,
          );
          continue;
        }
        const lowWater = Math.max(2 * this.opts.concurrency, Math.ceil((this.limit ?? 0) * 0.05));
        if (budget <= lowWater && !this.opts.shared?.()) {
          // Reserve the next evenly spaced slot before waiting, so that workers waiting at
          // the same time take successive slots instead of all starting together.
          const gap = (this.resetAt - now) / (budget + 1);
          const slot = Math.max(now, this.lastStart + gap);
          this.lastStart = slot;
          this.inflight++;
          if (slot > now) {
            this.waits++;
            await this.wait(slot - now, `rate limit: ${this.remaining} requests left until the window resets, slowing down`, signal);
          }
          if (signal.aborted || this.failure) {
            this.inflight--;
            if (this.failure) throw this.failure;
            return false;
          }
          return true;
        }
      }
      this.inflight++;
      this.lastStart = now;
      return true;
    }
  }

  /** One request started by {@link acquire} is answered (or failed). */
  release(): void {
    this.inflight = Math.max(0, this.inflight - 1);
    this.wake();
  }

  /** Resolves at the next reading or release (or abort, or after a second at most). */
  private change(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, 1000);
      signal.addEventListener('abort', done, { once: true });
      this.waiters.push(done);
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const fn of w) fn();
  }

  private async wait(ms: number, reason: string, signal: AbortSignal): Promise<void> {
    if (ms >= 1000) this.opts.onWait?.(ms, reason);
    await this.opts.sleep(Math.max(0, ms), AbortSignal.any([signal, this.failed.signal]));
  }
}
