/**
 * A profile's tokens and client secret stay with its API, however they are supplied, and a login
 * never mixes hosts. "Another host" is a server on 127.0.0.2 (a second loopback address), so the
 * checks compare real hosts:
 * - with SVC_REFRESH_TOKEN (the CI recipe), a later step naming another host by SVC_BASE_URL or
 *   --auth-url is refused: the stored access token and the stored client secret are not sent;
 * - `svc login` with a base or auth URL on other hosts than the profile's, or with base and auth
 *   on different hosts, says so and refuses without a terminal, asks on one (tmux), and goes on
 *   with --yes — wholly to the new hosts, without the old profile's client.
 * The logins under test run the built bin/svc; the login each test starts from and the commands
 * after them run in this process (`cliLoginInProcess`, `svcInProcess`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { startSvc } from '../helpers/long-running.js';
import { cliLoginInProcess } from '../helpers/in-process-login.js';
import { authorizeUrlOf, editProfile, playConsent, readConfig } from '../helpers/oauth.js';
import { expectCleanFailure } from '../helpers/reliability.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { BIN, tempDir } from '../helpers/run-svc.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { startTinyServer } from '../helpers/tiny-server.js';
import { sh, TmuxSession } from '../helpers/tmux.js';

let sb: TestSandbox;
/** The same API on another host: a login may be moved there on purpose. */
let sb2: TestSandbox;
let evil: Awaited<ReturnType<typeof startTinyServer>>;
const sessions: TmuxSession[] = [];
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 61, tokenIssueIntervalMs: 0 });
  sb2 = await startSandbox({ port: 0, seed: 62, tokenIssueIntervalMs: 0, host: '127.0.0.2' });
  // A host that would love to receive a token or a client secret: it answers like an API.
  evil = await startTinyServer(() => ({ status: 200, body: '{"data":[]}' }), '127.0.0.2');
});
afterAll(async () => {
  for (const s of sessions) s.kill();
  await evil.close();
  await sb2.close();
  await sb.close();
});

const tokenRequests = (s: TestSandbox, since: number) => s.requests.slice(since).filter((q) => q.path === '/oauth/token');

/** A config dir logged in to `sb` through the browser flow (the client secret is stored). */
async function loggedIn(): Promise<string> {
  const dir = tempDir();
  const r = await cliLoginInProcess(sb, dir);
  expect(r.code, r.stderr).toBe(0);
  return dir;
}

describe("SVC_REFRESH_TOKEN: the stored tokens and client secret go to the profile's hosts only", () => {
  it('a later CI step with SVC_BASE_URL or --auth-url on another host: exit 2, nothing sent there', async () => {
    const seed = readConfig(await loggedIn()).profiles.default!.refreshToken as string;
    const ci = tempDir();
    const ciEnv = {
      SVC_CONFIG_DIR: ci,
      SVC_BASE_URL: sb.baseUrl,
      SVC_AUTH_URL: sb.authUrl,
      SVC_CLIENT_ID: sb.clientId,
      SVC_CLIENT_SECRET: sb.clientSecret,
      SVC_REFRESH_TOKEN: seed,
    };
    const first = await svcInProcess(['prospects', 'list', '--limit', '1', '-o', 'json'], { env: ciEnv });
    expect(first.code, first.stderr).toBe(0);
    const stored = readConfig(ci).profiles.default!;
    expect(stored.refreshSeed).toBeTruthy();

    const before = evil.received.length;
    const other = await svcInProcess(['prospects', 'list', '--limit', '1'], { env: { ...ciEnv, SVC_BASE_URL: `${evil.url}/api/v2` } });
    expectCleanFailure(
      other,
      2,
      new RegExp(`^error: --base-url ${evil.url}/api/v2: profile "default" is logged in to ${sb.authUrl}; its tokens are sent there only$`),
    );
    expect(other.stderr).toMatch(
      /hint: SVC_REFRESH_TOKEN is refreshed into this profile and its stored login is used: give a step against another API its own profile/,
    );
    // The stored token has expired: a refresh would send the refresh token (and secret) to --auth-url.
    editProfile(ci, 'default', { expiresAt: Date.now() - 1000 });
    const auth = await svcInProcess(['prospects', 'list', '--limit', '1', '--auth-url', evil.url], { env: ciEnv });
    expectCleanFailure(auth, 2, /^error: --auth-url http:\/\/127\.0\.0\.2:\d+: profile "default" is logged in to /);
    expect(evil.received.length - before).toBe(0);
    expect(other.stderr + auth.stderr).not.toContain(stored.accessToken);
    // The profile's own hosts still work.
    const home = await svcInProcess(['prospects', 'list', '--limit', '1', '-o', 'json'], { env: ciEnv });
    expect(home.code, home.stderr).toBe(0);
  });

  it('the client secret a browser login stored is not sent to --auth-url on another host', async () => {
    const dir = await loggedIn();
    const before = evil.received.length;
    // No SVC_CLIENT_SECRET in this step: a refresh would take the stored one.
    const env = { SVC_CONFIG_DIR: dir, SVC_REFRESH_TOKEN: 'ci-seed-refresh-token-0123456789', SVC_CLIENT_ID: sb.clientId };
    const r = await svcInProcess(['prospects', 'list', '--limit', '1', '--auth-url', evil.url], { env });
    expectCleanFailure(r, 2, /^error: --auth-url http:\/\/127\.0\.0\.2:\d+: profile "default" is logged in to /);
    expect(evil.received.slice(before)).toEqual([]);
  });
});

/**
 * Runs `svc login --no-browser` and, should it print an authorize URL, approves there (as a
 * user would): a login that was not refused then goes all the way.
 */
async function tryLogin(args: string[], env: Record<string, string>) {
  const run = startSvc(['login', '--no-browser', '--port', '0', ...args], { env });
  const url = await Promise.race([authorizeUrlOf(run).catch(() => undefined), run.exited.then(() => undefined)]);
  if (url && new URL(url).hostname === '127.0.0.1') await playConsent(url, 'approve');
  else if (url) run.child.kill('SIGINT');
  const code = await run.exited;
  return { code, signal: null, stdout: run.stdout(), stderr: run.stderr(), url };
}

describe('a login never mixes hosts', () => {
  it("SVC_BASE_URL on another host than the profile's: refused without a terminal; nothing sent, profile unchanged", async () => {
    const dir = await loggedIn();
    const before = readConfig(dir);
    const [mark, seen] = [sb.requests.length, evil.received.length];
    const r = await tryLogin([], { SVC_CONFIG_DIR: dir, SVC_BASE_URL: `${evil.url}/api/v2` });
    expectCleanFailure(
      r,
      2,
      new RegExp(`^error: login refused: profile "default" is for the API at ${sb.authUrl}; this login goes to ${evil.url}$`),
    );
    expect(r.stderr).toMatch(
      /hint: to log in to that API, use a profile of its own: `svc --profile NAME login --base-url http:\/\/127\.0\.0\.2:\d+\/api\/v2`/,
    );
    expect(r.stderr).toMatch(/hint: if this is really what you want, confirm with --yes/);
    expect(r.url).toBeUndefined();
    expect(sb.requests.length).toBe(mark);
    expect(evil.received.length).toBe(seen);
    expect(readConfig(dir)).toEqual(before);
  });

  it('SVC_AUTH_URL on another host, or base and auth on different hosts: refused, nothing sent', async () => {
    const dir = await loggedIn();
    const seen = evil.received.length;
    const moved = await tryLogin([], { SVC_CONFIG_DIR: dir, SVC_AUTH_URL: evil.url });
    expectCleanFailure(
      moved,
      2,
      new RegExp(
        `^error: login refused: profile "default" is for the API at ${sb.authUrl}; this login goes to ${sb.authUrl} \\(auth ${evil.url}\\); and the consent page is at ${evil.url} but the token would be sent to ${sb.authUrl}$`,
      ),
    );
    const fresh = await tryLogin([], {
      SVC_CONFIG_DIR: tempDir(),
      SVC_BASE_URL: sb.baseUrl,
      SVC_AUTH_URL: evil.url,
      SVC_CLIENT_ID: 'id',
      SVC_CLIENT_SECRET: 'a-secret-for-nobody-0123',
    });
    expectCleanFailure(
      fresh,
      2,
      new RegExp(`^error: login refused: the consent page is at ${evil.url} but the token would be sent to ${sb.authUrl}$`),
    );
    expect(fresh.stderr).toMatch(/hint: pass a base URL and an auth URL of the same API/);
    // --with-token too: the token read from stdin is not sent anywhere.
    const withToken = await svcInProcess(['login', '--with-token'], {
      env: { SVC_CONFIG_DIR: dir, SVC_BASE_URL: `${evil.url}/api/v2` },
      input: 'a-token-for-evil-0123456789\n',
    });
    expectCleanFailure(withToken, 2, /^error: login refused: profile "default" is for the API at /);
    expect(evil.received.length).toBe(seen);
  });

  it('--yes moves the profile wholly to the new hosts, without the old client', async () => {
    const dir = await loggedIn();
    // The old profile's client is not reused for another API: without one, the login stops.
    const noClient = await tryLogin(['--yes'], { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sb2.baseUrl });
    expectCleanFailure(noClient, 2, /^error: no OAuth client id for the login$/);
    expect(noClient.url).toBeUndefined();

    const mark = sb2.requests.length;
    const run = startSvc(['login', '--no-browser', '--port', '0', '--yes'], {
      env: { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sb2.baseUrl, SVC_CLIENT_ID: sb2.clientId, SVC_CLIENT_SECRET: sb2.clientSecret },
    });
    const url = await authorizeUrlOf(run);
    // The consent page of the new API, not the old profile's auth URL.
    expect(new URL(url).origin).toBe(sb2.authUrl);
    await playConsent(url, 'approve');
    expect(await run.exited, run.stderr()).toBe(0);
    expect(run.stderr()).toMatch(
      new RegExp(
        `^warning: profile "default" is for the API at ${sb.authUrl}; this login goes to ${sb2.authUrl} \\(confirmed with --yes\\)$`,
        'm',
      ),
    );
    expect(tokenRequests(sb2, mark)).toHaveLength(1);
    const p = readConfig(dir).profiles.default!;
    expect(p).toMatchObject({ baseUrl: sb2.baseUrl, authUrl: sb2.authUrl, clientId: sb2.clientId, clientSecret: sb2.clientSecret });
  });

  it('on a terminal it says so and asks; "no" sends nothing and keeps the profile', async () => {
    const dir = await loggedIn();
    const before = readConfig(dir);
    const seen = evil.received.length;
    const s = new TmuxSession(`${sh(process.execPath)} ${sh(BIN)} login --no-browser --port 0; echo "[exit $?]"; sleep 30`, {
      width: 200,
      env: { TERM: 'xterm-256color', NO_COLOR: '1', SVC_CONFIG_DIR: dir, SVC_BASE_URL: `${evil.url}/api/v2` },
    });
    sessions.push(s);
    const asked = await s.waitFor(/Move profile "default" to these hosts/);
    expect(asked).toContain(`warning: profile "default" is for the API at ${sb.authUrl}; this login goes to ${evil.url}`);
    s.send('n');
    s.send('Enter');
    const done = await s.waitFor(/\[exit \d+\]/);
    expect(done).toContain('error: login cancelled: profile "default" unchanged, nothing sent');
    expect(done).toContain('[exit 2]');
    expect(done).not.toMatch(/oauth\/authorize/);
    expect(evil.received.length).toBe(seen);
    expect(readConfig(dir)).toEqual(before);
  });
});
