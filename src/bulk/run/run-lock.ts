/**
 * One run at a time on a side file (a journal): a lock file holding its owner — the pid on the
 * first line, the host on the second.
 *
 * The lock appears whole or not at all: it is written under a temporary name and then hard-linked
 * to its place, which fails when a lock is there (`link` never replaces), so no run ever reads
 * an empty lock and takes it for an abandoned one. A lock is stale only when its owner's pid is
 * dead on this host; a lock of another host, or one that cannot be read, is never taken over
 * (one that stays unreadable for a minute excepted: no svc writes one). Taking over a stale lock
 * is atomic too: only the holder of `<lock>.break` (taken the same way) removes a lock, after
 * judging it stale again as it then is, so two runs breaking one stale lock cannot both end up
 * holding it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { UsageError } from '../../errors.js';
import { noFollow, writeTempFileSync } from '../../private-file.js';

/** What a lock file says, and which file it was (its inode). */
interface Seen {
  pid?: number;
  host?: string;
  ino: number;
  mtimeMs: number;
}

/** An unreadable lock this old is taken for abandoned (a run writes its lock in one step). */
const UNREADABLE_STALE_MS = 60_000;

/** Attempts at taking a lock before giving up (each ends in a clear answer or a retry). */
const ATTEMPTS = 200;

/** The lock is another live run's (its callers add what their own case calls for). */
export class RunLockHeld extends UsageError {}

export class RunLock {
  /** The inode of our lock while we hold it. */
  private ino: number | undefined;

  /**
   * @param file the lock file
   * @param what how error lines name the side file (`--journal run.ndjson`)
   */
  constructor(
    readonly file: string,
    private readonly what: string,
  ) {}

  /** Takes the lock, or throws a UsageError naming the live owner. */
  take(): void {
    const body = `${process.pid}\n${os.hostname()}\n`;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const ino = this.link(this.file, body);
      if (ino !== undefined) {
        this.ino = ino;
        return;
      }
      const seen = read(this.file);
      if (!seen) continue; // released meanwhile
      if (!stale(seen)) throw this.inUse(seen);
      this.breakStale(body);
    }
    throw new UsageError(`${this.what}: cannot take the lock ${this.file} (other runs keep taking it)`);
  }

  /** Removes the lock if it is still ours. */
  release(): void {
    if (this.ino === undefined) return;
    const ino = this.ino;
    this.ino = undefined;
    const now = read(this.file);
    if (now?.ino !== ino || now.pid !== process.pid) return; // not ours any more (removed by hand)
    try {
      fs.unlinkSync(this.file);
    } catch {
      // already gone
    }
  }

  /** Puts a complete lock at `target`; its inode, or undefined when one is there already. */
  private link(target: string, body: string): number | undefined {
    let tmp: string;
    try {
      tmp = writeTempFileSync(target, body);
    } catch (err) {
      throw this.cannot(err);
    }
    try {
      const ino = fs.statSync(tmp).ino;
      fs.linkSync(tmp, target);
      return ino;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return undefined;
      // A file system without hard links (some network and FUSE ones): created exclusively and
      // written at once — a lock read empty meanwhile is taken for one being made, never for stale.
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EOPNOTSUPP') return this.create(target, body);
      throw this.cannot(err);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }

  private create(target: string, body: string): number | undefined {
    let fd: number;
    try {
      fd = fs.openSync(target, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY | (fs.constants.O_NOFOLLOW ?? 0), 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw this.cannot(err);
    }
    try {
      fs.writeSync(fd, body);
      return fs.fstatSync(fd).ino;
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * Removes a stale lock under `<lock>.break`; whoever then links first holds the lock. A
   * `.break` left by a run killed while breaking is itself stale and removed the same way.
   */
  private breakStale(body: string): void {
    const brk = `${this.file}.break`;
    if (this.link(brk, body) === undefined) {
      if (stale(read(brk))) removeIfStale(brk);
      else sleep(5); // another run is breaking it: its result is seen at the next attempt
      return;
    }
    try {
      // Judged again, as it is now: since we looked, another breaker may have removed the stale
      // lock and a run taken a fresh one (whose inode may well be the old one's, reused). Only a
      // breaker removes a lock and we are the only one, so what we judge is what we remove.
      if (stale(read(this.file))) fs.rmSync(this.file, { force: true });
    } finally {
      fs.rmSync(brk, { force: true });
    }
  }

  private inUse(seen: Seen): UsageError {
    if (seen.pid === undefined)
      return new RunLockHeld(`${this.what}: another svc run is starting with this file (its lock ${this.file} was just made)`).hint(
        'wait for it to finish, then run the command again',
      );
    const where = seen.host !== undefined && seen.host !== os.hostname() ? ` on host ${seen.host}` : '';
    return new RunLockHeld(`${this.what}: another svc run (pid ${seen.pid}${where}) is using this ${noun(this.what)}`).hint(
      where
        ? `wait for it to finish; remove ${this.file} only once no svc runs with this file on ${seen.host}`
        : `wait for it to finish, or remove ${this.file} if that process is not svc`,
    );
  }

  private cannot(err: unknown): UsageError {
    return new UsageError(`${this.what}: cannot create the lock file ${this.file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** `journal` for `--journal FILE`, `cursor file` for `--cursor-file FILE`. */
function noun(what: string): string {
  return (what.replace(/^--/, '').split(' ')[0] ?? 'file').replaceAll('-', ' ');
}

/** The lock at `file`, read without following a symlink; undefined when there is none. */
function read(file: string): Seen | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, noFollow('r'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // A symlink or an unreadable file: not ours to judge, and never taken for stale.
    return { ino: -1, mtimeMs: Date.now() };
  }
  try {
    const st = fs.fstatSync(fd);
    const text = fs.readFileSync(fd, 'utf8');
    const [pidLine, hostLine] = text.split('\n');
    const pid = Number(pidLine?.trim());
    const seen: Seen = { ino: st.ino, mtimeMs: st.mtimeMs };
    if (/^\d+$/.test(pidLine?.trim() ?? '') && pid > 0) seen.pid = pid;
    if (hostLine?.trim()) seen.host = hostLine.trim();
    return seen;
  } finally {
    fs.closeSync(fd);
  }
}

/** Dead owner on this host; an unreadable lock only once it is old. */
function stale(seen: Seen | undefined): boolean {
  if (seen === undefined || seen.ino === -1) return false;
  if (seen.pid === undefined) return Date.now() - seen.mtimeMs > UNREADABLE_STALE_MS;
  if (seen.host !== undefined && seen.host !== os.hostname()) return false;
  // Our own pid in a lock we do not hold: left by an earlier process that had our pid (a
  // container's pids start again at 1 each run).
  if (seen.pid === process.pid) return true;
  return !alive(seen.pid);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes `file` if it is stale once renamed aside (so a fresh one moved by mistake is put back). */
function removeIfStale(file: string): void {
  const aside = `${file}.${randomBytes(8).toString('hex')}.stale`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return; // gone already
  }
  if (!stale(read(aside))) {
    // Someone's fresh file: put it back (unless yet another took the place meanwhile).
    try {
      fs.linkSync(aside, file);
    } catch {
      // its place is taken: that run holds it
    }
  }
  fs.rmSync(aside, { force: true });
}

/** Waits `ms` without yielding (the lock is taken synchronously, before the run starts). */
function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
