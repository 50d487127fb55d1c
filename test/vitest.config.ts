import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/temp-cleanup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores, but most e2e time is spent waiting on child processes, servers and timers: four
    // files at a time keep both cores busy (non-reliability suite 114 s → 86 s on this machine).
    maxWorkers: 4,
    pool: 'forks',
  },
});
