/**
 * The order test files start in (test/vitest.config.ts). With the timings of an earlier run in
 * vitest's cache, vitest's own order is kept: longest first. Without them (a fresh clone: CI,
 * `.ci/run`) vitest starts the largest files first, and a file that spends half a minute waiting
 * on rate windows, kills or backoffs (test/budget, test/reliability…) could start last and run
 * alone at the end while the short unit files were long done. So, lacking timings, the folders
 * whose files wait start first, in the order below, each by size as vitest has it; unit and
 * sandbox files, many and short, fill the end.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Folders whose files wait on processes, windows and timers: started first, in this order. */
const WAITING_FIRST = ['test/budget/', 'test/reliability/', 'test/mirror/', 'test/events/', 'test/runs/', 'test/dedupe/', 'test/e2e/'];

export class WaitingFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const key = (f: TestSpecification) => path.relative(root, f.moduleId).split(path.sep).join('/');
    const timed = files.filter((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${key(f)}`)).length;
    // Most files timed: vitest's longest-first order is the better one.
    if (timed * 2 >= files.length) return sorted;
    const rank = (f: TestSpecification) => {
      const i = WAITING_FIRST.findIndex((dir) => key(f).startsWith(dir));
      return i === -1 ? WAITING_FIRST.length : i;
    };
    // Array.prototype.sort is stable: within a folder, vitest's order stays.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
