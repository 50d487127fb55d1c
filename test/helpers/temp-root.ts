/**
 * Global set-up of the suite (vitest.config.ts), unless TMPDIR is set: the suite's temporary
 * files go to a folder whose name has a space and CJK characters in it, on a RAM file system when
 * the machine has one (/dev/shm). Every process the tests start (bin/svc, sandboxes, shells)
 * inherits TMPDIR, and os.tmpdir() follows it.
 *
 * - The name: people keep files in "My Documents" and in folders named in their own script.
 *   Every config dir, input file, journal, mirror and report of the suite lives under it, so a
 *   path that svc or a completion script splits at a space, or a message a test matches with
 *   `\S+`, fails here. A run under such a folder found fish's file completion keeping the typed
 *   escapes (`My\ Files/`) and finding nothing, and 16 tests that assumed paths without spaces.
 * - The place: a run makes a few thousand directories, and svc writes them as it does a user's,
 *   with fsync, renames and locks. On a disk those block a worker's event loop, which in-process
 *   sandboxes and concurrent tests share (a CPU profile of the suite: ~3 s in fsync, ~7 s in open,
 *   rename, unlink, mkdir and rmdir); on tmpfs they cost little. The code under test is the same.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** statfs's f_type of tmpfs. */
const TMPFS_MAGIC = 0x01021994;

function onTmpfs(dir: string): boolean {
  try {
    return fs.statfsSync(dir).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
}

export default function setup(): (() => void) | undefined {
  if (process.env.TMPDIR) return undefined;
  let root: string;
  try {
    if (!onTmpfs('/dev/shm')) throw new Error('not a tmpfs');
    root = fs.mkdtempSync(path.join('/dev/shm', 'svc-test-'));
  } catch {
    // No RAM file system, or not one this user may write: the disk, named the same way.
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
  }
  const named = path.join(root, 'temp 一時');
  fs.mkdirSync(named);
  process.env.TMPDIR = named;
  return () => {
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
