/**
 * Progress of a bulk run on stderr: on a terminal, one line redrawn in place (bar, count, rate,
 * ETA, failures, and any wait in progress); elsewhere (CI logs, pipes) a plain line every few
 * seconds and one line per wait, so that logs stay readable.
 */
import type { RowStatus } from './report.js';
import { fitLines, terminalSafe } from '../../output/terminal-text.js';
import { grouped } from '../../grouped.js';

/** Options of {@link Progress}. */
interface ProgressOptions {
  stderr: NodeJS.WritableStream;
  /** stderr is a terminal: redraw in place. */
  tty: boolean;
  /** What runs, e.g. `prospects create`, `enroll`. */
  label: string;
  /** Rows the run will go through, when known. */
  total?: number;
  /** Plain-line interval when not a terminal. @default 5000 */
  intervalMs?: number;
  /** Terminal width. @default 80 */
  columns?: number;
  /**
   * The width message lines are fitted to, broken between words (a terminal's, even one that
   * reports no width and gets no bar); undefined: each line whole (logs, pipes).
   */
  lineWidth?: number;
  now?: () => number;
}

const n = grouped;

/** Formats a duration as `1:05`, `1:02:03` or `0:07`. */
export function clock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** The progress display of one run. */
export class Progress {
  private done = 0;
  private failed = 0;
  /** Rows that needed requests (skips from the journal are instant and would flatter the rate). */
  private worked = 0;
  private readonly started: number;
  private timer: NodeJS.Timeout | undefined;
  private waitUntil = 0;
  private waitReason = '';
  private lastWaitAnnounced = 0;
  /** When the last `waiting` line was printed (off a terminal). */
  private lastWaitLine = -Infinity;
  private readonly now: () => number;
  private drawn = false;
  /** Rows parked: sent without a definite answer, watched over the settle window. */
  parked = 0;

  constructor(private opts: ProgressOptions) {
    this.now = opts.now ?? Date.now;
    this.started = this.now();
  }

  /** Starts the periodic display. */
  start(): void {
    const every = this.opts.tty ? 100 : (this.opts.intervalMs ?? 5000);
    this.timer = setInterval(() => this.draw(), every);
    this.timer.unref();
  }

  /** One row finished. `worked` is false for rows decided without a request. */
  tick(status: RowStatus, worked: boolean): void {
    this.done++;
    if (status === 'failed' || status === 'unknown') this.failed++;
    if (worked) this.worked++;
  }

  /**
   * Rows done without a status of their own (records written by an export); `worked` false for
   * rows an earlier run did (they count toward the total, not the rate).
   */
  advance(count: number, worked = true): void {
    this.done += count;
    if (worked) this.worked += count;
  }

  /** The total, once known (an export learns it from its first page). */
  setTotal(total: number): void {
    this.opts.total = total;
  }

  /**
   * A wait began (rate limit, maintenance, retry): shown once, not once per worker, and off a
   * terminal at most one line per progress interval (a server refusing every second for an
   * hour must not write 3,600 lines; the periodic line still shows the wait in progress).
   */
  waiting(ms: number, reason: string): void {
    const now = this.now();
    const until = now + ms;
    const fresh = Math.abs(until - this.lastWaitAnnounced) > 1000 || reason !== this.waitReason;
    this.waitUntil = Math.max(this.waitUntil, until);
    this.waitReason = reason;
    if (!fresh) return;
    this.lastWaitAnnounced = until;
    if (this.opts.tty) this.draw();
    else if (ms >= 1000 && now - this.lastWaitLine >= (this.opts.intervalMs ?? 5000)) {
      this.lastWaitLine = now;
      this.opts.stderr.write(`waiting ${clock(ms)}: ${terminalSafe(reason)}\n`);
    }
  }

  /** Prints a message line (a failed row, a warning) without breaking the bar. */
  line(text: string): void {
    if (this.opts.tty && this.drawn) this.opts.stderr.write('\r\x1b[2K');
    // Failure lines quote the server and the input file: one line, and nothing in it may drive the terminal.
    const safe = terminalSafe(text.endsWith('\n') ? text.slice(0, -1) : text);
    this.opts.stderr.write(`${fitLines(safe, this.opts.lineWidth)}\n`);
    this.drawn = false;
    if (this.opts.tty && this.timer) this.draw();
  }

  /**
   * Erases the bar now, before something else is written to the terminal (a report line on a
   * stdout that shares it); the next redraw puts it back below.
   */
  clear(): void {
    if (this.opts.tty && this.drawn) this.opts.stderr.write('\r\x1b[2K');
    this.drawn = false;
  }

  /** Stops the display and clears the bar. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.opts.tty && this.drawn) this.opts.stderr.write('\r\x1b[2K');
    this.drawn = false;
  }

  /** What the rate counts: `rows`, or what a run's rows are (`dedupe apply`'s clusters). */
  private unit = 'rows';

  /** Counts the rate in `unit` (a plural noun) instead of rows. */
  countAs(unit: string): void {
    this.unit = unit;
  }

  /** The status text (rate, ETA, failures, wait), without the bar. */
  status(): string {
    const elapsed = this.now() - this.started;
    const rate = elapsed > 0 ? (this.worked * 1000) / elapsed : 0;
    const total = this.opts.total;
    const parts = [total !== undefined ? `${n(this.done)}/${n(total)}` : n(this.done)];
    if (total) parts[0] += ` (${Math.floor((100 * this.done) / total)}%)`;
    parts.push(`${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} ${this.unit}/s`);
    // A wait for the rate budget comes first: the rows left start after it.
    const left = this.waitUntil - this.now();
    if (total !== undefined && rate > 0 && this.done < total)
      parts.push(`ETA ${clock(Math.max(0, left) + ((total - this.done) / rate) * 1000)}`);
    if (this.failed) parts.push(`${n(this.failed)} failed`);
    if (this.parked) parts.push(`${n(this.parked)} unconfirmed (looking them up before sending again)`);
    if (left > 0) parts.push(`waiting ${clock(left)}: ${terminalSafe(this.waitReason)}`);
    return parts.join(' · ');
  }

  private draw(): void {
    if (!this.opts.tty) {
      this.opts.stderr.write(`progress: ${this.opts.label}: ${this.status()}\n`);
      return;
    }
    const text = this.status();
    const width = this.opts.columns ?? 80;
    let bar = '';
    const total = this.opts.total;
    const room = width - text.length - this.opts.label.length - 6;
    if (total && room >= 10) {
      const size = Math.min(30, room);
      const full = Math.round((size * Math.min(this.done, total)) / total);
      bar = ` [${'█'.repeat(full)}${'░'.repeat(size - full)}]`;
    }
    const line = `${this.opts.label}${bar} ${text}`.slice(0, width - 1);
    this.opts.stderr.write(`\r\x1b[2K${line}`);
    this.drawn = true;
  }
}
