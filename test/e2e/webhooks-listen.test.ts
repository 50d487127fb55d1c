/**
 * `svc webhooks listen`: signatures checked on real HTTP requests, forwarding to a local app,
 * the trigger → listen round trip, and --register against the sandbox with a real delivery
 * caused by another svc run, then cleanup. Where the process is the point — the --register
 * listener stopped by SIGINT (exit 0, webhook removed) and --events stopped by SIGTERM — the
 * listener is the built bin/svc; elsewhere it runs in the test process (startInProcess, its
 * stop a Ctrl-C), as do the triggers and creates that reach it (svcInProcess): a listener
 * spawn costs ~0.2 CPU-s.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { signBody } from '../../src/webhooks/signature.js';
import { startSvc } from '../helpers/long-running.js';
import { startInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { json, tempDir } from '../helpers/run-svc.js';

let sb: Sandbox;
const env = () => ({ SVC_CONFIG_DIR: tempDir() });
const api = () => ['--base-url', sb.baseUrl, '--token', sb.token];

beforeAll(async () => {
  sb = await startSandbox({ webhookTiming: { retryDelayMs: 50 } });
});
afterAll(async () => {
  await sb?.close();
});

/** A local "app" that records what it receives. */
async function startApp(status = 202) {
  const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    got,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A listener: in the test process unless `process` (bin/svc, for tests that signal it). */
async function listen(args: string[], how: 'process' | 'in-process' = 'in-process') {
  const start = how === 'process' ? startSvc : startInProcess;
  const p = start(['webhooks', 'listen', '--port', '0', ...args], { env: env() });
  const [, url] = await p.waitFor('stderr', /Ready: listening on (http:\/\/127\.0\.0\.1:\d+\/)/);
  return { ...p, url: url! };
}

const delivery = JSON.stringify({
  data: { type: 'prospect', id: 7, attributes: { title: 'CEO' } },
  beforeUpdate: { type: 'prospect', id: 7, title: 'CTO' },
  meta: { deliveredAt: '2025-01-01T00:00:00.000Z', eventName: 'prospect.updated' },
});

describe('webhooks listen', () => {
  it('accepts a good signature, refuses a tampered body and a missing signature with 401', async () => {
    const l = await listen(['--secret', 'topsecret', '-o', 'ndjson']);
    try {
      const post = (body: string, sig?: string) =>
        fetch(l.url, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/vnd.api+json', ...(sig ? { 'Service-Webhook-Signature': sig } : {}) },
        });
      const good = await post(delivery, signBody('topsecret', delivery));
      expect(good.status).toBe(200);
      const tampered = await post(delivery.replace('CEO', 'CFO'), signBody('topsecret', delivery));
      expect(tampered.status).toBe(401);
      expect((await post(delivery)).status).toBe(401);
      expect((await post(delivery, 'abc')).status).toBe(401);
      await l.waitFor('stderr', /(refused a delivery[^\n]*\n[\s\S]*){3}/);
      expect(l.stderr()).toMatch(/refused a delivery to \/: no Service-Webhook-Signature \(answered 401\)/);
      const lines = l
        .stdout()
        .trim()
        .split('\n')
        .map((s) => JSON.parse(s) as Record<string, unknown>);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        event: 'prospect.updated',
        type: 'prospect',
        id: 7,
        attributes: { title: 'CEO' },
        beforeUpdate: { title: 'CTO' },
        signature: 'valid',
      });
      expect(l.stderr().match(/refused a delivery/g)).toHaveLength(3);
      expect(l.stderr()).not.toContain('topsecret');
    } finally {
      expect(await l.stop()).toBe(0);
    }
  });

  it('forwards raw body and headers to a local app; trigger → listen round trip in the human format', async () => {
    const app = await startApp(202);
    const l = await listen(['--secret', 'sh', '--forward-to', app.url]);
    try {
      const t = await svcInProcess(
        ['webhooks', 'trigger', 'prospect.updated', '--to', l.url, '--secret', 'sh', '--payload-version', '2', '-o', 'json'],
        { env: env() },
      );
      expect(t.code).toBe(0);
      const sent = json<{ status: number; payload: { data: { attributes: { title: string } } } }>(t);
      expect(sent.status).toBe(200);
      await l.waitFor('stdout', /→ http:\/\/127\.0\.0\.1:\d+\/hooks: 202/);
      // The app got exactly the bytes and signature the trigger sent.
      expect(app.got).toHaveLength(1);
      const body = app.got[0]!.body;
      expect(JSON.parse(body)).toEqual(sent.payload);
      expect(app.got[0]!.headers['service-webhook-signature']).toBe(signBody('sh', body));
      expect(app.got[0]!.headers['content-type']).toBe('application/vnd.api+json');
      expect(l.stdout()).toMatch(/prospect\.updated {2}prospect 42 {2}\(signature ok\)\n {2}title: VP Engineering → CTO\n/);
      // A wrongly signed trigger is refused: the trigger exits 1, nothing is forwarded.
      const bad = await svcInProcess(['webhooks', 'trigger', 'task.completed', '--to', l.url, '--secret', 'wrong'], { env: env() });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/answered 401/);
      await l.waitFor('stderr', /refused a delivery/);
      expect(app.got).toHaveLength(1);
    } finally {
      await l.stop();
      await app.close();
    }
  });

  it('-o ndjson: a forward the app refused is said on stderr too, not only in the line (a trial)', async () => {
    const app = await startApp(500);
    const l = await listen(['--secret', 'sh', '--forward-to', app.url, '-o', 'ndjson']);
    try {
      const t = await svcInProcess(['webhooks', 'trigger', 'prospect.updated', '--to', l.url, '--secret', 'sh'], { env: env() });
      expect(t.code).toBe(0);
      await l.waitFor(
        'stderr',
        /^warning: forwarding to http:\/\/127\.0\.0\.1:\d+\/hooks: 500 \(\d+ ms\); not sent again \(--catch-up retries until your receiver takes it\)$/m,
      );
      expect(JSON.parse(l.stdout().trim()).forwarded).toEqual({ status: 500 });
    } finally {
      await l.stop();
      await app.close();
    }
  });

  it('--events filters what is printed', async () => {
    const l = await listen(['--events', 'task.completed', '-o', 'ndjson'], 'process');
    try {
      expect(l.stderr()).toMatch(/warning: no --secret: signatures are not checked/);
      for (const e of ['prospect.created', 'task.completed']) {
        expect((await svcInProcess(['webhooks', 'trigger', e, '--to', l.url], { env: env() })).code).toBe(0);
      }
      await l.waitFor('stdout', /task\.completed/);
      expect(l.stdout()).not.toContain('prospect.created');
    } finally {
      await l.stop('SIGTERM');
    }
  });

  it('without --secret takes only requests addressed to this machine (no DNS rebinding, no posts from web pages)', async () => {
    const l = await listen(['-o', 'ndjson']);
    const port = Number(new URL(l.url).port);
    /** A POST with the given Host/Origin, as a browser would send it after DNS rebinding. */
    const post = (headers: Record<string, string>, body: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port, method: 'POST', path: '/hook', headers: { 'content-type': 'text/plain', ...headers } },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const hostile = (n: number) =>
      JSON.stringify({ data: { type: 'prospect', id: n, attributes: { title: `evil${n}` } }, meta: { eventName: 'prospect.updated' } });
    try {
      expect(await post({ host: `evil.example:${port}` }, hostile(1))).toBe(403);
      expect(await post({ host: `127.0.0.1.evil.example:${port}` }, hostile(2))).toBe(403);
      expect(await post({ host: `127.0.0.1:${port}`, origin: 'https://evil.example' }, hostile(3))).toBe(403);
      await l.waitFor('stderr', /Origin https:\/\/evil\.example/);
      expect(l.stderr()).toMatch(/refused a request to \/hook addressed to Host evil\.example:\d+: .*answered 403/);
      // Deliveries addressed to the loopback still arrive, by any of its names.
      expect(await post({ host: `127.0.0.1:${port}` }, hostile(4))).toBe(200);
      expect(await post({ host: `localhost:${port}` }, hostile(5))).toBe(200);
      await l.waitFor('stdout', /"id":5/);
      expect(l.stdout()).not.toMatch(/evil[123]/);
      // With a secret the signature decides, whatever the Host (a tunnel forwards its own name).
      const s = await listen(['--secret', 'sh', '-o', 'ndjson']);
      try {
        const body = hostile(6);
        const ok = await new Promise<number>((resolve, reject) => {
          const req = http.request(
            {
              host: '127.0.0.1',
              port: Number(new URL(s.url).port),
              method: 'POST',
              path: '/',
              headers: { host: 'abc.tunnel.example', 'service-webhook-signature': signBody('sh', body) },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode!);
            },
          );
          req.on('error', reject);
          req.end(body);
        });
        expect(ok).toBe(200);
        await s.waitFor('stdout', /"id":6/);
      } finally {
        await s.stop();
      }
    } finally {
      await l.stop();
    }
  });

  it('prints a delivery for people with control characters escaped and long values cut cleanly', async () => {
    const l = await listen(['-o', 'table']);
    try {
      const title = `CEO\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07${'e\u0301'.repeat(80)}`; // é as e + combining accent
      const body = JSON.stringify({
        data: { type: 'prospect', id: 7, attributes: { title, ['x\x1b[2Jname']: 'a\u202eb' } },
        meta: { eventName: 'prospect.updated\x1b[31m' },
      });
      await new Promise<void>((resolve, reject) => {
        const req = http.request(l.url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          resolve();
        });
        req.on('error', reject);
        req.end(body);
      });
      await l.waitFor('stdout', /prospect 7/);
      const out = l.stdout();
      expect(out).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
      expect(out).toMatch(/prospect\.updated\\e\[31m {2}prospect 7/);
      expect(out).toMatch(/^ {2}title: CEO\\e\]52;c;Y3VybCBldmlsIHwgc2g=\\a(?:e\u0301)+…$/m);
      expect(out).toContain('  x\\e[2Jname: a\\u202eb');
    } finally {
      await l.stop();
    }
  });

  it('a body nested 20,000 levels deep gets one line and the listener keeps going, in both formats', async () => {
    const deep = `{"data":{"type":"prospect","id":7,"attributes":{"x":${'['.repeat(20_000)}${']'.repeat(20_000)}}},"meta":{"eventName":"prospect.updated"}}`;
    const post = (url: string, body: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(body);
      });
    for (const format of ['table', 'ndjson']) {
      const l = await listen(['-o', format]);
      try {
        await post(l.url, deep);
        await post(l.url, delivery);
        await l.waitFor('stdout', format === 'table' ? /prospect\.updated {2}prospect 7/ : /"event":"prospect\.updated"/);
        const lines = l.stdout().trim().split('\n');
        // The good delivery after it is printed as usual (in the table format, with a line per attribute).
        expect(lines, l.stderr()).toHaveLength(format === 'table' ? 3 : 2);
        if (format === 'table') expect(lines[0]).toMatch(/\(a JSON document nested deeper than 100 levels: 40\d{3} bytes\)$/);
        else expect(JSON.parse(lines[0]!)).toMatchObject({ event: null, body: deep });
        expect(l.stderr()).not.toMatch(/unexpected|Maximum call stack|RangeError/);
      } finally {
        await l.stop();
      }
    }
  });

  it('--register receives a real delivery for a prospect created by another svc process, then cleans up', async () => {
    const l = await listen(['--register', '--events', 'prospect.created', '-o', 'ndjson', ...api()], 'process');
    let code: number | null = null;
    try {
      await l.waitFor('stderr', /registered webhook \d+ for prospect\.created/);
      const hooks = [...sb.store.table('webhook').values()];
      expect(hooks).toHaveLength(1);
      expect(hooks[0]!.attributes).toMatchObject({ url: l.url, resource: 'prospect', action: 'created', payloadVersion: 2 });
      const secret = hooks[0]!.attributes.secret as string;
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      const created = await svcInProcess(['prospects', 'create', '--attr', 'firstName=Webhook', '--attr', 'title=Listener', ...api()], {
        env: env(),
      });
      expect(created.code).toBe(0);
      const id = json<{ id: number }>(created).id;
      await l.waitFor('stdout', new RegExp(`"id":${id}`));
      const line = JSON.parse(l.stdout().trim().split('\n').at(-1)!) as Record<string, unknown>;
      expect(line).toMatchObject({
        event: 'prospect.created',
        type: 'prospect',
        id,
        signature: 'valid',
        attributes: { firstName: 'Webhook', title: 'Listener' },
      });
      // Secrets stay out of the output.
      expect(l.stderr() + l.stdout()).not.toContain(secret);
      expect(l.stderr() + l.stdout()).not.toContain(String(hooks[0]!.attributes.cleanupToken));
    } finally {
      code = await l.stop('SIGINT');
    }
    expect(code, l.stderr()).toBe(0);
    expect(l.stderr()).toMatch(/removed webhook \d+/);
    expect(sb.store.table('webhook').size).toBe(0);
    const cleanup = sb.requests.filter((r) => r.path.endsWith('/webhooks/cleanup'));
    expect(cleanup).toHaveLength(1);
    expect(cleanup[0]!.status).toBe(204);
    expect(cleanup[0]!.headers.authorization).not.toContain(sb.token);
  });

  it('--register removes the webhooks of a listener killed with -9, so the next one on that port gets each delivery once', async () => {
    const shared = env();
    const first = startSvc(['webhooks', 'listen', '--port', '0', '--register', '--events', 'prospect.created', ...api()], { env: shared });
    const [, port] = await first.waitFor('stderr', /registered webhook \d+ for prospect\.created → http:\/\/127\.0\.0\.1:(\d+)\//);
    await first.stop('SIGKILL');
    expect(sb.store.table('webhook').size).toBe(1);
    const l = startInProcess(
      ['webhooks', 'listen', '--port', port!, '--register', '--events', 'prospect.created', '-o', 'ndjson', ...api()],
      {
        env: shared,
      },
    );
    let code: number | null = null;
    try {
      await l.waitFor('stderr', /Ready: listening/);
      expect(l.stderr()).toMatch(
        /removing 1 webhook left registered by an earlier listener that could not remove them \(pid \d+\)\nremoved webhook \d+\n/,
      );
      expect(sb.store.table('webhook').size).toBe(1);
      const created = await svcInProcess(['prospects', 'create', '--attr', 'firstName=Once', ...api()], { env: shared });
      const id = json<{ id: number }>(created).id;
      await l.waitFor('stdout', new RegExp(`"id":${id}`));
      await new Promise((r) => setTimeout(r, 300));
      expect(l.stdout().trim().split('\n')).toHaveLength(1);
      code = await l.stop();
      expect(code).toBe(0);
      expect(sb.store.table('webhook').size).toBe(0);
    } finally {
      if (code === null) await l.stop();
      // A failure here must not leave its webhooks to the tests after it.
      sb.store.table('webhook').clear();
    }
  });

  // That a next run removes what such a file holds is the kill -9 test's (above): here, that it is kept, owner-only.
  it('--register keeps a webhook it could not remove on exit (the API gone) in an owner-only file, for the next run to remove', async () => {
    const gone = await startSandbox();
    const shared = env();
    const l = startInProcess(
      ['webhooks', 'listen', '--port', '0', '--register', '--events', 'task.completed', '--base-url', gone.baseUrl, '--token', gone.token],
      {
        env: shared,
      },
    );
    const [, id] = await l.waitFor('stderr', /registered webhook (\d+) for task\.completed/);
    await gone.close();
    expect(await l.stop()).toBe(0);
    expect(l.stderr()).toContain(`could not remove webhook ${id}`);
    const folder = path.join(shared.SVC_CONFIG_DIR, 'data', 'listen-hooks');
    const held = fs.readdirSync(folder).map((f) => JSON.parse(fs.readFileSync(path.join(folder, f), 'utf8')));
    expect(held).toEqual([expect.objectContaining({ baseUrl: gone.baseUrl, hooks: [expect.objectContaining({ id })] })]);
    expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
    for (const f of fs.readdirSync(folder)) expect(fs.statSync(path.join(folder, f)).mode & 0o777).toBe(0o600);
  });

  it('--register spends no cleanup token of a held-hooks file not its own alone, and a malformed one does not stop it', async () => {
    const shared = env();
    const folder = path.join(shared.SVC_CONFIG_DIR, 'data', 'listen-hooks');
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    // As a run that is gone (no such pid) against this API would have left them.
    const held = (token: string | null) =>
      JSON.stringify({
        kind: 'svc-listen-hooks',
        pid: 4_194_305,
        host: os.hostname(),
        baseUrl: sb.baseUrl,
        hooks: [token === null ? null : { id: '77', resource: 'task', action: 'completed', cleanupToken: token }],
      });
    fs.writeFileSync(path.join(folder, '1-a.json'), held(null), { mode: 0o600 });
    fs.writeFileSync(path.join(folder, '2-b.json'), held('planted-by-another-user'));
    fs.chmodSync(path.join(folder, '2-b.json'), 0o666);
    const elsewhere = path.join(tempDir(), 'x.json');
    fs.writeFileSync(elsewhere, held('linked-from-elsewhere'), { mode: 0o600 });
    fs.symlinkSync(elsewhere, path.join(folder, '3-c.json'));
    const before = sb.requests.length;
    const l = startInProcess(['webhooks', 'listen', '--port', '0', '--register', '--events', 'task.completed', ...api()], { env: shared });
    try {
      await l.waitFor('stderr', /Ready: listening/);
    } finally {
      expect(await l.stop(), l.stderr()).toBe(0);
    }
    expect(l.stderr()).not.toContain('removing');
    const cleanups = sb.requests.slice(before).filter((r) => r.path.endsWith('/webhooks/cleanup'));
    expect(cleanups).toHaveLength(1); // its own webhook's
    expect(String(cleanups[0]!.headers.authorization)).not.toMatch(/planted|linked/);

    // A folder that is a symlink (to one others may write) is refused before a webhook is made.
    const open = tempDir();
    fs.chmodSync(open, 0o777);
    const other = env();
    fs.mkdirSync(path.join(other.SVC_CONFIG_DIR, 'data'), { recursive: true });
    fs.symlinkSync(open, path.join(other.SVC_CONFIG_DIR, 'data', 'listen-hooks'));
    const made = sb.requests.length;
    const r = await svcInProcess(['webhooks', 'listen', '--port', '0', '--register', '--events', 'task.completed', ...api()], {
      env: other,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('listen-hooks is a symlink: refusing to keep webhook cleanup tokens there');
    expect(sb.requests.slice(made).filter((q) => q.method === 'POST')).toEqual([]);
    expect(fs.readdirSync(open)).toEqual([]);
  });

  // The other refusals of --register, and its --dry-run, are checked in-process in
  // test/unit/commands/webhooks/usage.test.ts.
  it('refuses --register against a remote service without --public-url, sending nothing', async () => {
    const before = sb.requests.length;
    const remote = ['--base-url', 'https://api.example.com/api/v2', '--token', 't'];
    const a = await svcInProcess(['webhooks', 'listen', '--port', '0', '--register', ...remote], { env: env() });
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/needs --public-url https/);
    expect(sb.requests.length).toBe(before);
    expect(sb.store.table('webhook').size).toBe(0);
  });
});
