/**
 * The rate budget every `svc` process of a user shares (README.md, Concepts: "One hour, shared"):
 * what a ledger holds and the rules of taking from it, apart from where it is kept. The file
 * ledger (`file-ledger.ts`) applies these rules under a lock; a ledger kept elsewhere (a database
 * table row locked for update) implements {@link Ledger} with the same rules, and the callers
 * (`gate.ts`, `svc limits`) do not change.
 *
 * The ledger counts the hour's requests as they are *taken* (reserved), before they are sent, so
 * two processes can never both spend the last ones. Each process holds a lease: who it is, how
 * it ranks, how many it took this window and how many of those it still holds unsent. A lease
 * whose pid is gone or whose heartbeat is older than {@link STALE_MS} is dropped by whoever
 * reads next, and what it held unsent returns to the hour. The server's `X-RateLimit-*` headers
 * correct the count: a higher count of the server's wins at once, and its reset once the ledger's window
 * is ending (see applyReading).
 *
 * Interactive commands (a single read or write) take first and may use the small reserve bulk
 * runs leave; bulk runs (bulk writes, syncs, long listings, tails) share the rest by
 * max-min fairness weighted by priority, each capped by its `--budget`.
 */

import { createHash } from 'node:crypto';

/** `--priority`: how bulk runs weigh against each other. */
export type Priority = 'low' | 'normal' | 'high';

const PRIORITIES: readonly Priority[] = ['low', 'normal', 'high'];

/** Weight of each priority in the share of what bulk runs have left. */
const WEIGHT: Record<Priority, number> = { low: 1, normal: 2, high: 4 };

/** `--budget`: requests a run may use per window, as a number or a share of the limit. */
export type BudgetCap = { requests: number } | { percent: number };

/** One process's holding. */
interface Lease {
  pid: number;
  host: string;
  /** `prospects upsert`, `sync`: what `svc limits` shows. */
  command: string;
  /** Interactive commands go first; bulk ones share what is left. */
  kind: 'interactive' | 'bulk';
  priority: Priority;
  cap?: BudgetCap;
  /** Requests taken in the current window (sent or still held). */
  taken: number;
  /** Taken and not yet sent: returned when the lease ends or goes stale. */
  held: number;
  /** Epoch ms of the lease's last update. */
  heartbeat: number;
  /** Epoch ms when the process last asked for requests (it competes for a share while recent). */
  wantAt: number;
  started: number;
  /** The process's count at the lease's last step in this window: see {@link Mark}. */
  mark?: Mark;
  /** What the last reset carried of this lease into the window: see {@link Carry}. */
  carry?: Carry;
}

/**
 * A process's count at a step: its answers in the window (by the reset they carried) and its
 * requests sent and not answered. Every answer in the window after the step is of a request in
 * flight then or of one it held then.
 */
interface Mark {
  resetAt: number;
  n: number;
  inflight: number;
}

/**
 * A lease's holding at the window's reset. What it held then dates from its last step: much of
 * it may have been sent since, before the reset, and counts in the window that ended. The new
 * window counts all of it until the process's answers say otherwise: a request answered with the
 * old window's reset was counted there by the server, and of its answers in the old window after
 * its last step (its count then in `mark`), at least all but those in flight then were held then.
 */
interface Carry {
  /** The lease's count at its last step in the old window. */
  mark: Mark;
  /** What it held then (and the new window counted at the reset). */
  held: number;
  /** Of that, what its answers have shown sent in the old window and the new window took back. */
  back: number;
}

/** Answers a process had in one window, by the reset they carried (`X-RateLimit-Reset`). */
export interface WindowAnswers {
  resetAt: number;
  n: number;
}

/** Resets within this of each other are one window's (whole seconds, clocks, a server's offset). */
export const SAME_RESET_MS = 1500;

/** What a ledger holds. */
export interface LedgerState {
  version: typeof LEDGER_VERSION;
  /** The server's limit per window, once a response said it. */
  limit?: number;
  /** Epoch ms (this machine's clock) when the window resets, from the server's header. */
  resetAt?: number;
  /** The window rolled over by the clock and no response has confirmed the new one yet. */
  unconfirmed?: boolean;
  /** Requests taken in this window, by every process (the server's count when higher). */
  used: number;
  leases: Lease[];
}

const LEDGER_VERSION = 1;

/** A rate-limit reading of one response, its reset already turned into this machine's time. */
export interface Reading {
  limit?: number;
  remaining: number;
  resetAt?: number;
  status: number;
}

/** What a process tells the ledger when it takes. */
export interface TakeRequest {
  lease: Pick<Lease, 'pid' | 'host' | 'command' | 'kind' | 'priority' | 'cap' | 'started'>;
  /** Requests the process still holds unsent (its own count wins over the ledger's). */
  held: number;
  /** How many it asks for now (0: only a heartbeat). */
  want: number;
  /** The latest reading it saw and has not reported yet. */
  reading?: Reading;
  /** What is granted is sent at once (an interactive command): counted as spent, never held. */
  spendNow?: boolean;
  /** The process's answers in its latest windows (at most two), counted since it started. */
  answered?: WindowAnswers[];
  /** Its requests sent and not answered (yet, or ever: a failure) when it asked. */
  inflight?: number;
}

/** Why a take granted nothing (or less than asked). */
type Shortage = 'window' | 'share' | 'cap';

/** The answer to a take. */
export interface TakeResult {
  granted: number;
  why?: Shortage;
  limit?: number;
  resetAt?: number;
  /** Requests left in the window for anyone. */
  left?: number;
  /** This process's requests in the window so far and its cap (resolved for a percentage). */
  taken: number;
  cap?: number;
  /** The window is not known yet: one request at a time until a reading says what it holds. */
  probe: boolean;
}

/** A lease as `svc limits` shows it. */
interface LeaseView {
  pid: number;
  command: string;
  kind: 'interactive' | 'bulk';
  priority: Priority;
  taken: number;
  held: number;
  /** The lease's share of the window now: its cap or its fair share, whichever is lower. */
  share?: number;
  cap?: number;
  started: number;
}

/** The window as `svc limits` shows it. */
export interface LedgerView {
  limit?: number;
  used: number;
  left?: number;
  resetAt?: number;
  leases: LeaseView[];
}

/** The ledger cannot be used (the message says why and what to do): the caller paces by the headers. */
export class LedgerUnusable extends Error {}

/** The key of a user's (a stable key: the user id, or a token's hash) ledger for a base URL. */
export function ledgerKey(user: string, baseUrl: string): string {
  return createHash('sha256')
    .update(`${user}\n${baseUrl.replace(/\/+$/, '')}`)
    .digest('hex')
    .slice(0, 16);
}

/**
 * Where the budget is kept. Every method is one atomic step (a lock, a transaction); none blocks
 * for longer than that step.
 */
export interface Ledger {
  /** Where it is kept, as `svc limits` names it (a file; a server, its password hidden). */
  readonly where: string;
  /** Renews the caller's lease, applies its reading, and takes up to `want` requests. */
  take(req: TakeRequest): Promise<TakeResult>;
  /** Ends the caller's lease: what it still holds returns to the window. */
  giveBack(req: Omit<TakeRequest, 'want'>): Promise<void>;
  /** Applies a reading without taking (a refusal, a new window). */
  report(req: Omit<TakeRequest, 'want'>): Promise<void>;
  /** The window and the live leases. */
  leases(): Promise<LedgerView>;
  /** Lets go of what it holds open (a connection), once the command is done with it. */
  close?(): Promise<void>;
}

/** A lease not renewed for this long is gone (a process heartbeats every second while it runs). */
export const STALE_MS = 4_000;

/** A bulk lease competes for a share while it asked for requests this recently. */
const ACTIVE_MS = 2_500;

/** After the announced reset, for rounding to seconds and small clock drift. */
const RESET_SKEW_MS = 300;

/** Requests bulk runs leave in every window for interactive commands. */
export function reserveOf(limit: number): number {
  return Math.min(Math.floor(limit / 2), Math.max(5, Math.ceil(limit * 0.015)));
}

/**
 * In the window's last moments most of the reserve goes to bulk runs too: an interactive command
 * that finds it spent waits no longer than this for the reset. (The announced reset is in whole
 * seconds, so the server's window may end up to a second before it.)
 */
export const RESERVE_RELEASE_MS = 1_500;

/**
 * What stays reserved then: a fifth. With none, a read that came in those moments while bulk runs
 * had spent the window waited for the reset, up to 1.8 s (a third of the reads in shared-budget's
 * 5 s windows); a fifth costs the bulk runs 0.3 % of an hour of 10,000.
 */
function releasedReserve(limit: number): number {
  return Math.ceil(reserveOf(limit) / 5);
}

/**
 * In the window's last seconds shares no longer hold: a slow lease (one request at a time)
 * cannot use all of its share, and what it leaves would be lost at the reset.
 */
const SHARES_RELEASE_MS = 3_000;

/** The reserve now: a fifth of it in the window's last moments. */
function reserveNow(state: LedgerState, now: number): number {
  if (state.limit === undefined) return 0;
  return state.resetAt !== undefined && state.resetAt - now <= RESERVE_RELEASE_MS ? releasedReserve(state.limit) : reserveOf(state.limit);
}

/** A cap in requests for a window of `limit`. */
export function capOf(cap: BudgetCap | undefined, limit: number | undefined): number | undefined {
  if (!cap) return undefined;
  if ('requests' in cap) return cap.requests;
  return limit === undefined ? undefined : Math.max(1, Math.floor((limit * cap.percent) / 100));
}

/** Facts about the world the rules need (injected so that the rules are pure). */
interface World {
  now: number;
  host: string;
  alive(pid: number): boolean;
}

/** An empty ledger. */
export function emptyState(): LedgerState {
  return { version: LEDGER_VERSION, used: 0, leases: [] };
}

/**
 * Drops dead and stale leases (their held requests return), and rolls the window over when
 * its reset has passed.
 */
export function tidy(state: LedgerState, world: World, self?: number): void {
  state.leases = state.leases.filter((l) => {
    if (l.pid === self && l.host === world.host) return true;
    const dead = (l.host === world.host && !world.alive(l.pid)) || world.now - l.heartbeat > STALE_MS;
    if (dead) state.used = Math.max(0, state.used - l.held);
    return !dead;
  });
  if (state.resetAt !== undefined && world.now >= state.resetAt + RESET_SKEW_MS) {
    // A new window: only what is held unsent is already spoken for. Until a response confirms
    // the window, requests go one at a time (it may have started earlier, or not yet).
    const ended = state.resetAt;
    state.resetAt = undefined;
    state.unconfirmed = true;
    state.used = 0;
    carryOver(state, ended);
    for (const l of state.leases) state.used += l.held;
  }
}

/**
 * Starts every lease's count in a new window at what it held at its last step, and remembers its
 * count then, so that {@link applyAnswered} can take back what its answers show was sent before
 * the reset (none when its last step was not in the window that `ended`).
 */
function carryOver(state: LedgerState, ended: number): void {
  for (const l of state.leases) {
    const m = l.mark;
    l.carry = m && Math.abs(m.resetAt - ended) <= SAME_RESET_MS && l.held > 0 ? { mark: m, held: l.held, back: 0 } : undefined;
    l.mark = undefined;
    l.taken = l.held;
  }
}

/** The caller's answers in the window whose reset is `resetAt` (none when it has no count of that window). */
function answersIn(answered: WindowAnswers[] | undefined, resetAt: number): number {
  return answered?.find((a) => Math.abs(a.resetAt - resetAt) <= SAME_RESET_MS)?.n ?? 0;
}

/** Remembers the caller's count at this step, in the window the ledger knows (none while it does not). */
function markStep(state: LedgerState, lease: Lease, req: Omit<TakeRequest, 'want'>): void {
  lease.mark =
    state.resetAt !== undefined && req.inflight !== undefined
      ? { resetAt: state.resetAt, n: answersIn(req.answered, state.resetAt), inflight: req.inflight }
      : undefined;
}

/**
 * What the lease held at the last reset and its process has since had answered with the old
 * window's reset was sent in the old window: the new window stops counting it. Only the process's
 * own answers say this (another's reading is as old as its last answer), and what it never had
 * answered (in flight, failed) stays counted: the count errs high, never low.
 */
function applyAnswered(state: LedgerState, lease: Lease, answered: WindowAnswers[] | undefined): void {
  const c = lease.carry;
  if (!c || c.back >= c.held) return;
  const after = answersIn(answered, c.mark.resetAt) - c.mark.n - c.mark.inflight;
  const back = Math.min(c.held, Math.max(0, after)) - c.back;
  if (back <= 0) return;
  c.back += back;
  lease.taken = Math.max(0, lease.taken - back);
  lease.held = Math.min(lease.held, lease.taken);
  state.used = Math.max(0, state.used - back);
}

/**
 * The other side of a reset: a request sent before it (counted in the old window) and answered
 * with the new window's reset was counted in the new one by the server. When the process's
 * answers in this window outnumber what the lease took in it and sent, the rest are such, and the
 * window counts them. (Only ever more: a count that errs high costs a few requests, one that errs
 * low a 429.)
 */
function applyNewAnswers(state: LedgerState, lease: Lease, req: Omit<TakeRequest, 'want'>): void {
  if (state.resetAt === undefined || !req.answered) return;
  const extra = answersIn(req.answered, state.resetAt) - (lease.taken - Math.min(lease.held, req.held));
  if (extra <= 0) return;
  lease.taken += extra;
  state.used += extra;
}

/** Applies a server reading: the server's count and reset win. */
function applyReading(state: LedgerState, r: Reading, now: number, ownHeld: number): void {
  if (r.limit !== undefined && r.limit > 0) state.limit = r.limit;
  const limit = state.limit;
  // A late answer of a window that has ended says nothing about this one.
  if (limit === undefined || (r.resetAt !== undefined && r.resetAt + RESET_SKEW_MS <= now)) return;
  const held = state.leases.reduce((n, l) => n + l.held, 0);
  const serverUsed = r.status === 429 ? limit : Math.max(0, limit - r.remaining);
  if (r.resetAt !== undefined && state.resetAt !== undefined && r.resetAt < state.resetAt - SAME_RESET_MS) return; // a late answer of the last window
  if (
    r.resetAt !== undefined &&
    state.resetAt !== undefined &&
    r.resetAt > state.resetAt + SAME_RESET_MS &&
    now < state.resetAt - SAME_RESET_MS
  ) {
    // A later window while ours has seconds to run proves nothing: a window ends at its reset
    // (the server's, rounded up to the second, at most that much earlier), and an answer the
    // server did not count (a 401, an endpoint it exempts) may carry the headers of a window
    // nobody counts in. Taken as a new window, such an answer emptied the count and every
    // process was granted the hour again: 429s. Its count only ever raises ours (a refusal says
    // the window is spent), and the window rolls over at our reset.
    state.used = Math.max(state.used, serverUsed + ownHeld);
    return;
  }
  if (r.resetAt !== undefined && (state.resetAt === undefined || r.resetAt > state.resetAt + SAME_RESET_MS)) {
    const ended = state.resetAt;
    state.resetAt = r.resetAt;
    state.unconfirmed = false;
    if (ended !== undefined) {
      // The server started a window our clock had not quite seen end (the reset's rounding,
      // clocks a little apart): its count replaces ours.
      state.used = serverUsed + held;
      carryOver(state, ended);
      return;
    }
  }
  if (r.resetAt !== undefined) state.unconfirmed = false;
  // The server counts what was sent; we count what was sent or is held. Requests the ledger does
  // not know of (another machine, another tool) raise the count. Only the reporter's own held
  // requests are known unsent now: the other leases' counts date from their last step, and
  // what they sent since is in the server's count already (adding it again would leave the
  // window's last requests unused).
  state.used = Math.max(state.used, serverUsed + ownHeld);
}

/** Renews (or creates) the caller's lease; returns it. */
function renew(state: LedgerState, req: Omit<TakeRequest, 'want'>, now: number): Lease {
  let lease = state.leases.find((l) => l.pid === req.lease.pid && l.host === req.lease.host);
  if (!lease) {
    // New, or dropped while this process was busy elsewhere: what it holds is counted again.
    lease = {
      ...req.lease,
      taken: req.held,
      held: req.held,
      heartbeat: now,
      wantAt: 0,
    };
    state.used += req.held;
    state.leases.push(lease);
  }
  Object.assign(lease, req.lease);
  if (req.held < lease.held) lease.held = req.held; // sent since (never more than it was granted)
  lease.heartbeat = now;
  return lease;
}

/** The take itself: renew, tidy, correct, then grant what the rules allow. */
export function take(state: LedgerState, req: TakeRequest, world: World): TakeResult {
  const lease = renew(state, req, world.now);
  tidy(state, world, req.lease.pid);
  if (req.reading) applyReading(state, req.reading, world.now, req.held);
  applyAnswered(state, lease, req.answered);
  applyNewAnswers(state, lease, req);
  if (req.want > 0) lease.wantAt = world.now;
  const limit = state.limit;
  const cap = capOf(lease.cap, limit);
  const base = { limit, resetAt: state.resetAt, taken: lease.taken, cap };
  if (limit === undefined || state.unconfirmed) {
    // Nothing known of this window: one request at a time (the caller waits for its reading).
    const granted = Math.min(req.want, 1, cap === undefined ? 1 : Math.max(0, cap - lease.taken));
    grant(state, lease, granted, req.spendNow);
    markStep(state, lease, req);
    return { ...base, granted, taken: lease.taken, probe: true, ...(granted < req.want ? { why: 'cap' as const } : {}) };
  }
  const left = limit - state.used;
  let room = left;
  let why: Shortage = 'window';
  if (lease.kind === 'bulk') {
    const reserve = reserveNow(state, world.now);
    room = left - reserve;
    const closing = state.resetAt !== undefined && state.resetAt - world.now <= SHARES_RELEASE_MS;
    const fair = closing ? room + lease.taken : (fairShares(state, world.now, reserve).get(lease) ?? room);
    if (fair - lease.taken < room) {
      room = fair - lease.taken;
      why = 'share';
    }
  }
  if (cap !== undefined && cap - lease.taken <= room) {
    room = cap - lease.taken;
    why = 'cap';
  }
  const granted = Math.max(0, Math.min(req.want, room));
  grant(state, lease, granted, req.spendNow);
  markStep(state, lease, req);
  return { ...base, granted, taken: lease.taken, left: limit - state.used, probe: false, ...(granted < req.want ? { why } : {}) };
}

function grant(state: LedgerState, lease: Lease, n: number, spent = false): void {
  lease.taken += n;
  if (!spent) lease.held += n;
  state.used += n;
}

/** Ends a lease: its held requests return. */
export function giveBack(state: LedgerState, req: Omit<TakeRequest, 'want'>, world: World): void {
  const lease = renew(state, req, world.now);
  tidy(state, world, req.lease.pid);
  if (req.reading) applyReading(state, req.reading, world.now, req.held);
  applyAnswered(state, lease, req.answered);
  applyNewAnswers(state, lease, req);
  state.used = Math.max(0, state.used - lease.held);
  state.leases = state.leases.filter((l) => l !== lease);
}

/** Applies a reading under the caller's lease. */
export function report(state: LedgerState, req: Omit<TakeRequest, 'want'>, world: World): void {
  const lease = renew(state, req, world.now);
  tidy(state, world, req.lease.pid);
  if (req.reading) applyReading(state, req.reading, world.now, req.held);
  applyAnswered(state, lease, req.answered);
  applyNewAnswers(state, lease, req);
  markStep(state, lease, req);
}

/**
 * The window's requests each active bulk lease may have taken by the end of it: max-min fair
 * by weight, each under its cap. What interactive commands, idle leases and gone processes took
 * is spent; the rest (less the interactive reserve) is shared, and a lease that already took
 * more than its share keeps it (the others get the rest).
 */
export function fairShares(state: LedgerState, now: number, reserve = reserveNow(state, now)): Map<Lease, number> {
  const out = new Map<Lease, number>();
  const limit = state.limit;
  if (limit === undefined) return out;
  const active = state.leases.filter((l) => l.kind === 'bulk' && now - l.wantAt < ACTIVE_MS);
  const fixed = state.used - active.reduce((n, l) => n + l.taken, 0);
  const pool = Math.max(0, limit - reserve - fixed);
  const items = active.map((l) => ({ l, w: WEIGHT[l.priority], cap: capOf(l.cap, limit) ?? Number.POSITIVE_INFINITY }));
  const total = (level: number) => items.reduce((n, it) => n + Math.min(it.cap, Math.max(it.l.taken, level * it.w)), 0);
  let lo = 0;
  let hi = pool + 1;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (total(mid) <= pool) lo = mid;
    else hi = mid;
  }
  for (const it of items) out.set(it.l, Math.min(it.cap, Math.max(it.l.taken, Math.ceil(lo * it.w))));
  return out;
}

/** The view of `svc limits`. */
export function view(state: LedgerState, now: number): LedgerView {
  const shares = fairShares(state, now);
  const limit = state.limit;
  return {
    limit,
    used: state.used,
    ...(limit !== undefined ? { left: Math.max(0, limit - state.used) } : {}),
    resetAt: state.resetAt,
    leases: state.leases.map((l) => {
      const cap = capOf(l.cap, limit);
      const fair = shares.get(l);
      const share = fair ?? cap;
      return {
        pid: l.pid,
        command: l.command,
        kind: l.kind,
        priority: l.priority,
        taken: l.taken,
        held: l.held,
        ...(share !== undefined ? { share: cap !== undefined ? Math.min(share, cap) : share } : {}),
        ...(cap !== undefined ? { cap } : {}),
        started: l.started,
      };
    }),
  };
}

/**
 * Checks a parsed ledger: undefined when it is one this version wrote, else why not (`newer`
 * for a later version's).
 */
export function checkState(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a ledger';
  const s = v as Partial<LedgerState> & { version?: unknown };
  if (typeof s.version === 'number' && s.version > LEDGER_VERSION) return `written by a newer svc (ledger version ${s.version})`;
  if (s.version !== LEDGER_VERSION) return 'not a ledger';
  if (typeof s.used !== 'number' || !Array.isArray(s.leases)) return 'not a ledger';
  for (const l of s.leases as unknown[]) {
    const x = l as Partial<Lease>;
    if (
      typeof x !== 'object' ||
      x === null ||
      typeof x.pid !== 'number' ||
      typeof x.host !== 'string' ||
      typeof x.taken !== 'number' ||
      typeof x.held !== 'number' ||
      typeof x.heartbeat !== 'number' ||
      !PRIORITIES.includes(x.priority as Priority) ||
      (x.kind !== 'bulk' && x.kind !== 'interactive')
    )
      return 'a lease cannot be read';
  }
  return undefined;
}
