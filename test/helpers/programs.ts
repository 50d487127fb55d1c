/**
 * Tests that need a program outside Node (chromium, zsh, fish, tmux) skip with a one-line
 * notice naming it when it is not installed, so that `npm test` passes on a fresh machine.
 * `.ci/run` installs them all and sets SVC_TEST_REQUIRE_PROGRAMS=1, which turns such a skip into
 * a failure: CI still runs every test.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The variable `.ci/run` sets: a missing program fails its tests instead of skipping them. */
export const REQUIRE_VAR = 'SVC_TEST_REQUIRE_PROGRAMS';

/** Where `program` (a name looked up on PATH, or an absolute path) is, if it can be run. */
export function locate(program: string, envPath = process.env.PATH ?? ''): string | undefined {
  const candidates = path.isAbsolute(program)
    ? [program]
    : envPath
        .split(path.delimiter)
        .filter(Boolean)
        .map((d) => path.join(d, program));
  return candidates.find((p) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  });
}

/** Whether `program` can be run (see {@link locate}). */
export function isInstalled(program: string, envPath = process.env.PATH ?? ''): boolean {
  return locate(program, envPath) !== undefined;
}

/** What to do with the tests that need a program. */
export type ProgramPlan = 'run' | 'skip' | 'fail';

/** `run` when installed; otherwise `fail` when the environment requires every program, else `skip`. */
export function planFor(installed: boolean, env: NodeJS.ProcessEnv = process.env): ProgramPlan {
  if (installed) return 'run';
  return env[REQUIRE_VAR] === '1' ? 'fail' : 'skip';
}

const noticed = new Set<string>();

/**
 * True when the tests that need `program` should be skipped (it is missing and not required);
 * prints the notice once per program and test file. Use as `describe.skipIf(without('zsh'))`,
 * with {@link requireProgram} in the block's `beforeAll`.
 */
export function without(program: string, what = `tests that need ${path.basename(program)}`): boolean {
  if (planFor(isInstalled(program)) !== 'skip') return false;
  if (!noticed.has(program)) {
    noticed.add(program);
    process.stderr.write(`skipped: ${what}: ${path.basename(program)} is not installed (.ci/run installs it)\n`);
  }
  return true;
}

/** Throws a clear error when `program` is missing (reached only when missing programs are required). */
export function requireProgram(program: string): void {
  if (!isInstalled(program)) {
    throw new Error(
      `${path.basename(program)} is not installed and ${REQUIRE_VAR}=1 requires it: apt-get install -y ${path.basename(program)} (.ci/run does it)`,
    );
  }
}
