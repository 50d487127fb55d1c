/**
 * Errors that name the fix: the scope a 403 needed and the login that grants it; "did you mean"
 * for an operation and for the field names the server refuses; a login whose client id the
 * server no longer knows ends at once (or, against a restarted local sandbox, picks up its new
 * client); a second login within the token-issue interval waits it out instead of failing. The
 * login that ends at once runs the built bin/svc (its exit 3 as a script sees it); the rest run
 * svc's program in the test process. The near misses refused before anything is sent (fields,
 * relationships, commands, profiles, enroll's ids and `--input -`) are checked in-process in
 * test/unit/commands/ (resource/list-usage, resource/write-usage, auth/usage, enroll/usage).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { authorizeUrlOf, editProfile, playConsent, readConfig } from '../helpers/oauth.js';
import { startInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { cliLoginInProcess } from '../helpers/in-process-login.js';
import { runSvc, tempDir } from '../helpers/run-svc.js';
import { announceSandbox, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: () => Record<string, string>;
beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 40 }));
});
afterAll(() => sb.close());

describe("a token of the user's own that is refused, or empty", () => {
  it('401 says which token was sent (SVC_TOKEN or --token) and what to do; an empty SVC_TOKEN is named', async () => {
    // "The access token is invalid or has been revoked", and nothing more (a trial).
    const viaEnv = await svcInProcess(['prospects', 'list', '--limit', '1'], { env: { ...env(), SVC_TOKEN: 'wrongtoken123' } });
    expect(viaEnv.code).toBe(3);
    expect(viaEnv.stderr).toContain(
      "hint: the token sent is SVC_TOKEN's: set a valid one, or unset SVC_TOKEN to use the profile's login (`svc auth status`)",
    );
    const viaFlag = await svcInProcess(['--token', 'wrongtoken123', 'prospects', 'list', '--limit', '1'], {
      env: { ...env(), SVC_TOKEN: '' },
    });
    expect(viaFlag.code).toBe(3);
    expect(viaFlag.stderr).toContain("hint: the token sent is --token's");
    expect(viaEnv.stderr + viaFlag.stderr).not.toContain('wrongtoken123');
    // An unset CI secret (a pull request from a fork) arrives as an empty SVC_TOKEN.
    const empty = await svcInProcess(['prospects', 'list', '--limit', '1'], {
      env: { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: '' },
    });
    expect(empty.code).toBe(3);
    expect(empty.stderr).toBe(
      'error: not logged in (profile "default")\nhint: SVC_TOKEN is set but empty: is the CI secret it is read from available to this job?\nhint: run `svc login`, set SVC_TOKEN, or try the local sandbox with `svc --sandbox ...`\n',
    );
  });
});

describe('403 unauthorizedOauthScope', () => {
  it('names the scope the request needed and the login that grants it', async () => {
    const token = sb.issueToken({ scopes: ['accounts.read'] });
    const r = await svcInProcess(['prospects', 'list'], { env: { ...env(), SVC_TOKEN: token } });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^hint: this request needs the scope prospects\.read \(or prospects\.all\)$/m);
    expect(r.stderr).toMatch(/^hint: log in again asking for it .*`svc login --scopes "prospects\.all …"`/m);
    expect(r.stderr).not.toContain(token);
  });

  it('after a login of known scopes, the login to paste lists them all and the one needed (a literal … was refused when pasted)', async () => {
    // A sandbox of its own: a login here would hold the file's sandbox's next token back (its token-issue interval).
    const own = await startSandbox({ port: 0, seed: 5, tokenIssueIntervalMs: 0 });
    try {
      const dir = tempDir();
      const login = await cliLoginInProcess(own, dir, ['--profile', 'narrow', '--scopes', 'accounts.read users.read']);
      expect(login.code, login.stderr).toBe(0);
      const r = await svcInProcess(['--profile', 'narrow', 'prospects', 'list'], { env: { SVC_CONFIG_DIR: dir } });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toMatch(
        /^hint: log in again asking for it .*`svc --profile narrow login --scopes "accounts\.read users\.read prospects\.all"`/m,
      );
      expect(r.stderr).not.toContain('…"');
    } finally {
      await own.close();
    }
  });

  it("a filter or sort through another type names that type's read scope, not the one the token has", async () => {
    const token = sb.issueToken({ scopes: ['prospects.read'] });
    for (const args of [
      ['--filter', 'account.name=Atlas Systems'],
      ['--sort', 'account.name'],
    ]) {
      const r = await svcInProcess(['prospects', 'list', ...args], { env: { ...env(), SVC_TOKEN: token } });
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/^hint: this request needs the scope accounts\.read \(or accounts\.all\)$/m);
      expect(r.stderr).not.toMatch(/needs the scope prospects\.read/);
    }
  });

  it('without the server naming it, the scopes of the types a query crosses are named beside its own', async () => {
    const { crossedScopes } = await import('../../src/api/scope-hint.js');
    const base = new URL('https://api.example.test/api/v2');
    const url = (q: string) => new URL(`https://api.example.test/api/v2/prospects?${q}`);
    expect(crossedScopes(url('filter[account][name]=Atlas'), base)).toEqual(['accounts.read']);
    expect(crossedScopes(url('sort=-account.name,title'), base)).toEqual(['accounts.read']);
    expect(crossedScopes(url('include=account,stage'), base)).toEqual(['accounts.read', 'stages.read']);
    expect(crossedScopes(url('filter[account][id]=4&filter[title]=CEO'), base)).toEqual([]);
  });

  it('a write names the write or delete scope of its type', async () => {
    const token = sb.issueToken({ scopes: ['accounts.read'] });
    const upd = await svcInProcess(['accounts', 'update', '1', '--attr', 'name=X'], { env: { ...env(), SVC_TOKEN: token } });
    expect(upd.code).toBe(4);
    expect(upd.stderr).toMatch(/needs the scope accounts\.write \(or accounts\.all\)/);
    const del = await svcInProcess(['accounts', 'delete', '1', '--yes'], { env: { ...env(), SVC_TOKEN: token } });
    expect(del.stderr).toMatch(/needs the scope accounts\.delete \(or accounts\.all\)/);
  });
});

describe('did you mean', () => {
  it('an operation: svc prospects lst', async () => {
    const r = await svcInProcess(['prospects', 'lst'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: prospects has no operation "lst" (did you mean "list"?): it offers list, export, get, create, update, upsert, delete\n',
    );
  });

  it.each([
    [['prospects', 'list', '--filter', 'titl=CEO'], 'error: --filter: prospect has no field "titl"\nhint: did you mean title?'],
    [['prospects', 'list', '--sort', '-updatedA'], 'error: --sort: prospect has no field "updatedA"\nhint: did you mean updatedAt?'],
  ])('a field name refused before sending, with the near miss: svc %j', async (args, message) => {
    const r = await svcInProcess(args, { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it.each([
    [['prospects', 'get', '1', '--include', 'acount'], '--include acount: did you mean "account"?'],
    [['prospects', 'create', '--attr', 'frstName=Ada'], '--attr frstName: did you mean "firstName"?'],
  ])('a field the server refuses: svc %j', async (args, hint) => {
    const r = await svcInProcess(args, { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`\nhint: ${hint}\n`);
  });

  // A new-user trial: `--include titl` got "title" and `--include sequenceSteps` "sequenceType",
  // attributes, which cannot be included.
  it('--include: hints name relationships (along the path) only', async () => {
    const nested = await svcInProcess(['prospects', 'get', '1', '--include', 'account.ownr'], { env: env() });
    expect(nested.code).toBe(1);
    expect(nested.stderr).toContain('\nhint: --include account.ownr: did you mean "account.owner"?\n');
    for (const args of [
      ['prospects', 'get', '1', '--include', 'titl'],
      ['sequences', 'get', '1', '--include', 'sequenceSteps'],
    ]) {
      const r = await svcInProcess(args, { env: env() });
      expect(r.code).toBe(1);
      expect(r.stderr).not.toMatch(/did you mean/);
    }
  });

  it('names that are right get no hint, and a far-off name no guess', async () => {
    const ok = await svcInProcess(['prospects', 'list', '--limit', '1', '--columns', 'id,title,account.name', '-o', 'csv'], { env: env() });
    expect(ok.stderr).toBe('');
    const far = await svcInProcess(['prospects', 'list', '--filter', 'zzzzqqq=1'], { env: env() });
    expect(far.stderr).not.toMatch(/did you mean/);
  });
});

describe('svc login against a server that does not know the client', () => {
  it('ends at once with the fix instead of waiting for the browser', async () => {
    const dir = tempDir();
    const started = Date.now();
    const r = await runSvc(['login', '--no-browser', '--port', '0'], {
      env: {
        SVC_CONFIG_DIR: dir,
        SVC_BASE_URL: sb.baseUrl,
        SVC_AUTH_URL: sb.authUrl,
        SVC_CLIENT_ID: 'sandbox-gone',
        SVC_CLIENT_SECRET: 'x',
      },
      timeoutMs: 20_000,
    });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /^error: the authorization server refused the login before the browser opened \(HTTP 400\): Unknown application/m,
    );
    expect(r.stderr).toMatch(/^hint: .*does not know the client id "sandbox-gone"/m);
    expect(r.stderr).toMatch(/^hint: log in with the current client: `svc login --client-id ID --client-secret SECRET`/m);
    // The authorize URL was never offered to a browser.
    expect(r.stderr).not.toMatch(/oauth\/authorize\?/);
  });

  it("a profile's stale client against a restarted local sandbox: svc picks up the sandbox's new client", async () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({
        profiles: { default: { baseUrl: sb.baseUrl, authUrl: sb.authUrl, clientId: 'sandbox-old', clientSecret: 'old-secret' } },
      }),
      { mode: 0o600 },
    );
    // What a running `svc sandbox` writes about itself (this test process stands in for it).
    announceSandbox(dir, sb);
    // In process: the client picked up is the program's doing (the login that ends at once above
    // is the file's bin/svc); a bin/svc start was ~0.3 CPU-s.
    const run = startInProcess(['login', '--no-browser', '--port', '0'], { env: { SVC_CONFIG_DIR: dir } });
    const url = await authorizeUrlOf(run);
    expect(new URL(url).searchParams.get('client_id')).toBe(sb.clientId);
    expect((await playConsent(url, 'approve')).status).toBe(200);
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toMatch(
      /^warning: the sandbox at \S+ no longer knows client sandbox-old \(it was restarted\): logging in with its current client /m,
    );
    expect(run.stderr()).not.toContain(sb.clientSecret);
    expect(readConfig(dir).profiles.default).toMatchObject({ clientId: sb.clientId, clientSecret: sb.clientSecret });
  }, 30_000);
});

describe('a refresh refused with invalid_client (the sandbox was restarted with a new client)', () => {
  it('says how to get the new client instead of a plain `svc login`', async () => {
    const fresh = await startSandbox({ port: 0, seed: 5, tokenIssueIntervalMs: 0 });
    try {
      const dir = tempDir();
      // In process: the refresh is under test, not the login (login.test.ts runs the binary's).
      expect((await cliLoginInProcess(fresh, dir)).code).toBe(0);
      editProfile(dir, 'default', { expiresAt: Date.now() - 1000, clientId: 'sandbox-before-restart' });
      const r = await svcInProcess(['prospects', 'list', '--limit', '1'], { env: { SVC_CONFIG_DIR: dir } });
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/the OAuth client was rejected \(invalid_client\)/);
      expect(r.stderr).toMatch(/^hint: a restarted sandbox has a new OAuth client \(`svc sandbox` prints it\)/m);
      expect(r.stderr).toMatch(/^hint: otherwise log in with the current client: `svc login --client-id ID --client-secret SECRET`$/m);
      expect(r.stderr).not.toContain(fresh.clientSecret);
    } finally {
      await fresh.close();
    }
  }, 30_000);
});

describe('svc login twice within the token-issue interval', () => {
  let limited: TestSandbox;
  beforeAll(async () => {
    // Long enough that a second login started at once still falls inside it on a slow machine.
    limited = await startSandbox({ port: 0, seed: 5, tokenIssueIntervalMs: 6000 });
  });
  afterAll(() => limited.close());

  it('waits the Retry-After out with a countdown and logs in', async () => {
    const dir = tempDir();
    // Both in process: the wait is the program's, not the process's (login-profiles.test.ts runs
    // bin/svc refused by a longer interval). A spawned second login could take longer than the
    // interval to start on a loaded machine (seen at a load of 30), and then waited for nothing.
    const first = await cliLoginInProcess(limited, dir);
    expect(first.code, first.stderr).toBe(0);
    const mark = limited.requests.length;
    const second = await cliLoginInProcess(limited, dir);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/^The API issues one access token per minute: waiting [1-6] s…$/m);
    expect(second.stderr).toMatch(/Logged in to /);
    const exchanges = limited.requests.slice(mark).filter((q) => q.path === '/oauth/token');
    expect(exchanges.map((q) => q.status)).toEqual([429, 200]);
  }, 30_000);
});
