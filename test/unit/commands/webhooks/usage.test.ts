/**
 * webhooks commands that send nothing, in-process: `verify` (exit 0 on a match, 1 on a mismatch),
 * the usage errors of `cleanup`, `create`, `trigger` and `listen --register`, and their
 * `--dry-run` output. (The e2e tests keep verify's usage errors, listen's refusal of a remote
 * service without --public-url, delivering to a closed port and cleanup against the sandbox,
 * through the built binary.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../../../src/webhooks/signature.js';
import { tempDir } from '../../../helpers/run-svc.js';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

describe('webhooks verify', () => {
  const body = '{"data":{"type":"task","id":3,"attributes":{"completed":true}},"meta":{"eventName":"task.completed"}}\n';
  const file = path.join(tempDir(), 'body.json');
  fs.writeFileSync(file, body);
  const sig = signBody('k3y', body);

  it('exits 0 on a match (file or stdin), 1 on a mismatch, one line on stderr each time', async () => {
    const good = await server.run(['webhooks', 'verify', '--secret', 'k3y', '--signature', sig, file]);
    expect([good.code, good.stdout, good.stderr]).toEqual([0, '', 'signature matches\n']);
    const piped = await server.run(['webhooks', 'verify', '--secret', 'k3y', '--signature', sig.toUpperCase(), '-'], server.env(), {
      input: body,
    });
    expect(piped.code).toBe(0);
    // One byte less (the trailing newline) is another body.
    const trimmed = await server.run(['webhooks', 'verify', '--secret', 'k3y', '--signature', sig], server.env(), { input: body.trim() });
    expect([trimmed.code, trimmed.stderr]).toEqual([1, 'error: signature does not match the body and secret\n']);
    const malformed = await Promise.all(
      ['', 'abc', sig.slice(1), 'zz'.repeat(32)].map((s) => server.run(['webhooks', 'verify', '--secret', 'k3y', '--signature', s, file])),
    );
    for (const r of malformed) {
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    const wrongKey = await server.run(['webhooks', 'verify', '--signature', sig, file], server.env({ SVC_WEBHOOK_SECRET: 'other' }));
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).not.toContain('other');
    expect(server.received).toEqual([]);
  });

  it('a mismatch only because of a final newline added on saving says so (still exit 1)', async () => {
    const bare = body.trim();
    const r = await server.run(['webhooks', 'verify', '--secret', 'k3y', '--signature', signBody('k3y', bare)], server.env(), {
      input: `${bare}\n`,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: signature does not match the body and secret\nhint: it matches the body without its final newline/);
  });
});

describe('webhooks cleanup', () => {
  it('needs a token; --dry-run sends nothing', async () => {
    const none = await server.run(['webhooks', 'cleanup']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--cleanup-token is required/);
    const dry = await server.run(['webhooks', 'cleanup', '--cleanup-token', 'abcdefgh', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(`POST ${server.baseUrl}/webhooks/cleanup\nAuthorization: Bearer ***\n`);
    expect(none.sent).toEqual([]);
    expect(dry.sent).toEqual([]);
  });
});

describe('webhooks create and trigger checks', () => {
  it('refuses a resource/action pair the service does not offer, sending nothing', async () => {
    const r = await server.run([
      'webhooks',
      'create',
      '--attr',
      'url=https://h.example.com',
      '--attr',
      'resource=user',
      '--attr',
      'action=destroyed',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: webhook action: webhooks on user do not offer action "destroyed" (use one of *, created, updated)\n');
    const s = await server.run(['webhooks', 'create', '--attr', 'url=https://h.example.com', '--attr', 'action=completed']);
    expect(s.code).toBe(2);
    expect(r.sent).toEqual([]);
    expect(s.sent).toEqual([]);
  });

  it('refuses a payloadVersion other than 1 or 2 and a url that is not HTTPS, --dry-run too, sending nothing', async () => {
    const create = (...attrs: string[]) =>
      server.run(['webhooks', 'create', '--attr', 'resource=task', ...attrs.flatMap((a) => ['--attr', a]), '--dry-run']);
    const three = await create('url=https://h.test/x', 'payloadVersion=3');
    expect([three.code, three.stderr]).toEqual([2, 'error: webhook payloadVersion: must be one of 1, 2 (got 3)\n']);
    const ftp = await create('url=ftp://h.test/x');
    expect([ftp.code, ftp.stderr]).toEqual([
      2,
      'error: webhook url: must use HTTPS (got "ftp://h.test/x"; plain http only to 127.0.0.1 or localhost)\n',
    ]);
    const spaced = await create('url=https://h.test/x ');
    expect([spaced.code, spaced.stderr]).toEqual([
      2,
      'error: webhook url: must not contain spaces or line breaks (got "https://h.test/x ")\n',
    ]);
    expect(spaced.sent).toEqual([]);
    const plain = await create('url=http://hooks.example.test/x');
    expect(plain.code).toBe(2);
    expect((await create('url=hooks.example.test/x')).stderr).toMatch(/url: must be an absolute HTTPS URL/);
    // A receiver on this machine: the sandbox delivers there over plain http (webhooks listen).
    for (const ok of ['url=https://h.test/x', 'url=http://127.0.0.1:9797/']) expect((await create(ok, 'payloadVersion=2')).code).toBe(0);
    expect(three.sent).toEqual([]);
    expect(ftp.sent).toEqual([]);
  });

  it('trigger: usage errors for bad events and URLs', async () => {
    const e = await server.run(['webhooks', 'trigger', 'prospect.*', '--to', 'http://127.0.0.1:9/']);
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/name one resource and one action/);
    const usage = await Promise.all(
      [
        ['import.updated', '--to', 'http://127.0.0.1:9/'],
        ['task.completed', '--to', 'ftp://x'],
        ['task.completed', '--to', 'http://127.0.0.1:9/', '--payload-version', '3'],
      ].map((args) => server.run(['webhooks', 'trigger', ...args])),
    );
    expect(usage.map((r) => r.code)).toEqual([2, 2, 2]);
  });

  it('trigger --dry-run prints the signed delivery instead of sending it', async () => {
    const dry = await server.run([
      'webhooks',
      'trigger',
      'mailing.opened',
      '--to',
      'http://127.0.0.1:9/',
      '--secret',
      'abc',
      '--payload-version',
      '2',
      '--dry-run',
    ]);
    expect(dry.code).toBe(0);
    const [head, bodyText] = dry.stdout.split('\n\n');
    const body = JSON.parse(bodyText!) as { data: { attributes: Record<string, unknown> }; beforeUpdate: Record<string, unknown> };
    expect(body.data.attributes).toMatchObject({ state: 'opened', openCount: 1 });
    expect(body.beforeUpdate).toMatchObject({ state: 'delivered', openCount: 0 });
    expect(head).toContain(`Service-Webhook-Signature: ${signBody('abc', JSON.stringify(body))}`);
    expect(head).toContain('service-webhook-cleanup-token: ***');
  });

  it('trigger --dry-run prints the body as it would be sent: the printed bytes verify against the printed signature', async () => {
    const dry = await server.run([
      'webhooks',
      'trigger',
      'prospect.updated',
      '--to',
      'http://127.0.0.1:9/',
      '--secret',
      's3cret',
      '--dry-run',
    ]);
    expect(dry.code).toBe(0);
    const sig = /^Service-Webhook-Signature: (\w+)$/m.exec(dry.stdout)![1]!;
    // What a user copies: the body after the blank line, without the newline that ends the output.
    const body = dry.stdout.split('\n\n')[1]!.replace(/\n$/, '');
    const ok = await server.run(['webhooks', 'verify', '--secret', 's3cret', '--signature', sig], server.env(), { input: body });
    expect([ok.code, ok.stderr]).toEqual([0, 'signature matches\n']);
  });

  it('trigger sends the sample cleanup-token header its --dry-run shows, and the signed bytes', async () => {
    const r = await server.run(['webhooks', 'trigger', 'task.completed', '--to', `${server.baseUrl}/hook`, '--secret', 's3cret']);
    expect(r.code).toBe(1); // the recording server answers 400
    expect(r.sent).toHaveLength(1);
    const { headers, body } = r.sent[0]!;
    expect(headers['service-webhook-cleanup-token']).toMatch(/^sample-[0-9a-f]{24}$/);
    expect(headers['service-webhook-signature']).toBe(signBody('s3cret', body));
    expect(r.stdout + r.stderr).not.toContain(String(headers['service-webhook-cleanup-token']));
  });
});

describe('webhooks listen --register', () => {
  it('refuses a plain-HTTP --public-url and an action the resource does not offer; --dry-run prints the registrations, sending nothing', async () => {
    const remote = ['--base-url', 'https://api.example.com/api/v2', '--token', 't'];
    const api = ['--base-url', server.baseUrl, '--token', 't'];
    const b = await server.run(['webhooks', 'listen', '--port', '0', '--register', '--public-url', 'http://tunnel.example', ...remote]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/must be an HTTPS URL/);
    const c = await server.run(['webhooks', 'listen', '--port', '0', '--events', 'user.destroyed', ...api]);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/user\.destroyed: webhooks on user do not offer action "destroyed"/);
    const dry = await server.run([
      'webhooks',
      'listen',
      '--port',
      '0',
      '--register',
      '--events',
      'task.completed,user',
      '--dry-run',
      ...api,
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.match(/^POST .*\/webhooks$/gm)).toHaveLength(2);
    expect(dry.stdout).toContain('"resource": "user"');
    expect(dry.stdout).toContain('"secret": "***"');
    expect([...b.sent, ...c.sent, ...dry.sent]).toEqual([]);
  });
});
