import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { WaitingFirst } from './helpers/sequencer.js';

/**
 * Files that must have a process of their own: one replaces a Node module with `vi.mock`, two
 * measure the heap (other files' garbage would count), two measure time.
 */
const OWN_PROCESS = [
  'test/unit/reliability/signature-constant-time.test.ts',
  'test/sandbox/hostile-requests.test.ts',
  'test/unit/bulk/readers.test.ts',
  'test/unit/speed-check.test.ts',
  'test/unit/output/query-bounds.test.ts',
];

// The suite runs in a time zone far from UTC (unless TZ is set): the API writes its date-times
// zone-less, meaning UTC, and code that read them as local time passed every test on a machine
// set to UTC (the age of a mirror, an upsert's unchanged date-time: src/api-time.ts). Workers,
// bin/svc and sandboxes inherit it.
process.env.TZ ??= 'America/Los_Angeles';

// A CA bundle named in NODE_EXTRA_CA_CERTS is read and parsed by every Node process at start-up:
// ~80 ms of CPU a process on this machine (a bare `node -e 0`: 110 → 30 ms), where the suite
// starts some 300 (bin/svc, sandboxes, shells' children). No test makes a TLS connection (every
// server is a local sandbox over HTTP), so workers and children start without it, as in CI
// (.ci/run unsets it) and the bench (bench/lib/measure.mjs): with it, the suite took 166 s here
// against 146 s without.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    // Temporary files under a folder named with a space and CJK, on a RAM file system where
    // there is one (test/helpers/temp-root.ts); earlier runs' PostgreSQL schemas that were left
    // behind dropped (test/helpers/pg-sweep.ts).
    globalSetup: ['test/helpers/temp-root.ts', 'test/helpers/pg-sweep.ts'],
    setupFiles: ['test/helpers/temp-cleanup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores, but most e2e time is spent waiting on child processes, servers and timers: five
    // files at a time keep both cores busy (non-reliability suite 114 s → 86 s on this machine with
    // four; the whole suite 146 s with four, 139 s with five; six ran 134 and 152 s, within this
    // machine's noise, for more CPU: each worker imports the modules again). Files that mostly wait
    // run their independent tests at once (describe.concurrent), which overlaps waits for free.
    maxWorkers: 5,
    pool: 'forks',
    // Transformed modules kept on disk (node_modules/.experimental-vitest-cache) between runs: the
    // transform and import phases were ~40 of the suite's CPU-s, and a rerun after an edit
    // transforms only what changed (test:quick 75 → 59 CPU-s on a second run). A fresh clone's
    // first run pays them once.
    experimental: { fsModuleCache: true },
    // Without timings of an earlier run, the files that wait (rate windows, kills, backoffs) start
    // first so that none of them runs alone at the end (test/helpers/sequencer.ts).
    sequence: { sequencer: WaitingFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: OWN_PROCESS,
          // No module-level state in src/ (src/README.md), so test files can share a worker's
          // module graph instead of importing svc afresh per file: the import phase was most of
          // the unit and in-process files' CPU time (unit + sandbox: 119 → 65 CPU-s).
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'own-process', include: OWN_PROCESS },
      },
    ],
  },
});
