/**
 * `--query` past its bounds against the sandbox: one usage error line naming the fix, exit 2,
 * nothing on stdout, within seconds (in-process: the program and Context of bin/svc).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: () => Record<string, string>;
beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 30 }));
});
afterAll(() => sb?.close());

// A list doubled 40 times (`[@,@] | []`) is left to test/unit/output/query-bounds.test.ts, which
// checks the same bound with the heap measured: it is stopped only once the list holds 2 million
// elements, ~2 CPU-s of building here for the same error line as the two below.
it.each([
  ['a value holding itself twice, 40 times', Array(40).fill('[@,@]').join(' | ')],
  ['a 400-million-character pad', "pad_right('', `400000000`)"],
])('list --query with %s: exit 2, one line naming the fix', async (_what, expression) => {
  const started = Date.now();
  const r = await runInProcess(['prospects', 'list', '--all', '--query', expression, '-o', 'json'], env(), { timeoutMs: 30_000 });
  expect(r.threw, String(r.threw)).toBeUndefined();
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(
    /^error: --query: the expression builds more than 64 MiB \(4× its input at most\): filter or pick fields first, or post-process -o json with jq\n/,
  );
  // With -o json the error is also given as a JSON document, on the next line; no stack, no "unexpected failure".
  expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(2);
  expect(Date.now() - started).toBeLessThan(15_000);
});
