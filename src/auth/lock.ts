/**
 * An inter-process lock file: created with O_EXCL (`wx`), holding the owner's pid, host and
 * start time. Parallel `svc` processes sharing a config directory take it around token
 * refreshes and config writes, so that one process refreshes and the others reuse its token.
 *
 * A lock left by a crashed process is broken when its pid no longer runs on this host, or, for
 * a lock from another host or without readable content, when it is older than `staleMs`.
 * Breaking goes through a second O_EXCL file so that two waiters cannot both break it and then
 * delete each other's fresh lock.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';

/** Options of {@link acquireLock}. */
interface LockOptions {
  /** Give up waiting after this long. @default 60000 */
  timeoutMs?: number;
  /**
   * A lock older than this is stale whatever its pid (a hung holder, another host). Longer than
   * a refresh can hold it: a 30 s request, a rate-limit wait of up to 65 s, a 30 s retry.
   * @default 180000
   */
  staleMs?: number;
  /** Delay between attempts (plus jitter). @default 25 */
  pollMs?: number;
  signal?: AbortSignal;
  /** Told once when the lock is busy (for a trace line). */
  onWait?: (owner: LockOwner | undefined) => void;
}

/** What a lock file holds. */
interface LockOwner {
  pid: number;
  host: string;
  /** Epoch ms. */
  createdAt: number;
  /** Random id of this holding, so that release never deletes someone else's lock. */
  nonce: string;
}

/** The lock could not be taken in time. */
export class LockTimeoutError extends Error {
  constructor(
    readonly file: string,
    readonly owner: LockOwner | undefined,
  ) {
    super(`timed out waiting for the lock ${file}${owner ? ` (held by pid ${owner.pid} on ${owner.host})` : ''}`);
  }
}

function readOwner(file: string): LockOwner | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockOwner>;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.createdAt === 'number' && typeof v.nonce === 'string')
      return v as LockOwner;
  } catch {
    // unreadable or half-written
  }
  return undefined;
}

/** True while process `pid` runs (also when it is someone else's). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why a lock is stale, or undefined when it must be respected. */
export function staleReason(file: string, staleMs: number, now = Date.now()): string | undefined {
  let mtime: number;
  try {
    mtime = fs.statSync(file).mtimeMs;
  } catch {
    return undefined; // gone already: the next attempt takes it
  }
  const owner = readOwner(file);
  if (!owner) {
    // The owner writes its content right after creating the file; give it a moment.
    return now - mtime > 2_000 ? 'unreadable lock file' : undefined;
  }
  if (owner.host === os.hostname() && owner.pid !== process.pid && !pidAlive(owner.pid)) return `pid ${owner.pid} is gone`;
  if (now - owner.createdAt > staleMs) return `older than ${Math.round(staleMs / 1000)} s`;
  return undefined;
}

/**
 * Removes a file, gone already or not: `fs.rmSync(f, { force: true })` for a file, without its
 * first call's ~0.7 ms of loading Node's rimraf (every ledger step releases a lock).
 */
// Performance machinery (src/README.md, Build): no fs.rmSync on the command's path.
function removeFile(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

function tryCreate(file: string, owner: LockOwner): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    fs.writeSync(fd, JSON.stringify(owner));
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** Removes a stale lock, guarded by a breaker file so that only one waiter does it. */
function breakStale(file: string, staleMs: number): void {
  const breaker = `${file}.break`;
  const me: LockOwner = { pid: process.pid, host: os.hostname(), createdAt: Date.now(), nonce: randomBytes(8).toString('hex') };
  if (!tryCreate(breaker, me)) {
    // A breaker left by a crash in the few lines below: remove it when clearly stale.
    if (staleReason(breaker, 10_000)) removeFile(breaker);
    return;
  }
  try {
    // Re-check under the breaker: another waiter may have broken it and taken a fresh lock.
    if (staleReason(file, staleMs)) removeFile(file);
  } finally {
    removeFile(breaker);
  }
}

/** Takes the lock, waiting for it; resolves to the release function. */
export async function acquireLock(file: string, opts: LockOptions = {}): Promise<() => void> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const staleMs = opts.staleMs ?? 180_000;
  const pollMs = opts.pollMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  const me: LockOwner = { pid: process.pid, host: os.hostname(), createdAt: Date.now(), nonce: randomBytes(8).toString('hex') };
  let told = false;
  for (;;) {
    me.createdAt = Date.now();
    if (tryCreate(file, me)) break;
    if (staleReason(file, staleMs)) {
      breakStale(file, staleMs);
      continue;
    }
    if (!told) {
      told = true;
      opts.onWait?.(readOwner(file));
    }
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
    if (Date.now() >= deadline) throw new LockTimeoutError(file, readOwner(file));
    await new Promise((r) => setTimeout(r, pollMs + Math.random() * pollMs));
  }
  // A process that exits (or is interrupted) while holding the lock still removes it.
  const onExit = () => release();
  process.once('exit', onExit);
  let released = false;
  function release(): void {
    if (released) return;
    released = true;
    process.off('exit', onExit);
    if (readOwner(file)?.nonce === me.nonce) removeFile(file);
  }
  return release;
}

/** Runs `fn` while holding the lock. */
export async function withLock<T>(file: string, fn: () => Promise<T>, opts?: LockOptions): Promise<T> {
  const release = await acquireLock(file, opts);
  try {
    return await fn();
  } finally {
    release();
  }
}
