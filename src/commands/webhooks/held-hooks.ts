/**
 * The webhooks a `listen --register` run holds, kept in an owner-only file of the data directory
 * while it runs. A run that cannot remove them on its way out (kill -9, a crash, a closed
 * laptop) leaves them registered, and a leftover pointing at the port the next listener takes
 * delivers every event to it a second time (a trial: each prospect printed and forwarded twice).
 * The next `--register` run against the same API finds the files of runs that are gone and
 * removes their webhooks with the cleanup tokens kept there.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataDir } from '../../auth/config-dir.js';
import { pidAlive } from '../../auth/lock.js';
import { UsageError } from '../../errors.js';
import { noFollow, othersMayWrite, ownedByAnother, writeFileAtomic } from '../../private-file.js';
import type { RegisteredWebhook } from './registration.js';

/** What one run's file says. */
interface HeldFile {
  kind: 'svc-listen-hooks';
  pid: number;
  host: string;
  baseUrl: string;
  hooks: RegisteredWebhook[];
}

/** Webhooks a run that is gone left registered, and its file (removed once they are dealt with). */
interface LeftBehind {
  file: string;
  pid: number;
  hooks: RegisteredWebhook[];
}

function folder(env: NodeJS.ProcessEnv): string {
  return path.join(dataDir(env), 'listen-hooks');
}

/** Larger than any run's file (a few hooks): not one of ours. */
const MAX_HELD_BYTES = 1 << 20;

/**
 * Checks the folder before a run reads or writes cleanup tokens there: a symlink, another user's
 * folder or one others may write is refused (tokens would sit where another user controls the
 * files, and a file planted there is read as a run's); one of ours others may read is made 0700.
 * @throws UsageError naming the folder
 */
export function checkHeldFolder(env: NodeJS.ProcessEnv): void {
  const dir = folder(env);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch {
    return; // none yet: made 0700 on the first write
  }
  if (!st.isDirectory() || ownedByAnother(st) || othersMayWrite(st))
    throw new UsageError(
      `${dir} is ${st.isSymbolicLink() ? 'a symlink' : !st.isDirectory() ? 'not a directory' : ownedByAnother(st) ? "another user's" : 'writable by others'}: refusing to keep webhook cleanup tokens there or to read its files`,
    ).hint(`remove it (svc makes it again, owner-only), or set SVC_DATA_DIR to a directory of your own`);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}

/**
 * A run's file as written by {@link recordHeld}, read without following a symlink; undefined for
 * anything else: another user's file or one others may write (its tokens are not this user's to
 * spend), a huge one, or hooks of the wrong shape (a `null` hook ended every later --register run
 * in "unexpected failure").
 */
function readHeld(file: string): Partial<HeldFile> | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, noFollow('r'));
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || ownedByAnother(st) || othersMayWrite(st) || st.size > MAX_HELD_BYTES) return undefined;
    const doc = JSON.parse(fs.readFileSync(fd, 'utf8')) as Partial<HeldFile> | null;
    if (typeof doc !== 'object' || doc === null || !Array.isArray(doc.hooks)) return undefined;
    const hook = (h: unknown) =>
      typeof h === 'object' &&
      h !== null &&
      typeof (h as RegisteredWebhook).id === 'string' &&
      typeof (h as RegisteredWebhook).cleanupToken === 'string' &&
      (h as RegisteredWebhook).cleanupToken !== '';
    return doc.hooks.every(hook) ? doc : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** A fresh file name for this run (several listeners may share a process: the tests). */
export function heldHooksFile(env: NodeJS.ProcessEnv): string {
  return path.join(folder(env), `${process.pid}-${randomBytes(4).toString('hex')}.json`);
}

/** Writes what this run holds now (after each registration, so a kill mid-way leaves none unknown). */
export async function recordHeld(file: string, baseUrl: string, hooks: RegisteredWebhook[]): Promise<void> {
  const doc: HeldFile = { kind: 'svc-listen-hooks', pid: process.pid, host: os.hostname(), baseUrl, hooks };
  // Twice at most: another listener ending may remove the empty folder between mkdir and write.
  for (let attempt = 0; ; attempt++) {
    await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      await writeFileAtomic(file, JSON.stringify(doc) + '\n', 0o600);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt > 0) throw err;
    }
  }
}

/**
 * Removes a run's file, and the folder once no run holds webhooks: a listener that ended well
 * leaves nothing in the data directory. A file already gone, or another run's still there, is fine.
 */
export function forgetHeld(file: string): void {
  fs.rmSync(file, { force: true });
  try {
    fs.rmdirSync(path.dirname(file));
  } catch {
    // Another run's file is there (ENOTEMPTY), or the folder is gone already.
  }
}

/** The files of runs on this machine, against this API, whose process is gone. */
export function leftBehind(env: NodeJS.ProcessEnv, baseUrl: string): LeftBehind[] {
  let names: string[];
  try {
    names = fs.readdirSync(folder(env));
  } catch {
    return [];
  }
  const found: LeftBehind[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const file = path.join(folder(env), name);
    const doc = readHeld(file);
    if (!doc) continue;
    if (doc.kind !== 'svc-listen-hooks' || doc.host !== os.hostname() || doc.baseUrl !== baseUrl) continue;
    if (typeof doc.pid !== 'number' || pidAlive(doc.pid)) continue;
    found.push({ file, pid: doc.pid, hooks: doc.hooks! });
  }
  return found;
}
