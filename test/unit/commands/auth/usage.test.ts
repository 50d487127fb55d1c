/**
 * Usage errors of login, logout and profiles, in-process: a wrong profile name gets "did you
 * mean", names that are Object.prototype's keys are no profiles, a login missing what it needs
 * says what to add, and nothing is sent. (The e2e tests keep one login usage error, and the
 * config directory behind a symlink, through the built binary.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanFailure } from '../../../helpers/reliability.js';
import { tempDir } from '../../../helpers/run-svc.js';
import { startUnsent, type UnsentResult, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

/** An in-process result as the reliability checks read a process's (a throw has no exit code). */
const asProcess = (r: UnsentResult) => ({ code: r.code ?? null, signal: null, stdout: r.stdout, stderr: r.stderr });

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

describe('never logged in: no base URL', () => {
  it('a command that needs the API exits 3 (auth: not logged in), naming the login of the profile given and SVC_BASE_URL', async () => {
    // It exited 2, a usage error, where the README's exit codes say 3 is "not logged in" (a trial).
    const r = await server.run(['prospects', 'list'], only(tempDir()));
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      'error: no API base URL for profile "default": not logged in\nhint: run `svc login --base-url URL`, or set SVC_BASE_URL (with SVC_TOKEN), or try the local sandbox with `svc --sandbox ...`\n',
    );
    const work = await server.run(['--profile', 'work', 'prospects', 'get', '1'], only(tempDir()));
    expect(work.code).toBe(3);
    expect(work.stderr).toMatch(/^hint: run `svc --profile work login --base-url URL`, or set SVC_BASE_URL/m);
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

describe('profile names are own keys only', () => {
  it('constructor, __proto__, toString: no such profile (remove, use), not logged in (--profile)', async () => {
    const dir = tempDir();
    const env = only(dir);
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ profiles: { work: { baseUrl: 'http://127.0.0.1:1/api/v2' } } }), {
      mode: 0o600,
    });
    for (const name of ['constructor', '__proto__', 'toString']) {
      const rm = await server.run(['profiles', 'remove', name, '--yes'], env);
      expectCleanFailure(asProcess(rm), 2, new RegExp(`^error: no profile named "${name}"`));
      expect(rm.stderr).not.toContain('Removed');
      const use = await server.run(['profiles', 'use', name], env);
      expectCleanFailure(asProcess(use), 2, new RegExp(`^error: no profile named "${name}"`));
      const status = await server.run(['--profile', name, 'auth', 'status'], env);
      expectCleanFailure(asProcess(status), 3, new RegExp(`^error: not logged in \\(profile "${name}"\\)`));
    }
    const list = await server.run(['profiles', 'list', '-o', 'json'], env);
    expect(JSON.parse(list.stdout).map((p: { name: string }) => p.name)).toEqual(['work']);
  });
});
