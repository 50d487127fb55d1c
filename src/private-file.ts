/**
 * Files that hold secrets or private data (tokens, keys, org copies, caches): written owner-only
 * and atomically, so that another user never reads them and a crash never leaves half a file. A
 * leaf module.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Writes `text` to `file` (0600) through a temporary file renamed over it; a new directory is made 0700. */
export function writePrivateFileSync(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.renameSync(tmp, file);
}
