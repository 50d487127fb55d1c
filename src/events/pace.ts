/**
 * How often a reader of the events resource asks: within a stated share of the API's hourly
 * request budget (`--every 2%`, the default, of `X-RateLimit-Limit`, 10,000 by the spec) or at
 * a stated interval (`--every 30s`). Two rules: a token bucket holds the requests of any hour
 * within the share (a burst of a few pages when much happened, never more on average), and the
 * wait between polls grows while nothing happens and drops back as soon as something does.
 */
import { UsageError } from '../errors.js';

/** The spec's budget: 10,000 requests per hour per user. */
const SPEC_LIMIT_PER_HOUR = 10_000;
const HOUR_MS = 3_600_000;
/** Requests a burst may take at once (pages of a busy window) before the average rules. */
const BURST = 5;
/** An idle reader waits up to this many times its shortest interval. */
const IDLE_FACTOR = 4;

/** `--every`: a share of the hourly budget, or an interval. */
type PollEvery = { share: number } | { intervalMs: number };

/** Parses `--every 2%` / `--every 30s` / `--every 500ms` / `--every 1m`. */
export function parseEvery(value: string): PollEvery {
  const text = value.trim();
  const share = /^(\d+(?:\.\d+)?)\s*%$/.exec(text);
  if (share) {
    const n = Number(share[1]);
    if (n > 0 && n <= 100) return { share: n / 100 };
  }
  const span = /^(\d+(?:\.\d+)?)\s*(ms|s|m)$/i.exec(text);
  if (span) {
    const ms = Number(span[1]) * ({ ms: 1, s: 1000, m: 60_000 } as Record<string, number>)[span[2]!.toLowerCase()]!;
    if (ms >= 100 && ms <= 3_600_000) return { intervalMs: Math.round(ms) };
  }
  throw new UsageError(
    `--every ${value}: expected a share of the hourly request budget (2%, up to 100%) or an interval from 100ms to 60m (30s)`,
  );
}

/** Paces the polls of one reader. */
export class PollPacer {
  private limit = SPEC_LIMIT_PER_HOUR;
  private tokens = BURST;
  private refilledAt: number;
  private wait: number | undefined;

  constructor(
    private readonly every: PollEvery,
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {
    this.refilledAt = now();
  }

  /** The server's stated limit (`X-RateLimit-Limit`), when it sends one. */
  observe(limit: number | undefined): void {
    if (limit !== undefined && limit > 0) this.limit = limit;
  }

  /** Requests allowed per hour. */
  perHour(): number {
    return 'share' in this.every ? this.limit * this.every.share : HOUR_MS / this.every.intervalMs;
  }

  /** The shortest wait between two polls. */
  minInterval(): number {
    return HOUR_MS / this.perHour();
  }

  /** Waits until a request fits in the budget, then counts it. */
  async beforeRequest(): Promise<void> {
    const rate = this.perHour() / HOUR_MS;
    const now = this.now();
    this.tokens = Math.min(BURST, this.tokens + (now - this.refilledAt) * rate);
    this.refilledAt = now;
    if (this.tokens < 1) {
      const ms = Math.ceil((1 - this.tokens) / rate);
      await this.sleep(ms);
      this.tokens = 1;
      this.refilledAt = this.now();
    }
    this.tokens -= 1;
  }

  /** The wait before the next poll: the shortest after one that found events, longer while idle. */
  nextWait(foundEvents: boolean): number {
    const min = this.minInterval();
    this.wait = foundEvents || this.wait === undefined ? min : Math.min(this.wait * 1.5, min * IDLE_FACTOR);
    return Math.round(this.wait);
  }

  /** Words for the stated pace (`2% of 10000 requests/hour: one poll every 18 s at most`). */
  describe(): string {
    const head =
      'share' in this.every
        ? `${+(this.every.share * 100).toFixed(3)}% of ${this.limit} requests/hour`
        : `every ${this.every.intervalMs} ms`;
    return `${head}: at most ${Math.floor(this.perHour())} requests an hour`;
  }
}
