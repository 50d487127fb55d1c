/**
 * The rule for tests that need an outside program (test/helpers/programs.ts): run when it is
 * installed, skip when it is not, fail instead of skipping when SVC_TEST_REQUIRE_PROGRAMS=1.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isInstalled, planFor, requireProgram } from '../helpers/programs.js';
import { ROOT, tempDir } from '../helpers/run-svc.js';

describe('programs the tests need', () => {
  it('finds an executable on PATH or by absolute path, not a missing or non-executable one', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'data'), 'x', { mode: 0o644 });
    expect(isInstalled('tool', `/nonexistent${path.delimiter}${dir}`)).toBe(true);
    expect(isInstalled(path.join(dir, 'tool'), '')).toBe(true);
    expect(isInstalled('data', dir)).toBe(false);
    expect(isInstalled('no-such-program-svc', dir)).toBe(false);
    expect(isInstalled(dir, '')).toBe(false); // a directory
  });

  it('runs when installed, skips when missing, fails when CI requires every program', () => {
    expect(planFor(true, {})).toBe('run');
    expect(planFor(true, { SVC_TEST_REQUIRE_PROGRAMS: '1' })).toBe('run');
    expect(planFor(false, {})).toBe('skip');
    expect(planFor(false, { SVC_TEST_REQUIRE_PROGRAMS: '1' })).toBe('fail');
  });

  it('requireProgram names the missing program and how to install it', () => {
    expect(() => requireProgram('/nonexistent/chromium')).toThrow(
      /chromium is not installed and SVC_TEST_REQUIRE_PROGRAMS=1 requires it: apt-get install -y chromium/,
    );
    expect(() => requireProgram(process.execPath)).not.toThrow();
  });

  it('the Chromium tests of report --html follow the rule: a notice when skipped, a failure when required', async () => {
    // A PATH where chromium is not: vitest runs the file as on a machine without it.
    const run = (require: string) =>
      promisify(execFile)(
        process.execPath,
        [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/vitest.config.ts', 'test/e2e/report-html.test.ts'],
        {
          cwd: ROOT,
          env: { ...process.env, PATH: tempDir(), SVC_TEST_REQUIRE_PROGRAMS: require, CI: '1', NO_COLOR: '1' },
          timeout: 120_000,
        },
      ).then(
        (r) => ({ code: 0, out: r.stdout + r.stderr }),
        (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, out: `${e.stdout}${e.stderr}` }),
      );
    // The two runs at once: each is a whole vitest starting up, mostly waiting on imports.
    const [skipped, required] = await Promise.all([run(''), run('1')]);
    expect(skipped.code, skipped.out).toBe(0);
    expect(skipped.out).toContain('skipped: the report --html tests in headless Chromium: chromium is not installed (.ci/run installs it)');
    expect(skipped.out).toMatch(/3 skipped/);
    expect(required.code, required.out).not.toBe(0);
    expect(required.out).toContain('chromium is not installed and SVC_TEST_REQUIRE_PROGRAMS=1 requires it');
  }, 240_000);
});
