/**
 * The token lifecycle after login: refresh before expiry, once after an unexpected 401, once
 * for parallel processes, invalid_grant, SVC_REFRESH_TOKEN in CI, and no secret in the
 * --verbose trace.
 *
 * The processes sharing an expired profile are bin/svc (a lock between processes is under
 * test): `SVC_REFRESH_PROCS` of them, 4 by default (three losers of the race are enough to see
 * one token request; each spawn is ~0.4 CPU-s), 8 the issue's figure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { editProfile, readConfig } from '../helpers/oauth.js';
import { cliLoginInProcess } from '../helpers/in-process-login.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { runSvc, tempDir } from '../helpers/run-svc.js';
import type { TestSandbox } from '../helpers/sandbox.js';

/** Processes racing to refresh one expired profile (header). */
const PROCS = Number(process.env['SVC_REFRESH_PROCS'] ?? 4);

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 5, tokenIssueIntervalMs: 0 });
});
afterAll(() => sb.close());

/** A fresh config dir holding a login of the sandbox's owner. */
async function loggedIn(): Promise<{ dir: string; p: Record<string, any> }> {
  const dir = tempDir();
  // In process: the login is not what these tests are about (login.test.ts runs the binary's).
  const r = await cliLoginInProcess(sb, dir);
  expect(r.code, r.stderr).toBe(0);
  return { dir, p: readConfig(dir).profiles.default! };
}

const since = (mark: number) => sb.requests.slice(mark);
const tokenRequests = (mark: number) => since(mark).filter((q) => q.path === '/oauth/token');
const prospectGets = (mark: number) => since(mark).filter((q) => q.path === '/api/v2/prospects');
/** Only the profile dir: no client or base URL in the env, so the stored login does everything. */
const env = (dir: string) => ({ SVC_CONFIG_DIR: dir });

describe('refresh', () => {
  it('a token expiring within a minute is refreshed before the request, rotated tokens stored; nothing secret in the trace', async () => {
    const { dir, p } = await loggedIn();
    editProfile(dir, 'default', { expiresAt: Date.now() + 30_000 });
    const mark = sb.requests.length;
    const r = await svcInProcess(['prospects', 'list', '--limit', '1', '-v', '-o', 'json'], { env: env(dir) });
    expect(r.code, r.stderr).toBe(0);
    const reqs = tokenRequests(mark);
    expect(reqs).toHaveLength(1);
    const form = new URLSearchParams(reqs[0]!.body);
    expect(Object.fromEntries(form)).toEqual({
      grant_type: 'refresh_token',
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
      refresh_token: p.refreshToken,
    });
    const after = readConfig(dir).profiles.default!;
    expect(after.accessToken).not.toBe(p.accessToken);
    expect(after.refreshToken).not.toBe(p.refreshToken);
    expect(after.expiresAt).toBeGreaterThan(Date.now() + 7000_000);
    // The request went out once, with the new token, after the refresh.
    const gets = prospectGets(mark);
    expect(gets).toHaveLength(1);
    expect(gets[0]!.headers.authorization).toBe(`Bearer ${after.accessToken}`);
    expect(since(mark).indexOf(reqs[0]!)).toBeLessThan(since(mark).indexOf(gets[0]!));
    expect(r.stderr).toContain('refreshing the access token');
    expect(r.stderr).toMatch(/POST \S+\/oauth\/token \(grant_type=refresh_token\) → 200/);
    for (const s of [p.accessToken, p.refreshToken, after.accessToken, after.refreshToken, sb.clientSecret])
      expect(r.stderr + r.stdout).not.toContain(s);
  });

  it('an unexpected 401 triggers one refresh and one retry', async () => {
    const { dir, p } = await loggedIn();
    // Revoked on the server: a token it does not know, with an expiry that looks fine locally.
    editProfile(dir, 'default', { accessToken: 'revoked-by-the-server-0123456789' });
    const mark = sb.requests.length;
    const r = await svcInProcess(['prospects', 'list', '--limit', '1', '-o', 'json'], { env: env(dir) });
    expect(r.code, r.stderr).toBe(0);
    const after = readConfig(dir).profiles.default!;
    const seen = since(mark).map((q) => `${q.method} ${q.path} ${q.status}`);
    expect(seen).toEqual(['GET /api/v2/prospects 401', 'POST /oauth/token 200', 'GET /api/v2/prospects 200']);
    expect(prospectGets(mark)[1]!.headers.authorization).toBe(`Bearer ${after.accessToken}`);
    expect(new URLSearchParams(tokenRequests(mark)[0]!.body).get('refresh_token')).toBe(p.refreshToken);
  });

  it('a 401 without a refresh token is exit 3 and sends no token request', async () => {
    const { dir } = await loggedIn();
    editProfile(dir, 'default', { accessToken: 'revoked-by-the-server-0123456789', refreshToken: undefined });
    const mark = sb.requests.length;
    const r = await svcInProcess(['prospects', 'list', '--limit', '1'], { env: env(dir) });
    expect(r.code).toBe(3);
    expect(tokenRequests(mark)).toHaveLength(0);
    expect(prospectGets(mark)).toHaveLength(1);
  });

  it('invalid_grant: exit 3, told to run svc login, the request is not sent, no secret in the error (even with -v)', async () => {
    const { dir, p } = await loggedIn();
    editProfile(dir, 'default', { expiresAt: Date.now() - 1000, refreshToken: 'spent-refresh-token-0123456789' });
    const mark = sb.requests.length;
    const r = await svcInProcess(['prospects', 'list', '--limit', '1', '-v'], { env: env(dir) });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/error: cannot refresh the login of profile "default": the refresh token was rejected \(invalid_grant/);
    expect(r.stderr).toContain('hint: run `svc login`');
    expect(tokenRequests(mark)).toHaveLength(1);
    expect(prospectGets(mark)).toHaveLength(0);
    for (const s of [p.accessToken, 'spent-refresh-token-0123456789', sb.clientSecret]) expect(r.stderr).not.toContain(s);
    // The stored login is left as it was (a later `svc login` replaces it).
    expect(readConfig(dir).profiles.default!.accessToken).toBe(p.accessToken);
  });

  it(`${PROCS} processes sharing an expired profile: exactly one token request, all succeed with the same new token`, async () => {
    const { dir, p } = await loggedIn();
    editProfile(dir, 'default', { expiresAt: Date.now() - 1000 });
    const mark = sb.requests.length;
    const runs = await Promise.all(
      Array.from({ length: PROCS }, () => runSvc(['prospects', 'list', '--limit', '1', '-o', 'json'], { env: env(dir) })),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(tokenRequests(mark)).toHaveLength(1);
    const after = readConfig(dir).profiles.default!;
    expect(after.refreshToken).not.toBe(p.refreshToken);
    const gets = prospectGets(mark);
    expect(gets).toHaveLength(PROCS);
    for (const g of gets) expect(g.headers.authorization).toBe(`Bearer ${after.accessToken}`);
  });

  it('svc auth token prints a valid token, refreshing it first', async () => {
    const { dir, p } = await loggedIn();
    editProfile(dir, 'default', { expiresAt: Date.now() + 10_000 });
    const mark = sb.requests.length;
    const r = await svcInProcess(['auth', 'token'], { env: env(dir) });
    expect(r.code, r.stderr).toBe(0);
    const after = readConfig(dir).profiles.default!;
    expect(r.stdout).toBe(`${after.accessToken}\n`);
    expect(after.accessToken).not.toBe(p.accessToken);
    expect(tokenRequests(mark)).toHaveLength(1);
    const check = await fetch(sb.baseUrl, { headers: { authorization: `Bearer ${r.stdout.trim()}` } });
    expect(check.status).toBe(200);
  });
});

describe('CI: SVC_REFRESH_TOKEN', () => {
  it('refreshes into the profile once for parallel processes; later runs reuse the stored token', async () => {
    const { p } = await loggedIn();
    const ci = tempDir();
    const ciEnv = {
      SVC_CONFIG_DIR: ci,
      SVC_BASE_URL: sb.baseUrl,
      SVC_AUTH_URL: sb.authUrl,
      SVC_CLIENT_ID: sb.clientId,
      SVC_CLIENT_SECRET: sb.clientSecret,
      SVC_REFRESH_TOKEN: p.refreshToken,
    };
    const mark = sb.requests.length;
    const runs = await Promise.all(
      Array.from({ length: 4 }, () => runSvc(['prospects', 'list', '--limit', '1', '-o', 'json', '-v'], { env: ciEnv })),
    );
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      for (const s of [p.refreshToken, sb.clientSecret]) expect(r.stderr).not.toContain(s);
    }
    expect(tokenRequests(mark)).toHaveLength(1);
    const stored = readConfig(ci).profiles.default!;
    expect(stored.refreshToken).not.toBe(p.refreshToken);
    expect(stored).not.toHaveProperty('clientSecret');
    const mark2 = sb.requests.length;
    const again = await svcInProcess(['auth', 'status', '-o', 'json'], { env: ciEnv });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).tokenSource).toBe('refresh-env');
    expect(tokenRequests(mark2)).toHaveLength(0);
  });

  it('SVC_TOKEN is used as given and auth status says so', async () => {
    const r = await svcInProcess(['auth', 'status', '-o', 'table'], {
      env: { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: sb.token },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Token:\s+SVC_TOKEN \(no stored login\)/);
    expect(r.stdout).toMatch(/Logged in as:\s+\S/);
    expect(r.stdout + r.stderr).not.toContain(sb.token);
  });
});
