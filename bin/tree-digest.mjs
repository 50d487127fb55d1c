// One digest of the contents of files and folders (walked in name order), for the work that can
// be skipped when none of what it reads has changed: the build (bin/build.mjs) and the checks of
// `npm test` (test/run.mjs). Not a command; package.json's "bin" does not install it.
import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** SHA-256 over each path and its bytes; a folder stands for every file under it. */
export function treeDigest(paths) {
  const h = createHash('sha256');
  const add = (p) => {
    if (fs.statSync(p).isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) add(`${p}/${name}`);
    } else h.update(`${p}\0`).update(fs.readFileSync(p)).update('\0');
  };
  for (const p of paths) add(p);
  return h.digest('hex');
}
