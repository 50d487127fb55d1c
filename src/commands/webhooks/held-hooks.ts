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
import { writeFileAtomic } from '../../private-file.js';
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
    let doc: Partial<HeldFile>;
    try {
      doc = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<HeldFile>;
    } catch {
      continue;
    }
    if (doc.kind !== 'svc-listen-hooks' || doc.host !== os.hostname() || doc.baseUrl !== baseUrl) continue;
    if (typeof doc.pid !== 'number' || !Array.isArray(doc.hooks) || pidAlive(doc.pid)) continue;
    found.push({ file, pid: doc.pid, hooks: doc.hooks });
  }
  return found;
}
