/**
 * The order test files start in (test/vitest.config.ts). vitest hands the next file in this order
 * to whichever worker is free, so the order decides which files share the two cores.
 *
 * A file either works (its wall time is mostly CPU: in-process listings, fuzz runs, spawned
 * builds) or waits (its wall time is mostly timers: rate windows, backoffs, kills, a slow owner).
 * Started longest first, as vitest does with the timings of an earlier run, the waiting files all
 * start together and hold every worker while the cores idle (a run measured here: the first ~100 s
 * of 185 were 45 % idle, the last 80 s 100 % busy). So files are ordered from a committed table of
 * each file's CPU and wall seconds (test/timings.tsv, written by `SVC_TEST_CPU_LOG=file`, see
 * test/helpers/temp-cleanup.ts): the waiting files by their wait, longest first, taking turns with
 * the working files by their CPU, longest first, so that at any time some files wait while others
 * keep the cores busy. The budget's files go first, before the turns: they assert shares of a
 * rate window and time spent waiting for it, and a run where they started beside the heaviest
 * working files missed a share by a few requests. Files missing from the table (new ones) go last,
 * by vitest's order. The table is the same on a fresh clone (CI) as here, so the order is too.
 *
 * Files with a process of their own (the `own-process` project: isolate) go after all of those.
 * vitest keeps a shared worker only while the next file in the queue can share it: when a shared
 * worker finished just as an isolated file was next, it was stopped, and the next shared file
 * started a worker that imported vitest and svc again (a run here started 15 workers for 5 slots
 * and 5 isolated files). Last, no shared worker is stopped before its work is done.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files that measure time and shares of a window: started first, while the cores are calmest. */
const CALM_FIRST = 'test/budget/';

/** A file waits when less than this share of its wall time is CPU. */
const WAITING_SHARE = 0.5;

interface Timing {
  cpu: number;
  wall: number;
}

/** test/timings.tsv: `cpu-seconds<TAB>wall-seconds<TAB>path` a line; the last line of a path wins. */
function readTimings(root: string): Map<string, Timing> {
  const out = new Map<string, Timing>();
  let text = '';
  try {
    text = readFileSync(path.join(root, 'test', 'timings.tsv'), 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const [cpu, wall, file] = line.split('\t');
    if (file && Number.isFinite(Number(cpu)) && Number.isFinite(Number(wall))) out.set(file, { cpu: Number(cpu), wall: Number(wall) });
  }
  return out;
}

export class WaitingFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const timings = readTimings(root);
    const key = (f: TestSpecification) => path.relative(root, f.moduleId).split(path.sep).join('/');
    const waiting: [TestSpecification, number][] = [];
    const working: [TestSpecification, number][] = [];
    const unknown: TestSpecification[] = [];
    const calm: [TestSpecification, number][] = [];
    const isolated: TestSpecification[] = [];
    for (const f of sorted) {
      const t = timings.get(key(f));
      if (f.project.config.isolate !== false) isolated.push(f);
      else if (!t) unknown.push(f);
      else if (key(f).startsWith(CALM_FIRST)) calm.push([f, t.wall]);
      else if (t.cpu < t.wall * WAITING_SHARE) waiting.push([f, t.wall - t.cpu]);
      else working.push([f, t.cpu]);
    }
    const byWeight = (a: [TestSpecification, number], b: [TestSpecification, number]) => b[1] - a[1];
    calm.sort(byWeight);
    waiting.sort(byWeight);
    working.sort(byWeight);
    const out: TestSpecification[] = calm.map(([f]) => f);
    for (let i = 0; i < Math.max(waiting.length, working.length); i++) {
      if (i < waiting.length) out.push(waiting[i]![0]);
      if (i < working.length) out.push(working[i]![0]);
    }
    // The longest isolated file first, so that the run does not end on it alone.
    const wall = (f: TestSpecification) => timings.get(key(f))?.wall ?? 0;
    isolated.sort((a, b) => wall(b) - wall(a));
    return [...out, ...unknown, ...isolated];
  }
}
