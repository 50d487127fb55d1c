/**
 * The rule for tests that need an outside program (test/helpers/programs.ts): run when it is
 * installed, skip when it is not, fail instead of skipping when SVC_TEST_REQUIRE_PROGRAMS=1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInstalled, planFor, requireProgram } from '../helpers/programs.js';
import { tempDir } from '../helpers/run-svc.js';

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
});
