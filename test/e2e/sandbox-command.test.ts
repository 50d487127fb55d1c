/**
 * `svc sandbox` (the built binary in its own process) and the zero-set-up `svc --sandbox`:
 * what it prints, that the printed token works, that another `svc --sandbox` reuses it, clean
 * shutdown on SIGTERM and SIGINT, and the in-process sandbox whose org persists. Bad options are
 * checked in-process in test/unit/commands/sandbox/usage.test.ts. The clients of a running
 * sandbox and the busy-port refusal run svc's program in the test process (svcInProcess); the
 * org persisted between runs is written by a built bin/svc process that has ended, and read
 * back in process.
 *
 * The tests run at once (describe.concurrent): each has a config dir of its own, so its own
 * sandbox process, state file and org, on ports of their own.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSvc } from '../helpers/long-running.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { json, runSvc, tempDir } from '../helpers/run-svc.js';

interface Info {
  baseUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  token: string;
}

async function get(info: Info, p: string): Promise<any> {
  const r = await fetch(info.baseUrl + p, { headers: { Authorization: `Bearer ${info.token}` } });
  expect(r.status).toBe(200);
  return r.json();
}

describe.concurrent('svc sandbox', () => {
  it('--json prints one line; the token works; svc --sandbox reuses it; SIGTERM stops it cleanly', async () => {
    const env = { SVC_CONFIG_DIR: tempDir() };
    const sb = startSvc(['sandbox', '--seed', '3', '--json'], { env });
    try {
      const line = (await sb.waitFor('stdout', /^.*\n/))[0];
      const info = JSON.parse(line) as Info;
      expect(Object.keys(info)).toEqual(['baseUrl', 'authUrl', 'clientId', 'clientSecret', 'token']);
      expect(info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
      expect(info.authUrl).toBe(info.baseUrl.replace(/\/api\/v2$/, ''));
      expect((await get(info, '/prospects?count=true')).meta.count).toBe(3);

      // The state file tells other terminals where it is (0600: it holds the token).
      const state = path.join(env.SVC_CONFIG_DIR, 'data', 'sandbox.json');
      expect(fs.statSync(state).mode & 0o777).toBe(0o600);

      // Another svc (svc's program in the test process) uses this sandbox (seed 3), not a fresh default org.
      const made = await svcInProcess(['--sandbox', 'accounts', 'create', '--attr', 'name=Made elsewhere', '--json'], { env });
      expect(made.code, made.stderr).toBe(0);
      const id = json<{ id: number }>(made).id;
      expect((await get(info, `/accounts/${id}`)).data.attributes.name).toBe('Made elsewhere');
      const listed = await svcInProcess(['--sandbox', 'prospects', 'list', '--count', '--json'], { env });
      expect(listed.code, listed.stderr).toBe(0);
      expect(json<unknown[]>(listed)).toHaveLength(3);

      expect(await sb.stop('SIGTERM')).toBe(0);
      expect(fs.existsSync(state)).toBe(false);
      await expect(fetch(info.baseUrl)).rejects.toThrow();
    } finally {
      await sb.stop('SIGKILL');
    }
  });

  it('human output with a curl line; Ctrl-C (SIGINT) stops it', async () => {
    const sb = startSvc(['sandbox', '-o', 'table'], { env: { SVC_CONFIG_DIR: tempDir() } });
    try {
      const [, baseUrl] = (await sb.waitFor('stdout', /^baseUrl\s+(\S+)$/m)) as RegExpMatchArray;
      const [, token] = (await sb.waitFor('stdout', /^token\s+(\S+)$/m)) as RegExpMatchArray;
      await sb.waitFor('stdout', /^try: curl /m);
      expect(sb.stdout()).toContain(`try: curl -H "Authorization: Bearer ${token}" ${baseUrl}/prospects`);
      await sb.waitFor('stderr', /sandbox running/);
      // The default org: a small believable one.
      const r = await fetch(`${baseUrl}/prospects?count=true`, { headers: { Authorization: `Bearer ${token}` } });
      expect(((await r.json()) as any).meta.count).toBe(25);
      const code = await sb.stop('SIGINT');
      expect(sb.stderr()).toMatch(/sandbox stopped/);
      expect(code).toBe(0);
    } finally {
      await sb.stop('SIGKILL');
    }
  });

  it('--port on a busy port: one line naming the port and the --port 0 fix, exit 2', async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const r = await svcInProcess(['sandbox', '--port', String(port)], { env: { SVC_CONFIG_DIR: tempDir() } });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `error: sandbox: port ${port} is already in use (127.0.0.1:${port})\nhint: stop what listens there, or choose another port: --port 0 picks a free one\n`,
      );
    } finally {
      busy.close();
    }
  });
});

describe.concurrent('svc --sandbox with no sandbox running', () => {
  it('starts one in-process whose org persists in the data directory between runs', async () => {
    const env = { SVC_CONFIG_DIR: tempDir() };
    const made = await runSvc(['--sandbox', 'accounts', 'create', '--attr', 'name=Kept between runs', '--json'], { env });
    expect(made.code, made.stderr).toBe(0);
    const id = json<{ id: number }>(made).id;
    expect(fs.existsSync(path.join(env.SVC_CONFIG_DIR, 'data', 'sandbox-org.json'))).toBe(true);
    const again = await svcInProcess(['--sandbox', 'accounts', 'get', String(id), '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(json<{ name: string }>(again).name).toBe('Kept between runs');
    // The same works from the environment variable.
    const viaEnv = await svcInProcess(['prospects', 'list', '--filter', 'title=CEO', '--json'], { env: { ...env, SVC_SANDBOX: '1' } });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    const rows = json<{ title: string }[]>(viaEnv);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.title).toBe('CEO');
    // Beside settings naming another API, the variable says what it overrides (the token unshown).
    const beside = await svcInProcess(['prospects', 'list', '--limit', '1'], {
      env: { ...env, SVC_SANDBOX: '1', SVC_BASE_URL: 'http://127.0.0.1:9/api/v2', SVC_TOKEN: 'prod-secret-token' },
    });
    expect(beside.code, beside.stderr).toBe(0);
    expect(beside.stderr).toContain(
      'warning: SVC_SANDBOX is set: the local sandbox answers, not the API that SVC_BASE_URL, SVC_TOKEN name (unset SVC_SANDBOX to use it)',
    );
    expect(beside.stderr + beside.stdout).not.toContain('prod-secret-token');
  });

  it('the commands its hints name keep --sandbox: they reach the same org', async () => {
    // They said plain `svc runs undo …` after `svc --sandbox …`: another org, or none (a trial).
    // With a profile in the environment too: the hints named `--sandbox --profile work`, a
    // command refused (a review); the sandbox has a profile of its own.
    const env = { SVC_CONFIG_DIR: tempDir(), SVC_PROFILE: 'work' };
    const made = await svcInProcess(['--sandbox', 'prospects', 'update', '1', '--attr', 'title=Hinted'], { env });
    const run = /recorded as run (\S+): svc --sandbox runs undo \S+ takes it back/.exec(made.stderr)?.[1];
    expect(run, made.stderr).toBeDefined();
    expect((await svcInProcess(['--sandbox', 'runs', 'undo', run!], { env })).code).toBe(0);
    const twice = await svcInProcess(['--sandbox', 'runs', 'undo', run!], { env });
    expect(twice.code).toBe(12);
    const hinted = /undo the undo: (svc .+)$/m.exec(twice.stderr)![1]!;
    expect(hinted).toMatch(/^svc --sandbox runs undo \S+$/);
    // Run as written, it redoes the change.
    expect((await svcInProcess(hinted.split(' ').slice(1), { env })).code).toBe(0);
    const now = await svcInProcess(['--sandbox', 'prospects', 'get', '1', '--json', 'title'], { env });
    expect(json<{ title: string }>(now).title).toBe('Hinted');
  });
});

describe.concurrent('svc sandbox under hostile clients', () => {
  /** Opens a raw connection, sends a request whose body stops short, and hangs up. */
  async function cutShort(info: Info, headers: Record<string, string>): Promise<void> {
    const { port, hostname } = new URL(info.baseUrl);
    const sock = net.connect(Number(port), hostname);
    sock.on('error', () => {});
    await new Promise<void>((r) => sock.on('connect', () => r()));
    const lines = Object.entries({ 'Content-Type': 'application/vnd.api+json', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
    sock.write(`POST /api/v2/prospects HTTP/1.1\r\nHost: x\r\n${lines.join('')}\r\n{"data":`);
    await new Promise((r) => setTimeout(r, 100));
    sock.destroy();
  }

  it('a body cut short or malformed, with or without a token, ends that request, not the process', async () => {
    const sb = startSvc(['sandbox', '--seed', '3', '--json'], { env: { SVC_CONFIG_DIR: tempDir() } });
    try {
      const info = JSON.parse((await sb.waitFor('stdout', /^.*\n/))[0]) as Info;
      await cutShort(info, { 'Content-Length': '100000' });
      await cutShort(info, { 'Content-Length': '100000', Authorization: `Bearer ${info.token}` });
      await cutShort(info, { 'Transfer-Encoding': 'chunked', Authorization: `Bearer ${info.token}` });
      await new Promise((r) => setTimeout(r, 300));
      expect(sb.child.exitCode, sb.stderr()).toBeNull();
      expect((await get(info, '/prospects?count=true')).meta.count).toBe(3);
      expect(sb.stderr()).not.toMatch(/ECONNRESET|aborted|at /);
    } finally {
      await sb.stop('SIGKILL');
    }
  });
});
