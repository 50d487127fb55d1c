/**
 * No secret in any output: a whole working session — login, reads and writes, errors, a
 * refresh, a 401, a bulk run with report and journal, an enrolment, webhooks create and
 * cleanup, `svc api`, status, profiles, logout — all with `--verbose`, some through a proxy
 * whose error pages echo the request's secrets back. Every access token, refresh token, client
 * secret, authorization code and cleanup token the session used is then searched for in every
 * byte svc wrote: stdout, stderr, reports, journals, and every file of the config directory but
 * the token store itself. The store is 0600 in a 0700 directory throughout.
 *
 * Two outputs print a secret on purpose and are left out of the search: `svc auth token`
 * (prints the access token: it is what it is for) and the record `webhooks create` prints on
 * stdout (the cleanup token, returned once at creation, is part of the record asked for).
 *
 * Most commands run in this process (`svcInProcess`: the same program, its stdout and stderr
 * captured whole); the login, the refresh whose error echoes the secrets, the bulk run and
 * `auth token` run the built bin/svc, so that whatever the process itself would print (Node's
 * own warnings, main.ts's last-resort error) is searched too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputFile, newSequence, freeProspects } from '../helpers/bulk.js';
import { cliLogin, editProfile, readConfig } from '../helpers/oauth.js';
import { startRig, type Rig } from '../helpers/reliability.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { runSvc, tempDir, type SvcResult } from '../helpers/run-svc.js';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ seed: 44, tokenIssueIntervalMs: 0 });
});
afterAll(() => rig.close());

/** Every file under a directory (recursively). */
function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

function expectPrivate(dir: string): void {
  expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  for (const f of files(dir)) expect([f, fs.statSync(f).mode & 0o777]).toEqual([f, 0o600]);
}

describe('a whole session with --verbose', () => {
  it('leaks no token, refresh token, client secret, code or cleanup token anywhere', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const work = tempDir('svc-secrets-work-');
    const proxied = { SVC_BASE_URL: `${rig.proxy.origin}/api/v2`, SVC_AUTH_URL: rig.proxy.origin };
    const searched: { what: string; text: string }[] = [];
    const exempt: string[] = [];
    const keep = (what: string, r: SvcResult, stdoutExempt = false) => {
      searched.push({ what: `${what} (stderr)`, text: r.stderr });
      if (stdoutExempt) exempt.push(r.stdout);
      else searched.push({ what: `${what} (stdout)`, text: r.stdout });
      return r;
    };
    const env = { SVC_CONFIG_DIR: dir };
    const svc = async (args: string[], opts: { expectCode?: number; stdoutExempt?: boolean; input?: string; binary?: boolean } = {}) => {
      const r = await (opts.binary ? runSvc : svcInProcess)([...args, '-v'], { env, input: opts.input });
      keep(args.join(' '), r, opts.stdoutExempt);
      expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(opts.expectCode ?? 0);
      expectPrivate(dir);
      return r;
    };

    // Log in through the proxy (the profile then holds the proxy's URLs).
    const login = await cliLogin(rig.sb, dir, ['--verbose'], proxied);
    expect(login.code, login.stderr).toBe(0);
    searched.push({ what: 'login', text: login.stdout + login.stderr + login.consent.html });
    const code = new URL(login.consent.url).searchParams.get('code')!;
    expectPrivate(dir);

    // Reads, writes, errors.
    await svc(['prospects', 'list', '--limit', '2', '-o', 'json']);
    await svc(['prospects', 'get', '1', '--include', 'account']);
    const made = await svc(['prospects', 'create', '--attr', 'firstName=Sec', '--attr', 'emails=sec@secrets.test', '-o', 'json']);
    const id = JSON.parse(made.stdout).id as number;
    await svc(['prospects', 'update', String(id), '--attr', 'title=CISO', '-o', 'json']);
    await svc(['prospects', 'get', '99999999'], { expectCode: 1 });
    await svc(['prospects', 'create', '--attr', 'score:="high"', '-o', 'json'], { expectCode: 2 });
    await svc(['prospects', 'create', '--attr', 'noSuchField=1', '-o', 'json'], { expectCode: 1 });
    await svc(['prospects', 'delete', String(id), '--yes', '--dry-run']);
    await svc(['api', 'GET', '/', '-o', 'json']);
    await svc(['api', 'POST', 'accounts', '--data', '{"data":{"type":"account","attributes":{"name":"Secret Corp"}}}']);

    // A gateway error page that echoes the request, bearer token and all.
    const token1 = readConfig(dir).profiles.default!.accessToken as string;
    const echo = rig.proxy.always(
      { path: /^\/api\/v2\/prospects\/2(\?|$)/ },
      {
        kind: 'answer',
        status: 500,
        body: JSON.stringify({
          errors: [{ title: 'Upstream failed', detail: `request headers: authorization=Bearer ${token1}; token=${token1}` }],
        }),
      },
    );
    await svc(['prospects', 'get', '2', '-o', 'json'], { expectCode: 1 });
    echo();

    // Token lifecycle: a refresh before expiry, a 401 that refreshes once, a token endpoint
    // error that echoes the refresh token.
    editProfile(dir, 'default', { expiresAt: Date.now() + 10_000 });
    await svc(['prospects', 'list', '--limit', '1']);
    editProfile(dir, 'default', { accessToken: 'revoked-by-the-server-0123456789abcdef' });
    await svc(['prospects', 'list', '--limit', '1']);
    const rt = readConfig(dir).profiles.default!.refreshToken as string;
    const bad = rig.proxy.plan({ path: /^\/oauth\/token$/ }, [
      {
        kind: 'answer',
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          error: 'invalid_grant',
          error_description: `refresh_token ${rt} was not accepted for client_secret ${rig.sb.clientSecret}`,
        }),
      },
    ]);
    editProfile(dir, 'default', { expiresAt: Date.now() - 1000 });
    await svc(['prospects', 'list', '--limit', '1'], { expectCode: 3, binary: true });
    bad();
    await svc(['prospects', 'list', '--limit', '1']);

    // Bulk run with report and journal, and an enrolment.
    const input = inputFile(
      'secrets.ndjson',
      [1, 2, 3].map((i) => JSON.stringify({ firstName: `S${i}`, emails: [`s${i}@secrets.test`] })).join('\n') + '\n',
    );
    const report = path.join(work, 'report.ndjson');
    await svc(['prospects', 'create', '--input', input, '--report', report], { binary: true });
    const seq = await newSequence(rig.sb);
    const [p1, p2] = freeProspects(rig.sb, 2);
    await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--prospect', `${p1},${p2}`, '--report', '-']);

    // Webhooks: created (its record, with the cleanup token, is the stdout asked for), listed,
    // cleaned up with the token.
    const hook = await svc(
      ['webhooks', 'create', '--attr', 'url=https://hooks.example.test/in', '--attr', 'secret=whsec-0123456789abcdef', '-o', 'json'],
      { stdoutExempt: true },
    );
    const cleanupToken = JSON.parse(hook.stdout).cleanupToken as string;
    expect(cleanupToken).toMatch(/\S{16,}/);
    const listed = await svc(['webhooks', 'list', '-o', 'json']);
    // The service shows the owning app its webhook's secrets; svc prints them masked.
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ id: JSON.parse(hook.stdout).id, secret: '***', cleanupToken: '***' }),
    );
    await svc(['webhooks', 'list', '-o', 'csv']);
    await svc(['webhooks', 'cleanup', '--cleanup-token', cleanupToken]);
    await svc(['webhooks', 'cleanup', '--cleanup-token', '-'], { input: `${cleanupToken}\n`, expectCode: 0 });

    // Status, profiles, the token printed on purpose, logout.
    await svc(['auth', 'status']);
    await svc(['auth', 'status', '-o', 'json']);
    await svc(['profiles', 'list', '-o', 'json']);
    await svc(['auth', 'token'], { stdoutExempt: true, binary: true });
    const beforeLogout = readConfig(dir).profiles.default!;
    await svc(['logout']);

    // Every secret the session used.
    const secrets = new Set<string>([
      rig.sb.clientSecret,
      code,
      cleanupToken,
      'whsec-0123456789abcdef',
      token1,
      rt,
      beforeLogout.accessToken,
      beforeLogout.refreshToken,
    ]);
    for (const q of rig.sb.requests) {
      const auth = /^Bearer (\S+)$/.exec(String(q.headers.authorization ?? ''))?.[1];
      if (auth && auth !== rig.sb.token) secrets.add(auth);
      if (q.path === '/oauth/token')
        for (const k of ['refresh_token', 'code', 'client_secret']) {
          const v = new URLSearchParams(q.body).get(k);
          if (v) secrets.add(v);
        }
    }
    secrets.delete('revoked-by-the-server-0123456789abcdef');
    expect(secrets.size).toBeGreaterThanOrEqual(10);

    const written = [report, `${input}.journal.ndjson`, ...files(dir).filter((f) => path.basename(f) !== 'config.json')];
    for (const f of written) searched.push({ what: f, text: fs.readFileSync(f, 'utf8') });
    const leaks: string[] = [];
    for (const { what, text } of searched) for (const s of secrets) if (text.includes(s)) leaks.push(`${what}: ${s.slice(0, 6)}…`);
    expect(leaks).toEqual([]);
    // The exempt outputs did carry them (so the search is looking at the right things).
    expect(exempt.join('\n')).toContain(cleanupToken);
    expect(exempt.join('\n')).toContain(beforeLogout.accessToken);
    // And the trace shows what was redacted instead: the requests, the statuses.
    expect(searched.map((s) => s.text).join('\n')).toMatch(/^\* POST \S+\/oauth\/token \(grant_type=refresh_token\) → 200/m);
  });
});
