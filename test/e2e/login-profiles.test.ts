/**
 * Around the login: --with-token, logout, profiles list|use|remove, --profile/SVC_PROFILE,
 * token endpoint errors, usage errors before anything is sent (one here through the binary, the
 * others in-process in test/unit/commands/auth/usage.test.ts), file modes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { cliLogin, readConfig } from '../helpers/oauth.js';
import { runInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { cliLoginInProcess } from '../helpers/in-process-login.js';
import { baseEnv, json, runSvc, tempDir } from '../helpers/run-svc.js';
import type { TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 5, tokenIssueIntervalMs: 0 });
});
afterAll(() => sb.close());

const mode = (p: string) => (fs.statSync(p).mode & 0o777).toString(8);

describe('svc login --with-token', () => {
  it('stores a working token read from stdin (and a refresh token from line 2) without a browser', async () => {
    const dir = tempDir();
    const token = sb.issueToken({ scopes: ['prospects.read'] });
    const r = await runSvc(['login', '--with-token', '--base-url', sb.baseUrl], {
      env: { SVC_CONFIG_DIR: dir },
      input: `${token}\nsome-refresh-token-value\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Logged in to');
    expect(r.stderr).toMatch(/warning: a refresh token needs the OAuth client/);
    expect(r.stdout + r.stderr).not.toContain(token);
    const p = readConfig(dir).profiles.default!;
    expect(p).toMatchObject({
      baseUrl: sb.baseUrl,
      accessToken: token,
      refreshToken: 'some-refresh-token-value',
      tokenScopes: 'prospects.read',
    });
    const list = await svcInProcess(['prospects', 'list', '--limit', '1', '-o', 'json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(list.code, list.stderr).toBe(0);
  });

  it('refuses a token the API rejects (exit 3) and keeps the previous login', async () => {
    const dir = tempDir();
    const good = sb.issueToken({});
    expect(
      (await svcInProcess(['login', '--with-token', '--base-url', sb.baseUrl], { env: { SVC_CONFIG_DIR: dir }, input: good })).code,
    ).toBe(0);
    const r = await svcInProcess(['login', '--with-token'], { env: { SVC_CONFIG_DIR: dir }, input: 'not-a-real-token-123456\n' });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/error: the API rejected the token \(401\)/);
    expect(readConfig(dir).profiles.default!.accessToken).toBe(good);
  });
});

describe('usage errors: nothing sent', () => {
  it('login --base-url ftp://x: only http(s) URLs', async () => {
    const mark = sb.requests.length;
    const r = await svcInProcess(['login', '--base-url', 'ftp://x'], { env: { SVC_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/only http\(s\) URLs/);
    expect(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('error:')),
    ).toHaveLength(1);
    expect(sb.requests.length).toBe(mark);
  });
});

describe('token endpoint errors at login', () => {
  it('a wrong client secret: exit 3, invalid_client named, a hint, the secret not shown', async () => {
    const dir = tempDir();
    // In process: the token endpoint's answer is under test, not the process (the exit code of
    // bin/svc's refused login is the next test's).
    const r = await cliLoginInProcess(sb, dir, [], { SVC_CLIENT_SECRET: 'wrong-secret-0123456789' });
    expect(r.consent?.html, r.stderr).toContain('Login failed');
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /error: could not exchange the authorization code for a token: token request refused \(HTTP 400, invalid_client\)/,
    );
    expect(r.stderr).toContain('hint: check the client id and secret');
    expect(r.stderr + r.stdout).not.toContain('wrong-secret-0123456789');
    expect(fs.existsSync(path.join(dir, 'config.json')) && readConfig(dir).profiles.default?.accessToken).toBeFalsy();
  });

  // Within a minute the login waits the limit out (errors-name-the-fix.test.ts); a longer one fails.
  it('a token-issue limit longer than a minute: exit 1 with the reason', async () => {
    const limited = await startSandbox({ port: 0, seed: 5, tokenIssueIntervalMs: 120_000 });
    try {
      // The first login only spends the limit: in process. The refused one is bin/svc (exit 1).
      expect((await cliLoginInProcess(limited, tempDir())).code).toBe(0);
      const second = await cliLogin(limited, tempDir());
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/too many token requests \(the API issues one access token per user per 60 s\); retry in \d+ s/);
      expect(second.stderr).not.toMatch(/waiting \d+ s/);
    } finally {
      await limited.close();
    }
  });
});

describe('logout and profiles', () => {
  it('profiles: --profile and SVC_PROFILE choose, list shows them, use switches, remove deletes; logout keeps the client', async () => {
    const dir = tempDir();
    expect((await cliLoginInProcess(sb, dir)).code).toBe(0);
    expect((await cliLoginInProcess(sb, dir, ['--profile', 'staging'])).code).toBe(0);
    const env = { SVC_CONFIG_DIR: dir };
    const list = json<Array<Record<string, unknown>>>(await svcInProcess(['profiles', 'list', '-o', 'json'], { env }));
    expect(list.map((p) => [p.name, p.current, p.state])).toEqual([
      ['default', true, 'logged in'],
      ['staging', false, 'logged in'],
    ]);
    const table = await svcInProcess(['profiles', 'list', '-o', 'table'], { env });
    expect(table.stdout).toMatch(/^\*\s+default\s/m);
    expect(table.stdout).not.toContain(readConfig(dir).profiles.default!.accessToken);
    // On a narrow terminal the user is cut with … to fit (lines of 102–106 columns at 80, a trial).
    const full = table.stdout.split('\n').find((l) => l.startsWith('*'))!;
    const narrow = await runInProcess(['profiles', 'list', '-o', 'table'], baseEnv(env), { columns: full.length - 6, tty: true });
    const lines = narrow.stdout.trimEnd().split('\n');
    // Piped, nothing is cut (the address was lost to a file, a review).
    const piped = await runInProcess(['profiles', 'list', '-o', 'table'], baseEnv(env), { columns: full.length - 6 });
    expect(piped.stdout).toBe(table.stdout);
    expect(lines.filter((l) => l.length > full.length - 6)).toEqual([]);
    expect(lines.find((l) => l.startsWith('*'))).toMatch(/^\*\s+default\s+http\S+\s+.*…\s+logged in$/);

    expect((await svcInProcess(['profiles', 'use', 'staging'], { env })).code).toBe(0);
    expect(readConfig(dir).currentProfile).toBe('staging');
    expect(json<Record<string, unknown>>(await svcInProcess(['auth', 'status', '-o', 'json'], { env })).profile).toBe('staging');
    expect(
      json<Record<string, unknown>>(await svcInProcess(['auth', 'status', '-o', 'json'], { env: { ...env, SVC_PROFILE: 'default' } }))
        .profile,
    ).toBe('default');

    const missing = await svcInProcess(['profiles', 'use', 'nope'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no profile named "nope" \(profiles: default, staging\)/);

    // --dry-run says what logout would do and changes nothing (it deleted the tokens: a trial).
    const tokens = readConfig(dir).profiles.staging!.accessToken;
    const dry = await svcInProcess(['logout', '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe(`(would delete the tokens of profile "staging" from ${path.join(dir, 'config.json')})\n`);
    expect(readConfig(dir).profiles.staging!.accessToken).toBe(tokens);

    // logout: tokens gone, URLs and client kept; status then says not logged in (exit 3).
    const out = await svcInProcess(['logout'], { env });
    expect(out.code).toBe(0);
    const staging = readConfig(dir).profiles.staging!;
    expect(staging).not.toHaveProperty('accessToken');
    expect(staging).not.toHaveProperty('refreshToken');
    expect(staging).toMatchObject({ baseUrl: sb.baseUrl, clientId: sb.clientId });
    const st = await svcInProcess(['auth', 'status'], { env });
    expect(st.code).toBe(3);
    expect(st.stderr).toMatch(/not logged in \(profile "staging"\)/);
    expect((await svcInProcess(['auth', 'token'], { env })).code).toBe(3);

    const refuse = await svcInProcess(['profiles', 'remove', 'default'], { env });
    expect(refuse.code).toBe(2);
    expect(refuse.stderr).toContain('without --yes');
    expect((await svcInProcess(['profiles', 'remove', 'default', '--yes'], { env })).code).toBe(0);
    expect(Object.keys(readConfig(dir).profiles)).toEqual(['staging']);
  });
});

describe('file modes', () => {
  it('config file 0600 and directory 0700 after login; looser modes are repaired on the next start', async () => {
    const dir = path.join(tempDir(), 'nested', 'svc');
    expect((await cliLoginInProcess(sb, dir)).code).toBe(0);
    const file = path.join(dir, 'config.json');
    expect(mode(dir)).toBe('700');
    expect(mode(file)).toBe('600');
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(file, 0o644);
    const r = await svcInProcess(['profiles', 'list', '-o', 'json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: config permissions were too open, repaired: .*\(was 755, now 700\)/);
    expect(r.stderr).toMatch(/\(was 644, now 600\)/);
    expect(mode(dir)).toBe('700');
    expect(mode(file)).toBe('600');
    // A refresh rewrites the file: still 0600, and no lock file left behind.
    const p = readConfig(dir).profiles.default!;
    fs.writeFileSync(file, JSON.stringify({ profiles: { default: { ...p, expiresAt: 1 } } }));
    expect((await svcInProcess(['auth', 'token'], { env: { SVC_CONFIG_DIR: dir } })).code).toBe(0);
    expect(mode(file)).toBe('600');
    expect(fs.readdirSync(dir)).toEqual(['config.json']);
  });
});
