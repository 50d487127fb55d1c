/**
 * A process's door to the shared rate budget: the API client asks it before every request
 * (`RequestGate`), and it takes requests from the ledger — one at a time for an interactive
 * command, a few at a time for a bulk one, so that a bulk run touches the ledger file once per
 * handful of requests and a single read once. It tells the ledger every reading of the
 * `X-RateLimit-*` headers with its next step, and while a long command runs it renews its lease
 * every second so that the others know it is alive (and, when it is killed, stop counting it
 * within {@link STALE_MS}).
 *
 * A command is interactive until its fourth request: a bulk run, a sync, a long listing or a
 * tail then becomes a bulk lease (normal priority) that shares what interactive commands leave.
 * `--priority` makes it a bulk lease from the start.
 *
 * A ledger that cannot be used is said once, and the command goes on paced by the headers
 * alone (the bulk pacer, the client's 429 waits): nothing blocks on a broken ledger. A
 * `--budget` still caps the command then, counted by the process alone.
 */
import os from 'node:os';
import type { RequestGate } from '../api/client.js';
import type { RateLimitInfo } from '../api/jsonapi.js';
import { readServerWait } from '../api/server-wait.js';
import { InterruptedError, PartialError } from '../errors.js';
import {
  capOf,
  LedgerUnusable,
  RESERVE_RELEASE_MS,
  reserveOf,
  STALE_MS,
  type BudgetCap,
  type Ledger,
  type Priority,
  type Reading,
  SAME_RESET_MS,
  type TakeResult,
  type WindowAnswers,
} from './ledger.js';
import { grouped } from '../grouped.js';

/** Options of {@link BudgetGate}. */
interface GateOptions {
  ledger: Ledger;
  /** What `svc limits` shows for this process (`prospects upsert`). */
  command: string;
  /** `--priority`; unset: interactive until the command proves long. */
  priority?: Priority;
  cap?: BudgetCap;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  warn: (line: string) => void;
  info: (line: string) => void;
  trace: (line: string) => void;
}

/** Requests an interactive command sends before it counts as a long one. */
const INTERACTIVE_REQUESTS = 3;

/** An interactive command waits for a spent window only this long; past it the server decides. */
const INTERACTIVE_WAIT_MS = 10_000;

/** After the announced reset, for rounding to seconds. */
const RESET_SKEW_MS = 300;

/** Thrown before a request past `--budget` when the command stops there (svc sync). */
export class BudgetSpent extends PartialError {}

export class BudgetGate implements RequestGate {
  private kind: 'interactive' | 'bulk';
  private priority: Priority;
  /** Taken from the ledger and not yet sent. */
  private held = 0;
  /** Of those, promised to callers of {@link reserve}. */
  private earmarked = 0;
  /** Requests sent (admitted). */
  private sent = 0;
  /** The latest reading not yet told to the ledger. */
  private pending: Reading | undefined;
  /**
   * Answers in the latest two windows, by the reset they carried: told to the ledger with every
   * step, so that what this process held at a reset and sent before it leaves the new window's count.
   */
  private answered: WindowAnswers[] = [];
  /** Responses had (with rate headers or not): {@link sent} less these are in flight, or failed. */
  private responses = 0;
  /** A probe is out (the window is not known): others wait for its reading. */
  private probing = false;
  private wakers: (() => void)[] = [];
  private last: TakeResult | undefined;
  private disabled = false;
  /** With the ledger off: what this process sent in the window its readings show. */
  private alone = { resetAt: 0, sent: 0, limit: undefined as number | undefined };
  private chain: Promise<unknown> = Promise.resolve();
  /**
   * Callers of {@link obtain}, served first come, first served: a bulk run's workers reserve in
   * the order of their rows, and their requests must leave in that order (records are created in
   * input order, as without the budget), however the ledger steps interleave.
   */
  private queue: Promise<unknown> = Promise.resolve();
  private lastStep = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopAtCap = false;
  private closed = false;
  private shown: ((ms: number, reason: string) => void) | undefined;
  private saidWait = 0;
  private readonly started: number;

  constructor(private readonly opts: GateOptions) {
    this.kind = opts.priority ? 'bulk' : 'interactive';
    this.priority = opts.priority ?? 'normal';
    this.started = opts.now();
    if (this.kind === 'bulk') this.beat();
  }

  /**
   * Says the command is a long one (a bulk run, a sync) from its first request: it shares with
   * the other long ones and leaves interactive commands their reserve.
   */
  longRunning(): void {
    if (this.kind === 'bulk') return;
    this.kind = 'bulk';
    this.beat();
  }

  /** Requests this process has sent so far (each one admitted through this gate). */
  admitted(): number {
    return this.sent;
  }

  /** True while the ledger is in use (false once it proved unusable). */
  shared(): boolean {
    return !this.disabled;
  }

  /** Makes a spent `--budget` stop the command (exit 5) instead of waiting for the next window. */
  stopAtBudget(): void {
    this.stopAtCap = true;
  }

  /** The ApiClient's hook: resolves when a request may be sent. */
  async admit(signal?: AbortSignal): Promise<void> {
    if (this.earmarked > 0) {
      this.earmarked--;
    } else if (!(await this.inTurn(signal))) {
      throw new InterruptedError();
    }
    this.spend();
  }

  /**
   * Waits until one request may go, and keeps it for the next {@link admit} (a bulk run waits
   * here, before it journals a request as leaving). False when `signal` aborts first.
   */
  async reserve(signal: AbortSignal): Promise<boolean> {
    return this.inTurn(signal, () => {
      this.earmarked++;
    });
  }

  /** {@link obtain} after every earlier caller; `then` runs before the next caller's turn. */
  private inTurn(signal: AbortSignal | undefined, then?: () => void): Promise<boolean> {
    const turn = this.queue.then(async () => {
      const ok = await this.obtain(signal);
      if (ok) then?.();
      return ok;
    });
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** The ApiClient's hook: a long command waits out a refusal up to the window's reset (an hour at most). */
  patienceMs(): number {
    return this.kind === 'bulk' ? 3600_000 : 0;
  }

  /** The ApiClient's hook: every response's rate-limit reading. */
  observe(info: RateLimitInfo, status: number): void {
    this.responses++;
    if (info.remaining === undefined) {
      // An answer without a reading (a gateway's 504, a proxy's page): the probe learned nothing;
      // the next request probes again now, not when the wait for a reading gives up a second later.
      this.endProbe();
      return;
    }
    const now = this.opts.now();
    const wait = readServerWait(info.reset, now);
    const reading: Reading = {
      remaining: info.remaining,
      status,
      ...(info.limit !== undefined ? { limit: info.limit } : {}),
      ...(wait && 'ms' in wait ? { resetAt: now + wait.ms } : {}),
    };
    this.pending = reading;
    if (reading.resetAt !== undefined) this.countAnswer(reading.resetAt);
    if (reading.resetAt !== undefined && reading.resetAt > this.alone.resetAt + SAME_RESET_MS)
      this.alone = { resetAt: reading.resetAt, sent: 0, limit: reading.limit };
    this.probing = false;
    this.wake();
  }

  /** The ApiClient's hook: a request had no answer, so no reading comes (see {@link observe}). */
  unanswered(): void {
    this.endProbe();
  }

  private endProbe(): void {
    if (!this.probing) return;
    this.probing = false;
    this.wake();
  }

  /** Counts an answer in the window of its reset (a late answer of an older window than the two is dropped). */
  private countAnswer(resetAt: number): void {
    const w = this.answered.find((a) => Math.abs(a.resetAt - resetAt) <= SAME_RESET_MS);
    if (w) {
      w.n++;
      return;
    }
    if (this.answered.length === 2 && resetAt < this.answered[0]!.resetAt) return;
    this.answered = [...this.answered, { resetAt, n: 1 }].sort((a, b) => a.resetAt - b.resetAt).slice(-2);
  }

  /** What the ledger's steps carry besides the lease: the answers by window and what is in flight. */
  private answers(): { answered?: WindowAnswers[]; inflight: number } {
    const inflight = Math.max(0, this.sent - this.responses);
    return this.answered.length > 0 ? { answered: this.answered.map((a) => ({ ...a })), inflight } : { inflight };
  }

  /**
   * What a run of about `needed` requests can expect: whether it fits in what the window and
   * its budget leave, and when it would end.
   * @param learn sends the run's first request (one it sends before its rows anyway), asked only
   *   when the hour's limit is not known yet (a fresh config dir: a CI job's): the forecast then
   *   has its answer's `X-RateLimit-*` reading instead of saying nothing of the hour
   */
  async forecast(needed: number, learn?: () => Promise<unknown>): Promise<string> {
    let r = await this.step(0);
    if ((r?.limit ?? this.alone.limit) === undefined && learn) {
      await learn();
      // Tells the ledger the answer's reading; the request itself is counted as any other is.
      r = await this.step(0);
    }
    const limit = r?.limit ?? this.alone.limit;
    const cap = capOf(this.opts.cap, limit);
    const budget = this.opts.cap ? `budget ${describeCap(this.opts.cap, cap)}` : 'no budget';
    if (limit === undefined)
      return `${budget}: this run needs about ${grouped(needed)} requests (the hour's limit is known after the first answer)`;
    const left = Math.max(0, Math.min(r?.left ?? limit, cap !== undefined ? cap - (r?.taken ?? 0) : Number.POSITIVE_INFINITY));
    if (needed <= left) return `${budget}: this run needs about ${grouped(needed)} requests and fits in this hour`;
    const perWindow = cap ?? limit - reserveOf(limit);
    const windows = Math.ceil((needed - left) / Math.max(1, perWindow));
    const resetAt = r?.resetAt ?? this.opts.now() + 3600_000;
    const end = new Date(resetAt + (windows - 1) * 3600_000 + ((needed - left - (windows - 1) * perWindow) / perWindow) * 3600_000);
    return `${budget}: this run needs about ${grouped(needed)} requests, ${grouped(left)} are left this hour; it would end about ${end.toISOString().slice(11, 16)} UTC`;
  }

  /** Ends the lease: what is held returns to the window. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.disabled || this.last === undefined || this.closed) return;
    this.closed = true;
    // A single read leaves nothing held; its lease lapses by itself (its pid is gone), so it
    // writes the ledger once — unless its reading corrects the ledger.
    const news =
      this.pending && (this.last.limit === undefined || this.pending.status === 429 || differs(this.pending.resetAt, this.last.resetAt));
    if (this.kind === 'interactive' && this.held === 0 && !news) return;
    const reading = this.pending;
    this.pending = undefined;
    await this.run(() =>
      this.opts.ledger.giveBack({ lease: this.lease(), held: this.held, ...(reading ? { reading } : {}), ...this.answers() }),
    );
  }

  private spend(): void {
    if (this.held > 0) this.held--;
    this.sent++;
    this.alone.sent++;
    // A long command: from now on it shares with the bulk runs.
    if (this.sent > INTERACTIVE_REQUESTS) this.longRunning();
  }

  /** Waits until this process holds a request that is not promised; false on abort. */
  private async obtain(signal: AbortSignal | undefined): Promise<boolean> {
    for (;;) {
      if (signal?.aborted) return false;
      if (this.disabled) return this.obtainAlone(signal);
      if (this.held - this.earmarked > 0) return true;
      if (this.probing) {
        await this.change(signal);
        continue;
      }
      const r = await this.step(this.chunk());
      if (this.disabled) continue;
      if (this.held - this.earmarked > 0) {
        if (r?.probe) this.probing = true;
        return true;
      }
      if (!r) continue;
      if (r.granted > 0) continue; // taken by another worker of this process meanwhile
      const wait = this.waitFor(r);
      if (wait === 0) return true; // an interactive command past a long wait: the server decides
      this.opts.trace(`rate budget: waiting ${wait} ms (${r.why}: ${r.left ?? '?'} left this window, ${r.taken} taken by this command)`);
      await this.opts.sleep(wait, signal);
    }
  }

  /** How long to wait after a take that granted nothing (0: send anyway). */
  private waitFor(r: TakeResult): number {
    const now = this.opts.now();
    const untilReset = r.resetAt !== undefined ? Math.max(0, r.resetAt + RESET_SKEW_MS - now) : 1000;
    if (r.why === 'cap') {
      if (this.stopAtCap) throw new BudgetSpent(`stopped at the budget of ${describeCap(this.opts.cap!, r.cap)}`);
      this.say(`budget of ${describeCap(this.opts.cap!, r.cap)} spent; waiting for the window to reset${at(r.resetAt)}`, untilReset);
      return Math.min(untilReset, 1000);
    }
    if (r.why === 'window') {
      if (this.kind === 'interactive') return untilReset <= INTERACTIVE_WAIT_MS ? untilReset : 0;
      this.say(
        `the hour's requests for long commands are spent (a reserve stays for interactive ones; shared by every svc of this user); waiting for the window to reset${at(r.resetAt)}`,
        untilReset,
      );
      // Awake when the window's last moments release the interactive reserve to bulk runs: a
      // second's sleep would often miss them (the server's reset is rounded up to the second).
      const release = r.resetAt !== undefined ? r.resetAt - RESERVE_RELEASE_MS - now : 0;
      return Math.max(1, Math.min(untilReset, 1000, release > 0 ? release : 1000));
    }
    // Another lease holds the rest of the share: shares move as runs come, finish or die.
    return 250;
  }

  /** The ledger is off: only `--budget` holds, counted by this process. */
  private async obtainAlone(signal: AbortSignal | undefined): Promise<boolean> {
    for (;;) {
      if (signal?.aborted) return false;
      const cap = capOf(this.opts.cap, this.alone.limit);
      if (cap === undefined || this.alone.sent < cap) return true;
      const untilReset = Math.max(0, this.alone.resetAt + RESET_SKEW_MS - this.opts.now());
      if (this.stopAtCap) throw new BudgetSpent(`stopped at the budget of ${describeCap(this.opts.cap!, cap)}`);
      this.say(`budget of ${describeCap(this.opts.cap!, cap)} spent; waiting for the window to reset${at(this.alone.resetAt)}`, untilReset);
      await this.opts.sleep(Math.min(Math.max(untilReset, 50), 1000), signal);
      if (this.opts.now() >= this.alone.resetAt + RESET_SKEW_MS) this.alone.sent = 0;
    }
  }

  /** Requests asked at a time: one for an interactive command, about 1 % of the limit for a bulk one. */
  private chunk(): number {
    const limit = this.last?.limit;
    if (this.kind === 'interactive' || limit === undefined) return 1;
    return Math.max(1, Math.min(25, Math.ceil(limit / 100)));
  }

  /** One ledger step (serialised with the others of this process); undefined once the ledger is off. */
  private async step(want: number): Promise<TakeResult | undefined> {
    return this.run(async () => {
      const reading = this.pending;
      this.pending = undefined;
      // An interactive command sends what it takes at once: the ledger counts it spent, not held
      // (its lease is not written again, and a lease that lapses must not give back a sent request).
      const spend = this.kind === 'interactive';
      const r = await this.opts.ledger.take({
        lease: this.lease(),
        held: this.held,
        want,
        ...(reading ? { reading } : {}),
        ...(spend ? { spendNow: true } : {}),
        ...this.answers(),
      });
      this.held += r.granted;
      this.last = r;
      return r;
    });
  }

  private run<T>(fn: () => Promise<T>): Promise<T | undefined> {
    const next = this.chain.then(async () => {
      if (this.disabled) return undefined;
      this.lastStep = this.opts.now();
      try {
        return await fn();
      } catch (err) {
        if (!(err instanceof LedgerUnusable)) throw err;
        this.disabled = true;
        this.held = 0;
        this.earmarked = 0;
        this.opts.warn(
          `the rate budget shared with your other svc processes is off for this command: ${err.message}; pacing by the server's headers alone`,
        );
        return undefined;
      }
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  private lease() {
    return {
      pid: process.pid,
      host: os.hostname(),
      command: this.opts.command,
      kind: this.kind,
      priority: this.priority,
      started: this.started,
      ...(this.opts.cap ? { cap: this.opts.cap } : {}),
    };
  }

  /** Renews the lease every second while the command runs (unref'd: it never keeps it alive). */
  private beat(): void {
    this.timer ??= setInterval(
      () => {
        if (this.opts.now() - this.lastStep >= 900) void this.step(0).catch(() => undefined);
      },
      Math.min(1000, STALE_MS / 4),
    );
    this.timer.unref();
  }

  /** Resolves at the next reading (or abort, or after a second). */
  private change(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(() => {
        this.probing = false; // the probe's answer never came (a failure): probe again
        done();
      }, 1000);
      signal?.addEventListener('abort', done, { once: true });
      this.wakers.push(done);
    });
  }

  private wake(): void {
    const w = this.wakers;
    this.wakers = [];
    for (const fn of w) fn();
  }

  /**
   * Shows the budget's waits another way (a bulk run's progress display) instead of an info line.
   */
  showWaits(fn: (ms: number, reason: string) => void): void {
    this.shown = fn;
  }

  /** An info line about a wait of a second or more, once per window. */
  private say(line: string, ms: number): void {
    if (ms < 1000) return;
    if (this.shown) {
      this.shown(ms, line);
      return;
    }
    const window = this.last?.resetAt ?? this.alone.resetAt;
    if (this.saidWait === window) return;
    this.saidWait = window;
    this.opts.info(line);
  }
}

/** `20% of the hour (2,000 requests)`, `2,000 requests an hour`. */
function describeCap(cap: BudgetCap, resolved: number | undefined): string {
  if ('requests' in cap) return `${grouped(cap.requests)} requests an hour`;
  return `${cap.percent}% of the hour${resolved !== undefined ? ` (${grouped(resolved)} requests)` : ''}`;
}

function at(resetAt: number | undefined): string {
  return resetAt ? ` at ${new Date(resetAt).toISOString().slice(11, 19)} UTC` : '';
}

function differs(a: number | undefined, b: number | undefined): boolean {
  return a !== undefined && (b === undefined || Math.abs(a - b) > SAME_RESET_MS);
}
