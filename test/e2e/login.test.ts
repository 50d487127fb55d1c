/**
 * `svc login --no-browser` against the sandbox, with the browser played over HTTP: the printed
 * authorize URL, the consent form submitted, the redirect to the loopback listener. The first
 * login, the browser launchers and Ctrl-C run the built bin/svc; `auth status`, the redirects
 * with a wrong state, access denied, the PKCE login and the timeout run svc's program in the test
 * process.
 *
 * The tests run at once (describe.concurrent): each logs in from a config dir of its own on a
 * loopback port of its own, and the sandbox issues tokens without an interval. The two that read
 * the sandbox's request log (the first login, PKCE) log in to a sandbox of their own, so that the
 * token exchange they find is theirs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { authorizeUrlOf, cliLogin, loginEnv, playConsent, readConfig } from '../helpers/oauth.js';
import { startSvc } from '../helpers/long-running.js';
import { runInProcess, startInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { cliLoginInProcess } from '../helpers/in-process-login.js';
import { baseEnv, json, tempDir } from '../helpers/run-svc.js';
import type { TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 5, tokenIssueIntervalMs: 0 });
});
afterAll(() => sb.close());

/** A sandbox of a test's own, closed at the end of the file. */
const own: TestSandbox[] = [];
afterAll(async () => {
  for (const s of own) await s.close();
});
async function ownSandbox(): Promise<TestSandbox> {
  const s = await startSandbox({ port: 0, seed: 5, tokenIssueIntervalMs: 0 });
  own.push(s);
  return s;
}

describe.concurrent('svc login --no-browser', () => {
  it('prints the authorize URL, takes the consent redirect, stores the tokens and says who logged in', async () => {
    const sb = await ownSandbox();
    const dir = tempDir();
    const mark = sb.requests.length;
    const r = await cliLogin(sb, dir, ['--verbose']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^\* POST \S+\/oauth\/token \(grant_type=authorization_code\) → 200/m);
    expect(r.stderr).toMatch(/^\* GET \S+\/api\/v2 → 200/m);
    // The authorize URL of the login flow (README.md, "Login and profiles"), with a fresh state.
    const url = new URL(r.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${sb.authUrl}/oauth/authorize`);
    expect(url.searchParams.get('client_id')).toBe(sb.clientId);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('scope')).toContain('prospects.all');
    expect(r.url).toContain('scope=accounts.all%20');
    // The browser's last page.
    expect(r.consent.status).toBe(200);
    expect(r.consent.html).toContain('You can close this tab');
    // The exchange: form-encoded, every parameter matching the flow.
    const tokenReqs = sb.requests.slice(mark).filter((q) => q.path === '/oauth/token');
    expect(tokenReqs).toHaveLength(1);
    expect(tokenReqs[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(tokenReqs[0]!.body);
    expect(form.get('grant_type')).toBe('authorization_code');
    expect(form.get('client_id')).toBe(sb.clientId);
    expect(form.get('client_secret')).toBe(sb.clientSecret);
    expect(form.get('redirect_uri')).toBe(url.searchParams.get('redirect_uri'));
    expect(form.get('code')).toBe(new URL(r.consent.url).searchParams.get('code'));
    // Stored in the profile.
    const p = readConfig(dir).profiles.default!;
    expect(p).toMatchObject({ baseUrl: sb.baseUrl, authUrl: sb.authUrl, clientId: sb.clientId, clientSecret: sb.clientSecret });
    expect(p.accessToken).toMatch(/\S{20,}/);
    expect(p.refreshToken).toMatch(/\S{20,}/);
    expect(p.expiresAt).toBeGreaterThan(Date.now() + 7000_000);
    expect(p.tokenScopes).toContain('prospects.all');
    expect(p.user).toMatchObject({ id: 1 });
    // Who is logged in, from GET {base_url} with the new token.
    const root = sb.requests.slice(mark).find((q) => q.path === '/api/v2' || q.path === '/api/v2/');
    expect(root?.headers.authorization).toBe(`Bearer ${p.accessToken}`);
    expect(r.stderr).toMatch(/Logged in to .* as /);
    // Nothing secret on the terminal, --verbose trace included.
    for (const s of [p.accessToken, p.refreshToken, sb.clientSecret, form.get('code')!]) expect(r.stdout + r.stderr).not.toContain(s);

    const status = await svcInProcess(['auth', 'status', '-o', 'json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(status.code, status.stderr).toBe(0);
    const st = json<Record<string, any>>(status);
    expect(st).toMatchObject({ profile: 'default', baseUrl: sb.baseUrl, authUrl: sb.authUrl, tokenSource: 'profile', refreshable: true });
    expect(st.user.id).toBe(1);
    expect(st.scopes).toContain('prospects.all');
    expect(Date.parse(st.expiresAt)).toBeGreaterThan(Date.now());
    const human = await svcInProcess(['auth', 'status', '-o', 'table'], { env: { SVC_CONFIG_DIR: dir } });
    expect(human.stdout).toMatch(/Logged in as:\s+\S/);
    expect(human.stdout).toContain('stored login');
    expect(human.stdout).not.toContain(p.accessToken);
  });

  it('a redirect with a wrong or missing state is refused with a page; the listener keeps waiting for the right one', async () => {
    // In process: the listener and its pages are the same in bin/svc; the refusals below that end
    // a login (access denied, Ctrl-C) are the binary's.
    const dir = tempDir();
    let stderr = '';
    const said: { pattern: RegExp; resolve: (text: string) => void }[] = [];
    const stderrShows = (pattern: RegExp) =>
      new Promise<string>((resolve) => (pattern.test(stderr) ? resolve(stderr) : said.push({ pattern, resolve })));
    const run = runInProcess(['login', '--no-browser', '--port', '0'], baseEnv(loginEnv(sb, dir)), {
      timeoutMs: 30_000,
      onOutput: (stream, text) => {
        if (stream !== 'stderr') return;
        stderr += text;
        for (const w of said.filter((x) => x.pattern.test(stderr))) w.resolve(stderr);
      },
    });
    const url = new URL(/^(http:\/\/\S+\/oauth\/authorize\?\S+)$/m.exec(await stderrShows(/oauth\/authorize\?\S+\n/))![1]!);
    const callback = url.searchParams.get('redirect_uri')!;
    const wrong = await fetch(`${callback}?code=forged&state=not-the-state`);
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('does not match');
    const missing = await fetch(`${callback}?code=forged`);
    expect(missing.status).toBe(400);
    // A forged access_denied without the state cannot cancel the login either.
    expect((await fetch(`${callback}?error=access_denied`)).status).toBe(400);
    await stderrShows(/refused a redirect.*still waiting/);
    const ok = await playConsent(url.toString(), 'approve');
    expect(ok.status).toBe(200);
    const r = await run;
    expect(r.threw).toBeUndefined();
    expect(r.code, r.stderr).toBe(0);
    expect(readConfig(dir).profiles.default!.accessToken).toBeTruthy();
    // The listener served one flow and closed.
    await expect(fetch(`${callback}?code=x&state=${url.searchParams.get('state')}`)).rejects.toThrow();
  });

  it('access denied in the browser: exit 3, a clear message, nothing stored', async () => {
    // In process: the refusal and its exit code are the program's (bin/svc's exit codes are the
    // first login's 0 and Ctrl-C's 130 below); a bin/svc start was ~0.3 CPU-s.
    const dir = tempDir();
    const run = startInProcess(['login', '--no-browser', '--port', '0'], { env: loginEnv(sb, dir) });
    const url = await authorizeUrlOf(run);
    const page = await playConsent(url, 'deny');
    expect(page.html).toContain('Access denied');
    expect(await run.exited).toBe(3);
    expect(run.stderr()).toMatch(/error: access denied/);
    expect(fs.existsSync(path.join(dir, 'config.json')) ? readConfig(dir).profiles.default?.accessToken : undefined).toBeUndefined();
  });

  it('PKCE: --pkce sends an S256 challenge and the matching verifier', async () => {
    const sb = await ownSandbox();
    const dir = tempDir();
    const mark = sb.requests.length;
    const r = await cliLoginInProcess(sb, dir, ['--pkce']);
    expect(r.code, r.stderr).toBe(0);
    const url = new URL(r.url);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const challenge = url.searchParams.get('code_challenge')!;
    const form = new URLSearchParams(sb.requests.slice(mark).find((q) => q.path === '/oauth/token')!.body);
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(form.get('code_verifier')!).digest('base64url')).toBe(challenge);
  });

  it('without --no-browser, opens the browser (xdg-open) at the authorize URL', async () => {
    // A stand-in for the desktop's browser launcher: it records the URL it is asked to open.
    const bin = tempDir();
    const opened = path.join(bin, 'opened.txt');
    fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 });
    const dir = tempDir();
    const run = startSvc(['login', '--port', '0'], {
      env: { ...loginEnv(sb, dir), PATH: `${bin}:${process.env.PATH}`, BROWSER: undefined },
    });
    const printed = await authorizeUrlOf(run);
    expect(run.stderr()).toContain('Opening the browser');
    for (let i = 0; i < 100 && !fs.existsSync(opened); i++) await new Promise((r) => setTimeout(r, 50));
    expect(fs.readFileSync(opened, 'utf8')).toBe(printed);
    expect((await playConsent(printed, 'approve')).status).toBe(200);
    expect(await run.exited).toBe(0);
  });

  it('$BROWSER comes before the desktop launcher: entries tried in order, %s or the URL appended', async () => {
    // xdg-open must not run; $BROWSER's first entry does not exist, its second records its arguments.
    const bin = tempDir();
    const opened = path.join(bin, 'opened.txt');
    const xdg = path.join(bin, 'xdg-called');
    fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\ntouch '${xdg}'\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'my browser'), `#!/bin/sh\nprintf '%s|' "$@" > '${opened}'\n`, { mode: 0o755 });
    const browser = `${path.join(bin, 'no-such-browser')}:'${path.join(bin, 'my browser')}' --new-tab`;
    const run = startSvc(['login', '--port', '0'], {
      env: { ...loginEnv(sb, tempDir()), PATH: `${bin}:${process.env.PATH}`, BROWSER: browser },
    });
    const printed = await authorizeUrlOf(run);
    for (let i = 0; i < 100 && !fs.existsSync(opened); i++) await new Promise((r) => setTimeout(r, 50));
    expect(fs.readFileSync(opened, 'utf8')).toBe(`--new-tab|${printed}|`);
    expect(run.stderr()).not.toContain('could not start a browser');
    expect((await playConsent(printed, 'approve')).status).toBe(200);
    expect(await run.exited).toBe(0);
    expect(fs.existsSync(xdg)).toBe(false);
  });

  it('Ctrl-C while waiting: exit 130 and the listener is closed', async () => {
    const run = startSvc(['login', '--no-browser', '--port', '0'], { env: loginEnv(sb, tempDir()) });
    const callback = new URL(await authorizeUrlOf(run)).searchParams.get('redirect_uri')!;
    expect(await run.stop('SIGINT')).toBe(130);
    await expect(fetch(callback)).rejects.toThrow();
  });

  it('gives up after --login-timeout with exit 3', async () => {
    const r = await svcInProcess(['login', '--no-browser', '--port', '0', '--login-timeout', '1'], { env: loginEnv(sb, tempDir()) });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/error: timed out after 1 s waiting for the browser/);
  });
});
