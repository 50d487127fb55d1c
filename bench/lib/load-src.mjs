/**
 * A source tree's modules for a bench that compares trees in one process (an A/B of `src/`):
 * the named exports are bundled by esbuild into node_modules/.cache (where packages resolve)
 * and imported. The built dist/ is one bundle whose modules cannot be imported one by one.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { ROOT } from './sandbox-process.mjs';

/**
 * `exports` are export lines relative to `root` (a tree: `export { X } from './src/a.js'`; a src/ folder: `'./a.js'`);
 * `tag` tells apart the bundles of one run (the same tree may be loaded twice to measure noise).
 */
export async function loadSrc(root, tag, exports) {
  const dir = join(ROOT, 'node_modules', '.cache', 'svc-bench');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `${tag}-${process.pid}.mjs`);
  await build({
    stdin: { contents: exports.join('\n'), resolveDir: root, loader: 'ts', sourcefile: `${tag}.ts` },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.18',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  try {
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(outfile, { force: true });
  }
}
