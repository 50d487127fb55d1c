/**
 * `upsert --plan` (and `update --input --plan`) with rows that would fail: it exits 5, the code the
 * run then ends with (it exited 0, a trial), while `--dry-run` only shows and exits 0. On a
 * terminal, where stdout and stderr both show, each row's error is said once — in the plan — not
 * also on stderr (a trial saw each twice); off a terminal, and with `-o json`, the plan on stdout
 * and the messages on stderr each stay whole. In process against the sandbox, over HTTP; the
 * terminal is a Context whose stdout and stderr are terminals (test/helpers/terminal-context.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { keyedWriteHandler } from '../../src/commands/bulk-run/upsert-run.js';
import type { GlobalOptions } from '../../src/runtime/context.js';
import { resourceByType } from '../../src/registry/index.js';
import { SvcError } from '../../src/errors.js';
import { inputFile } from '../helpers/bulk.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { terminalContext } from '../helpers/terminal-context.js';

let sb: TestSandbox;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  const s = await sandboxWithEnv({ seed: 5 });
  sb = s.sb;
  env = baseEnv(s.env());
});
afterAll(() => sb.close());

const svc = (args: string[], tty = false) => runInProcess(args, env, { timeoutMs: 30_000, tty });
/** The error of row 2, which has no address to match by. */
const PROBLEM = 'emails: missing: the row is matched by it (--match emails)';
const file = () => inputFile('plan-exit.csv', 'Email,First Name\nplan.one@exit.test,A\n,B\nplan.three@exit.test,C\n');
const times = (text: string, part: string) => text.split(part).length - 1;
/** A terminal's text with the lines that were broken to its width joined again (continuations are indented). */
const unwrapped = (text: string) => text.replace(/\n +/g, ' ');

/** The plan on a terminal (stdout and stderr both one): what a person sees, and the exit code. */
async function onTerminal(globals: Partial<GlobalOptions> = {}): Promise<{ seen: string; stdout: string; code: number }> {
  const t = terminalContext(env, { confirm: () => false, globals });
  let code = 0;
  try {
    await keyedWriteHandler(t.ctx, resourceByType('prospect')!, 'upsert', { input: file(), match: 'email', plan: true });
  } catch (err) {
    if (!(err instanceof SvcError)) throw err;
    code = err.exitCode;
  } finally {
    await t.ctx.close();
  }
  await new Promise((r) => setImmediate(r));
  return { seen: unwrapped(t.stdout() + t.stderr()), stdout: unwrapped(t.stdout()), code };
}

it('a plan with a row that would fail exits 5, as the run does; --dry-run exits 0; a plan of rows that all go through exits 0', async () => {
  const plan = await svc(['prospects', 'upsert', '--input', file(), '--match', 'email', '--plan']);
  expect(plan.code, plan.stderr).toBe(5);
  expect(plan.stderr).toMatch(
    /^error: 1 of 3 rows would fail \(1 failed, 0 ambiguous\): the run would do the others and exit 5; nothing was written$/m,
  );
  expect(plan.stderr).toMatch(/^hint: the plan names each row and why: fix them in .*plan-exit\.csv and plan again$/m);
  const dry = await svc(['prospects', 'upsert', '--input', file(), '--match', 'email', '--dry-run']);
  expect(dry.code, dry.stderr).toBe(0);
  expect(dry.stdout).toContain(`row 2: failed: invalid: ${PROBLEM}`);
  const good = inputFile('plan-exit-good.csv', 'Email,First Name\nplan.good@exit.test,G\n');
  expect((await svc(['prospects', 'upsert', '--input', good, '--match', 'email', '--plan'])).code).toBe(0);
  // The run after the plan ends as the plan said.
  const run = await svc(['prospects', 'upsert', '--input', file(), '--match', 'email']);
  expect(run.code, run.stderr).toBe(5);
});

it('on a terminal each row error shows once; off it, and with -o json, stdout and stderr each keep it', async () => {
  const term = await onTerminal();
  expect(times(term.seen, PROBLEM), term.seen).toBe(1);
  expect(term.stdout).toContain(`row 2: failed: invalid: ${PROBLEM}\n`);
  expect(term.code).toBe(5);

  // -o json on a terminal: the JSON is data, the line on stderr a message; both stay.
  const json = await onTerminal({ output: 'json' });
  expect(json.code).toBe(5);
  expect(JSON.parse(json.stdout).rows[1]).toMatchObject({ row: 2, action: 'failed', error: `invalid: ${PROBLEM}` });
  expect(times(json.seen, PROBLEM)).toBe(2);

  // Piped, and stdout on a terminal with stderr sent elsewhere (2>log): each stream whole.
  for (const tty of [false, true]) {
    const r = await svc(['prospects', 'upsert', '--input', file(), '--match', 'email', '--plan'], tty);
    expect(r.code, r.stderr).toBe(5);
    // stdout on a terminal is broken to its width; the unbroken line is checked in a pipe.
    expect(tty ? unwrapped(r.stdout) : r.stdout).toContain(`row 2: failed: invalid: ${PROBLEM}\n`);
    expect(r.stderr).toContain(`row 2: ${PROBLEM}\n`);
  }
  const piped = await svc(['prospects', 'upsert', '--input', file(), '--match', 'email', '--plan', '-o', 'json']);
  expect(piped.code).toBe(5);
  expect(JSON.parse(piped.stdout).bill).toMatchObject({ failed: 1 });
  expect(piped.stderr).toContain(`row 2: ${PROBLEM}\n`);
});
