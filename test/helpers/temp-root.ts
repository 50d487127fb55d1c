/**
 * Global set-up of the suite (vitest.config.ts): when the machine has a RAM file system at
 * /dev/shm and TMPDIR is not set, the suite's temporary files go there. A run makes a few
 * thousand directories (config dirs, journals, org files, SQLite mirrors, ledgers), and svc
 * writes them as it does a user's: with fsync, renames and locks. On a disk those block a
 * worker's event loop, which in-process sandboxes and concurrent tests share (a CPU profile of
 * the suite: ~3 s in fsync, ~7 s in open, rename, unlink, mkdir and rmdir); on tmpfs they cost
 * little. The code under test is the same; only where the files live changes. Every process the
 * tests start (bin/svc, sandboxes, shells) inherits TMPDIR, and os.tmpdir() follows it.
 */
import fs from 'node:fs';
import path from 'node:path';

/** statfs's f_type of tmpfs. */
const TMPFS_MAGIC = 0x01021994;

export default function setup(): (() => void) | undefined {
  if (process.env.TMPDIR) return undefined;
  let root: string;
  try {
    if (fs.statfsSync('/dev/shm').type !== TMPFS_MAGIC) return undefined;
    root = fs.mkdtempSync(path.join('/dev/shm', 'svc-test-'));
  } catch {
    return undefined;
  }
  process.env.TMPDIR = root;
  return () => {
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
