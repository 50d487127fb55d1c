/**
 * The README's command reference for this build of svc. Not reached by any command: bin/docs.mjs
 * (`npm run docs`) writes it into README.md and test/unit/readme-reference.test.ts checks it.
 */
import { renderReference } from '../commands/completion/reference.js';
import type { App } from '../runtime/app.js';
import { buildProgram } from './program.js';
import { VERSION } from './version.js';

/** The reference rendered from the whole command tree, independent of the terminal and environment. */
export function commandReference(): string {
  const app: App = {
    io: {
      stdout: process.stdout,
      stderr: process.stderr,
      get stdin() {
        return process.stdin;
      },
      stdoutIsTTY: false,
      stderrIsTTY: false,
      stdinIsTTY: false,
      color: false,
      columns: 80,
    },
    env: {},
    exitCode: 0,
    signal: new AbortController().signal,
  };
  // No argv: every resource command is built with all its operations.
  return renderReference(buildProgram(app, VERSION));
}
export { spliceReference } from '../commands/completion/reference.js';
