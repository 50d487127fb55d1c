/**
 * Usage errors of login, logout and profiles, in-process: a wrong profile name gets "did you
 * mean", a login missing what it needs says what to add, and nothing is sent. (The e2e tests keep
 * one login usage error through the built binary.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/run-svc.js';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

/** A config dir alone: no base URL, token or client from the environment. */
const only = (dir: string, extra: Record<string, string> = {}) =>
  server.env({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: undefined, SVC_AUTH_URL: undefined, SVC_TOKEN: undefined, ...extra });

describe('did you mean: profiles', () => {
  it('--profile, profiles use, auth status and logout name the near miss', async () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({ profiles: { work: { baseUrl: server.baseUrl }, staging: { baseUrl: server.baseUrl } } }),
      { mode: 0o600 },
    );
    const p = await server.run(['--profile', 'wrok', 'prospects', 'list'], only(dir));
    expect(p.code).toBe(2);
    expect(p.stderr).toMatch(/^error: no profile named "wrok" \(did you mean "work"\?\) \(profiles: work, staging\)$/m);
    expect(p.stderr).not.toMatch(/no API base URL/);
    const use = await server.run(['profiles', 'use', 'stagng'], only(dir));
    expect(use.stderr).toMatch(/did you mean "staging"\?/);
    const status = await server.run(['--profile', 'wrok', 'auth', 'status'], only(dir));
    expect(status.code).toBe(3);
    expect(status.stderr).toMatch(/^hint: there is no profile "wrok" \(did you mean "work"\?\); profiles: work, staging$/m);
    const logout = await server.run(['--profile', 'stagin', 'logout'], only(dir));
    expect(logout.code).toBe(2);
    expect(logout.stderr).toMatch(/no profile named "stagin" \(did you mean "staging"\?\)/);
    expect(server.received).toEqual([]);
  });
});

describe('login usage errors: nothing sent', () => {
  it.each([
    [['login', '--no-browser'], { SVC_CLIENT_ID: 'x', SVC_CLIENT_SECRET: 'y' }, /no API base URL/],
    [['login', '--no-browser', '--base-url', 'http://127.0.0.1:1/api/v2'], {}, /no OAuth client id/],
    [
      ['login', '--no-browser', '--base-url', 'http://127.0.0.1:1/api/v2', '--port', '70000'],
      { SVC_CLIENT_ID: 'x', SVC_CLIENT_SECRET: 'y' },
      /--port 70000/,
    ],
    [
      ['login', '--no-browser', '--base-url', 'http://127.0.0.1:1/api/v2', '--scopes', 'prospects'],
      { SVC_CLIENT_ID: 'x', SVC_CLIENT_SECRET: 'y' },
      /--scopes: prospects is not/,
    ],
  ])('%j', async (args, env, message) => {
    const r = await server.run(args as string[], only(tempDir(), env as Record<string, string>));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expect(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('error:')),
    ).toHaveLength(1);
    expect(r.sent).toEqual([]);
  });

  it('--with-token: empty stdin is a usage error', async () => {
    const r = await server.run(['login', '--with-token', '--base-url', server.baseUrl], only(tempDir()), { input: '\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --with-token: no token on stdin/);
    expect(r.sent).toEqual([]);
  });
});
