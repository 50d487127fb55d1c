/**
 * Where a token may go, and the listeners svc opens:
 * - a stored login's token goes to its profile's base and auth URLs only: not to another host
 *   named by --base-url/--auth-url (or their env vars), an absolute URL given to `svc api`, a
 *   `links.next` pointing elsewhere, or a redirect;
 * - the login listener is bound to 127.0.0.1, refuses other `state`s and other Host headers, and
 *   takes one redirect;
 * - the webhook listener refuses bad and missing signatures;
 * - CSV exports neutralise formula cells.
 *
 * Runs against a stored login, and the logins that store it, are in this process (`asUser`:
 * `svcInProcess`, `cliLoginInProcess`, the same program); the refresh refused for another
 * --auth-url, the login whose listener is under test and the webhook listener run the built bin/svc.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/webhooks/signature.js';
import { startSvc } from '../helpers/long-running.js';
import { cliLoginInProcess } from '../helpers/in-process-login.js';
import { authorizeUrlOf, editProfile, loginEnv, playConsent, readConfig } from '../helpers/oauth.js';
import { expectCleanFailure, startRig, type Rig } from '../helpers/reliability.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { runSvc, tempDir } from '../helpers/run-svc.js';
import { startTinyServer } from '../helpers/tiny-server.js';

let rig: Rig;
let evil: Awaited<ReturnType<typeof startTinyServer>>;
let dir: string;
beforeAll(async () => {
  rig = await startRig({ seed: 45, tokenIssueIntervalMs: 0 });
  // A host that would love to receive a token.
  evil = await startTinyServer(() => ({ status: 200, body: '{"data":[]}' }));
  // A stored login (through the proxy, so that answers can be tampered with).
  dir = tempDir();
  const r = await cliLoginInProcess(rig.sb, dir, [], { SVC_BASE_URL: `${rig.proxy.origin}/api/v2`, SVC_AUTH_URL: rig.proxy.origin });
  expect(r.code, r.stderr).toBe(0);
});
afterAll(async () => {
  await evil.close();
  await rig.close();
});

const asUser = (args: string[], extra: Record<string, string> = {}) => svcInProcess(args, { env: { SVC_CONFIG_DIR: dir, ...extra } });
/** Requests the other host received under a test's own path prefix (tests run concurrently). */
const hits = (tag: string) => evil.received.filter((q) => q.url.startsWith(`/${tag}/`)).length;

describe.concurrent('a stored token goes to its own API only', () => {
  it('--base-url or SVC_BASE_URL naming another host: exit 2, nothing sent there', async () => {
    const other = `${evil.url}/base/api/v2`;
    for (const extra of [
      [['--base-url', other], {}],
      [[], { SVC_BASE_URL: other }],
    ] as const) {
      const r = await asUser(['prospects', 'list', ...extra[0]], extra[1]);
      expectCleanFailure(
        r,
        2,
        new RegExp(`^error: --base-url ${other}: profile "default" is logged in to ${rig.proxy.origin}; its tokens are sent there only$`),
      );
      expect(r.stderr).toMatch(/hint: for another API use --token/);
    }
    // A bulk run too: refused before its first request.
    const ids = path.join(tempDir(), 'ids.csv');
    fs.writeFileSync(ids, 'id\n1\n2\n');
    const bulk = await asUser(['prospects', 'delete', '--input', ids, '--yes', '--base-url', other]);
    expect(bulk.code, bulk.stderr).toBe(2);
    expect(bulk.stderr).toMatch(/error: --base-url \S+: profile "default" is logged in to/);
    expect(hits('base')).toBe(0);
  });

  it('--auth-url naming another host with a token to refresh: exit 2, no refresh token or client secret sent', async () => {
    const mine = tempDir();
    const login = await cliLoginInProcess(rig.sb, mine, [], { SVC_BASE_URL: `${rig.proxy.origin}/api/v2`, SVC_AUTH_URL: rig.proxy.origin });
    expect(login.code).toBe(0);
    editProfile(mine, 'default', { expiresAt: Date.now() - 1000 });
    const r = await runSvc(['prospects', 'list', '--auth-url', `${evil.url}/auth/`], { env: { SVC_CONFIG_DIR: mine } });
    expectCleanFailure(r, 2, /^error: --auth-url http:\/\/127\.0\.0\.1:\d+\/auth\/: profile "default" is logged in to /);
    expect(hits('auth')).toBe(0);
    // The same origin with another path is the same API: allowed.
    const ok = await runSvc(['prospects', 'list', '--limit', '1', '--auth-url', `${rig.proxy.origin}/`], { env: { SVC_CONFIG_DIR: mine } });
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('--token for another host is fine: the stored token is not involved', async () => {
    const r = await asUser(['prospects', 'list', '--base-url', `${evil.url}/token/api/v2`, '--token', 'a-token-for-that-host-0123456789']);
    expect(r.code, r.stderr).toBe(0);
    const got = evil.received.filter((q) => q.url.startsWith('/token/'));
    expect(got).toHaveLength(1);
    expect(got[0]!.headers.authorization).toBe('Bearer a-token-for-that-host-0123456789');
  });

  it('svc api with an absolute URL to another host: exit 2, nothing sent', async () => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const r = await asUser(['api', method, `${evil.url}/api/api/v2/prospects`, ...(method === 'POST' ? ['--data', '{}'] : [])]);
      expectCleanFailure(r, 2, new RegExp(`^error: refusing to send the token to ${evil.url}: not this profile's API`));
    }
    // Scheme-relative and user-info tricks are other hosts too.
    const port = new URL(evil.url).port;
    for (const sneaky of [
      `//127.0.0.1:${port}/api/x`,
      `${rig.proxy.origin}@127.0.0.1:${port}/api/x`,
      `http://127.0.0.1:${port}\\@${new URL(rig.proxy.origin).host}/api/x`,
    ]) {
      const r = await asUser(['api', 'GET', sneaky]);
      expect(r.code, `${sneaky}\n${r.stderr}`).not.toBe(0);
    }
    expect(hits('api')).toBe(0);
  });

  it('links.next pointing to another host: list stops with exit 1, api --paginate warns and stops; nothing sent there', async () => {
    const poison = rig.proxy.always(
      { path: /^\/api\/v2\/accounts\?/ },
      {
        kind: 'rewrite',
        body: (b) => JSON.stringify({ ...JSON.parse(b), links: { next: `${evil.url}/next/api/v2/accounts?page%5Boffset%5D=2` } }),
      },
    );
    const list = await asUser(['accounts', 'list', '--all', '--page-size', '2', '-o', 'json']);
    expectCleanFailure(list, 1, /^error: unsafe next link: server's links\.next points to http:\/\/127\.0\.0\.1:\d+, not /);
    const api = await asUser(['api', 'GET', 'accounts?page[limit]=2', '--paginate']);
    expect(api.code, api.stderr).toBe(0);
    expect(api.stderr).toMatch(/warning: not following links\.next to another host/);
    poison();
    expect(hits('next')).toBe(0);
  });

  it('a redirect to another host is not followed', async () => {
    const redirect = rig.proxy.always(
      { path: /^\/api\/v2\/prospects\/7(\?|$)/ },
      { kind: 'answer', status: 307, headers: { location: `${evil.url}/redirect/api/v2/prospects/7` }, body: '' },
    );
    const r = await asUser(['prospects', 'get', '7']);
    redirect();
    expectCleanFailure(r, 1);
    expect(hits('redirect')).toBe(0);
  });
});

describe('the login listener', () => {
  it('listens on 127.0.0.1 only, refuses other Host headers and states, takes one redirect', async () => {
    const config = tempDir();
    const run = startSvc(['login', '--no-browser', '--port', '0'], { env: loginEnv(rig.sb, config) });
    const url = new URL(await authorizeUrlOf(run));
    const callback = new URL(url.searchParams.get('redirect_uri')!);
    const state = url.searchParams.get('state')!;
    const port = Number(callback.port);
    // Another loopback address reaches the same machine but not a socket bound to 127.0.0.1.
    const other = await new Promise<string>((resolve) => {
      const s = net.connect({ host: '127.0.0.2', port }, () => {
        s.destroy();
        resolve('connected');
      });
      s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    expect(other).toBe('ECONNREFUSED');
    const mark = rig.sb.requests.length;
    const get = (q: string, headers: Record<string, string> = {}) => fetch(`${callback.origin}/callback?${q}`, { headers });
    // Near misses of the state, a duplicated state, an empty one, another Host (DNS rebinding).
    for (const bad of [`${state}x`, state.slice(0, -1), state.toUpperCase() === state ? state.toLowerCase() : state.toUpperCase(), '']) {
      expect((await get(`code=forged&state=${encodeURIComponent(bad)}`)).status).toBe(400);
    }
    expect((await get(`code=forged&state=wrong&state=${state}`)).status).toBe(400);
    const rebinding = await new Promise<number>((resolve, reject) => {
      const req = http.get(
        { host: '127.0.0.1', port, path: `/callback?code=forged&state=${state}`, headers: { host: `evil.example:${port}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
    });
    expect(rebinding).toBe(400);
    // No code was exchanged for any of these.
    expect(rig.sb.requests.slice(mark).filter((q) => q.path === '/oauth/token')).toHaveLength(0);
    const ok = await playConsent(url.toString(), 'approve');
    expect(ok.status).toBe(200);
    expect(await run.exited, run.stderr()).toBe(0);
    expect(rig.sb.requests.slice(mark).filter((q) => q.path === '/oauth/token')).toHaveLength(1);
    expect(readConfig(config).profiles.default!.accessToken).toBeTruthy();
    // Refused redirects were reported without their code.
    expect(run.stderr()).toMatch(/refused a redirect/);
    expect(run.stderr()).not.toContain('forged');
  });
});

describe('the webhook listener', () => {
  it('accepts only the right HMAC of the exact body; bad, short, non-hex and missing signatures get 401', async () => {
    const l = startSvc(['webhooks', 'listen', '--port', '0', '--secret', 'wh-secret-123', '-o', 'ndjson'], {
      env: { SVC_CONFIG_DIR: tempDir() },
    });
    try {
      const [, url] = await l.waitFor('stderr', /Ready: listening on (http:\/\/127\.0\.0\.1:\d+\/)/);
      const body = JSON.stringify({
        data: { type: 'prospect', id: 1, attributes: { title: 'CEO' } },
        meta: { eventName: 'prospect.updated', deliveredAt: '2025-01-01T00:00:00.000Z' },
      });
      const good = signBody('wh-secret-123', body);
      const post = (sig: string | undefined, b = body) =>
        fetch(url!, { method: 'POST', body: b, headers: sig === undefined ? {} : { 'Service-Webhook-Signature': sig } }).then(
          (r) => r.status,
        );
      const flipped = good.slice(0, -1) + (good.endsWith('0') ? '1' : '0');
      const cases: [string | undefined, string, number][] = [
        [good, body, 200],
        [good.toUpperCase(), body, 200],
        [flipped, body, 401],
        [good.slice(0, 32), body, 401],
        [`${good}00`, body, 401],
        ['zz' + good.slice(2), body, 401],
        ['', body, 401],
        [undefined, body, 401],
        [signBody('another-secret', body), body, 401],
        [good, body + ' ', 401],
      ];
      for (const [sig, b, status] of cases) expect([sig?.slice(0, 10), status]).toEqual([sig?.slice(0, 10), await post(sig, b)]);
      await l.waitFor('stderr', /(refused a delivery[^\n]*\n[\s\S]*){8}/);
      expect(l.stdout().trim().split('\n')).toHaveLength(2);
      expect(l.stderr()).not.toContain('wh-secret-123');
    } finally {
      await l.stop();
    }
  });
});

describe('CSV exports', () => {
  it('cells a spreadsheet would run as formulas are neutralised; numbers stay numbers', async () => {
    const evilCells = ['=HYPERLINK("http://x.test","click")', '+1+1', '-2+3', '@SUM(A1:A9)', '\t=1+1', '\r=1+1'];
    const ids: number[] = [];
    for (const [i, v] of evilCells.entries()) {
      const r = await asUser([
        'prospects',
        'create',
        '--attr',
        `firstName=${v}`,
        '--attr',
        `lastName=Csv${i}`,
        '--attr',
        `emails==cmd${i}@csv.test`,
        '--attr',
        'title=-5',
        '-o',
        'json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      ids.push(JSON.parse(r.stdout).id);
    }
    const r = await asUser([
      'prospects',
      'list',
      '--filter',
      `id=${Math.min(...ids)}..${Math.max(...ids)}`,
      '--columns',
      'id,firstName,emails,title',
      '-o',
      'csv',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { parseCsv } = await import('../helpers/csv.js');
    const rows = parseCsv(r.stdout);
    expect(rows[0]).toEqual(['id', 'firstName', 'emails', 'title']);
    expect(rows.slice(1).map((row) => row[1])).toEqual(evilCells.map((v) => `'${v}`));
    for (const row of rows.slice(1)) {
      expect(row[2]).toMatch(/^'=cmd\d@csv\.test$/);
      expect(row[3]).toBe('-5');
      // Nothing a spreadsheet would evaluate.
      for (const cell of row) expect(cell).not.toMatch(/^[=+@\t\r]|^-(?!\d+$)/);
    }
  });
});
