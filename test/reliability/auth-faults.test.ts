/**
 * Faults at the token endpoint while a stored login is refreshed: the auth URL and the API go
 * through two proxies, so that `/oauth/token` can be refused, reset, cut short, hung or answered
 * badly while the API stays up. One clear line and the right exit code each time, the stored
 * login left whole; a refused connection (nothing sent) is tried again.
 *
 * The runs that wait for the endpoint to come back run the built bin/svc; the rest, and the
 * logins each test starts from, run svc in this process (`svcInProcess`, `cliLoginInProcess`, the
 * same program): the refresh and its errors are the client's, not the process's.
 *
 * Time: the tests run at the same time (`describe.concurrent`), each with a token-endpoint proxy
 * of its own (its planned fault and its outage meet only its own login and refresh).
 */
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { startFaultProxy, type Fault, type FaultProxy } from '../helpers/fault-proxy.js';
import { startSvc } from '../helpers/long-running.js';
import { cliLoginInProcess } from '../helpers/in-process-login.js';
import { editProfile, readConfig } from '../helpers/oauth.js';
import { expectCleanFailure } from '../helpers/reliability.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import type { TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let api: FaultProxy;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 49, tokenIssueIntervalMs: 0 });
  api = await startFaultProxy(sb.authUrl);
});
afterAll(async () => {
  await api.close();
  await sb.close();
});
/** The test's own proxy in front of the token endpoint, closed when the test ends. */
async function ownAuth(ctx: TestContext): Promise<FaultProxy> {
  const auth = await startFaultProxy(sb.authUrl);
  ctx.onTestFinished(() => auth.close());
  return auth;
}

const TOKEN = { method: 'POST', path: /^\/oauth\/token$/ };

/** A config dir with a login whose access token has just expired. */
async function expired(auth: FaultProxy): Promise<string> {
  const dir = tempDir();
  // Base and auth on two proxies (two origins): a login across hosts is confirmed with --yes.
  const r = await cliLoginInProcess(sb, dir, ['--yes'], { SVC_BASE_URL: `${api.origin}/api/v2`, SVC_AUTH_URL: auth.origin });
  expect(r.code, r.stderr).toBe(0);
  editProfile(dir, 'default', { expiresAt: Date.now() - 1000 });
  return dir;
}
const list = (dir: string, extra: string[] = []) =>
  svcInProcess(['prospects', 'list', '--limit', '1', '-o', 'json', ...extra], { env: { SVC_CONFIG_DIR: dir } });

describe.concurrent('faults at the token endpoint during a refresh', () => {
  it('refused while svc starts, then back: the refresh is tried again and succeeds', async (ctx) => {
    const { expect } = ctx;
    const auth = await ownAuth(ctx);
    const dir = await expired(auth);
    await auth.down();
    const run = startSvc(['prospects', 'list', '--limit', '1', '-o', 'json', '-v'], { env: { SVC_CONFIG_DIR: dir } });
    await run.waitFor('stderr', /^\* retry POST \S+ token request in \d+ ms: nothing was sent \(ECONNREFUSED\)/m, 15_000);
    await auth.up();
    expect(await run.exited, run.stderr()).toBe(0);
    expect(readConfig(dir).profiles.default!.expiresAt).toBeGreaterThan(Date.now());
  });

  it('refused for good: exit 1, one line naming the token endpoint; the login is left as it was', async (ctx) => {
    const { expect } = ctx;
    const auth = await ownAuth(ctx);
    const dir = await expired(auth);
    const before = readConfig(dir).profiles.default!;
    await auth.down();
    const r = await list(dir);
    await auth.up();
    expectCleanFailure(r, 1, /^error: POST http:\/\/127\.0\.0\.1:\d+\/oauth\/token: connection refused \(is the server running\?\)$/, {
      verbose: false,
    });
    expect(readConfig(dir).profiles.default).toEqual(before);
  });

  const cases: [string, Fault, RegExp, number][] = [
    [
      'a reset before the answer',
      { kind: 'reset-after' },
      /^error: POST \S+\/oauth\/token: connection closed by the server before the response was complete$/,
      1,
    ],
    [
      'an answer cut short',
      { kind: 'cut' },
      /^error: POST \S+\/oauth\/token: connection closed by the server before the response was complete$/,
      1,
    ],
    ['a hang past --timeout', { kind: 'hang' }, /^error: POST \S+\/oauth\/token: timed out waiting for the server \(see --timeout\)$/, 1],
    [
      'a 502 HTML page',
      { kind: 'answer', status: 502, headers: { 'content-type': 'text/html' }, body: '<html><body>Bad Gateway</body></html>' },
      /^error: token request refused \(HTTP 502\)/,
      1,
    ],
    [
      'a 200 that is not JSON',
      { kind: 'rewrite', body: () => '<html>ok</html>' },
      /^error: token endpoint: the answer has no access_token$/,
      1,
    ],
    [
      'a 200 without access_token',
      { kind: 'rewrite', body: () => '{"token_type":"Bearer"}' },
      /^error: token endpoint: the answer has no access_token$/,
      1,
    ],
    [
      '503 maintenance',
      {
        kind: 'answer',
        status: 503,
        headers: { 'retry-after': '3600' },
        body: '{"errors":[{"id":"scheduledServerMaintenance","title":"Scheduled maintenance"}]}',
      },
      /^error: token request refused \(HTTP 503, scheduledServerMaintenance\): Scheduled maintenance$/,
      1,
    ],
  ];
  it.for(cases)('%s: one clear line and the exit code', async ([_name, fault, message, code], ctx) => {
    const { expect } = ctx;
    const auth = await ownAuth(ctx);
    const dir = await expired(auth);
    const before = readConfig(dir).profiles.default!;
    const remove = auth.plan(TOKEN, [fault]);
    // A short --timeout for the hang alone: the other answers come through the proxy and the
    // sandbox in this worker's event loop beside the other tests, and at 0.5 s a loaded machine
    // timed them out (a fresh clone's first run, 2 of 8 cases).
    const r = await list(dir, fault.kind === 'hang' ? ['--timeout', '0.5'] : []);
    remove();
    expectCleanFailure(r, code, message);
    // Nothing half-written: the old login, or none of the answer.
    expect(readConfig(dir).profiles.default).toEqual(before);
    expect(r.stderr).not.toContain(before.refreshToken);
  });
});
