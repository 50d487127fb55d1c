/**
 * The per-user hourly request budget of the spec's Limits table, with the headers every
 * response carries.
 */
import { errors } from '../errors.js';

const HOUR_MS = 3600_000;

/** Values of the `X-RateLimit-*` headers. */
export interface RateState {
  limit: number;
  remaining: number;
  /** Epoch seconds when the window resets. */
  reset: number;
}

/** Fixed one-hour windows, one per key (user id, or client address when anonymous). */
export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();
  constructor(
    readonly limit: number,
    private readonly now: () => number = Date.now,
    /** Window length; the spec's hour unless a test or benchmark wants a short one. */
    private readonly windowMs: number = HOUR_MS,
  ) {}

  /** Counts one request; throws 429 (with headers) once the budget is spent. */
  take(key: string): RateState {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) this.windows.set(key, (w = { start: now, count: 0 }));
    const reset = Math.ceil((w.start + this.windowMs) / 1000);
    if (w.count >= this.limit) {
      const e = errors.rateLimited(Math.max(1, reset - Math.floor(now / 1000)));
      Object.assign(e.headers, headers({ limit: this.limit, remaining: 0, reset }));
      throw e;
    }
    w.count++;
    return { limit: this.limit, remaining: this.limit - w.count, reset };
  }

  /** Current state without counting (for responses that were not counted). */
  peek(key: string): RateState {
    const w = this.windows.get(key);
    const now = this.now();
    if (!w || now - w.start >= this.windowMs)
      return { limit: this.limit, remaining: this.limit, reset: Math.ceil((now + this.windowMs) / 1000) };
    return { limit: this.limit, remaining: Math.max(0, this.limit - w.count), reset: Math.ceil((w.start + this.windowMs) / 1000) };
  }
}

/** The three headers. `X-RateLimit-Reset` is the Unix time (seconds) at which the window resets. */
export function headers(s: RateState): Record<string, string> {
  return { 'X-RateLimit-Limit': String(s.limit), 'X-RateLimit-Remaining': String(s.remaining), 'X-RateLimit-Reset': String(s.reset) };
}
