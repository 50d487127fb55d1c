/**
 * `svc --sandbox` using a `svc sandbox` someone started: that server serves an org of its own, so
 * on a terminal svc says so once, naming the default org it stands in front of and how to reach
 * it (a trial's records "vanished" and its writes went to the other org without a word). Off a
 * terminal, and with no default org to stand in front of, nothing is said. In process; the running
 * `svc sandbox` is a sandbox of this test process, announced by its state file as one announces
 * itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { announceSandbox, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = (await sandboxWithEnv({ seed: 3 })).sb;
});
afterAll(() => sb.close());

/** A config folder whose data folder announces `sb` as a running `svc sandbox`; with `orgFile`, a default org too. */
function announced(orgFile: boolean): NodeJS.ProcessEnv {
  const dir = tempDir();
  announceSandbox(dir, sb);
  if (orgFile) fs.writeFileSync(path.join(dir, 'data', 'sandbox-org.json'), '{}', { mode: 0o600 });
  return baseEnv({ SVC_CONFIG_DIR: dir });
}

const NOTICE = /^--sandbox: using the svc sandbox running at (\S+) \(pid (\d+)\), which serves its own org;/m;

it('on a terminal, with a default org it stands in front of: one line naming it and the org file', async () => {
  const env = announced(true);
  const r = await runInProcess(['--sandbox', 'prospects', 'list', '--limit', '1', '-o', 'json'], env, { stderrTty: true, columns: 200 });
  expect(r.code, r.stderr).toBe(0);
  const m = NOTICE.exec(r.stderr);
  expect(m, r.stderr).not.toBeNull();
  expect(m![1]).toBe(sb.baseUrl);
  expect(Number(m![2])).toBe(process.pid);
  expect(r.stderr).toContain(`stop it to use the org in ${path.join(env.SVC_CONFIG_DIR!, 'data', 'sandbox-org.json')}`);
  expect(r.stderr.match(/--sandbox: using/g)).toHaveLength(1);
  expect(JSON.parse(r.stdout)).toHaveLength(1);
});

it('off a terminal, or with no default org: nothing said', async () => {
  const piped = await runInProcess(['--sandbox', 'prospects', 'list', '--limit', '1', '-o', 'json'], announced(true));
  expect(piped.code, piped.stderr).toBe(0);
  expect(piped.stderr).not.toMatch(NOTICE);
  const none = await runInProcess(['--sandbox', 'prospects', 'list', '--limit', '1', '-o', 'json'], announced(false), { stderrTty: true });
  expect(none.code, none.stderr).toBe(0);
  expect(none.stderr).not.toMatch(NOTICE);
});
