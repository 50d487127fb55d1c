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

  it('the Chromium tests (login, report --html) follow the rule: a notice when skipped, a failure when required', async () => {
    // One vitest, not one per setting (each is a whole vitest starting up, mostly importing): the
    // file runs twice in it, as two projects whose SVC_TEST_REQUIRE_PROGRAMS differ, in one worker
    // thread (no process to start for it), on a PATH where chromium is not, as on a machine without it.
    const config = path.join(tempDir(), 'programs.config.mjs');
    const project = (name: string, require: string) => ({
      test: {
        name,
        root: ROOT,
        include: ['test/e2e/browser.test.ts'],
        env: { SVC_TEST_REQUIRE_PROGRAMS: require },
        isolate: false,
        pool: 'threads',
      },
    });
    fs.writeFileSync(
      config,
      `export default ${JSON.stringify({ test: { experimental: { fsModuleCache: true }, projects: [project('skip', ''), project('required', '1')] } })};\n`,
    );
    const { code, out } = await promisify(execFile)(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--config',
        config,
        '--root',
        ROOT,
        '--reporter',
        'verbose',
        '--maxWorkers',
        '1',
      ],
      { cwd: ROOT, env: { ...process.env, PATH: tempDir(), CI: '1', NO_COLOR: '1' }, timeout: 120_000 },
    ).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, out: `${e.stdout}${e.stderr}` }),
    );
    // Skipped with the notice where not required, failed where required, and nothing else.
    expect(out).toContain(
      'skipped: the tests in headless Chromium (login, report --html): chromium is not installed (.ci/run installs it)',
    );
    expect(out).toContain('chromium is not installed and SVC_TEST_REQUIRE_PROGRAMS=1 requires it');
    const lines = (project: string) => out.split('\n').filter((l) => l.includes(`|${project}| test/e2e/browser.test.ts >`));
    // Where required, the file fails in its set-up (its five tests are then reported skipped).
    expect(
      lines('skip').filter((l) => l.startsWith(' ↓ ')),
      out,
    ).toHaveLength(5);
    expect(out).toMatch(/^ FAIL +\|required\| test\/e2e\/browser\.test\.ts > /m);
    expect(out).not.toMatch(/^ FAIL +\|skip\|/m);
    expect(out).toMatch(/Test Files +1 failed \| 1 skipped \(2\)/);
    expect(code, out).not.toBe(0);
  }, 240_000);
});
