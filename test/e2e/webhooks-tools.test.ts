/**
 * `svc webhooks verify`, `cleanup`, `trigger` and the create-time resource/action check, through
 * the built binary (cleanup against the sandbox's real endpoint).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/webhooks/signature.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { json, runSvc, tempDir } from '../helpers/run-svc.js';

let sb: TestSandbox;
let env: () => Record<string, string>;

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv());
});
afterAll(async () => {
  await sb?.close();
});

describe('webhooks verify', () => {
  const body = '{"data":{"type":"task","id":3,"attributes":{"completed":true}},"meta":{"eventName":"task.completed"}}\n';
  const file = path.join(tempDir(), 'body.json');
  fs.writeFileSync(file, body);
  const sig = signBody('k3y', body);

  it('exits 0 on a match (file or stdin), 1 on a mismatch, one line on stderr each time', async () => {
    const good = await runSvc(['webhooks', 'verify', '--secret', 'k3y', '--signature', sig, file], { env: env() });
    expect([good.code, good.stdout, good.stderr]).toEqual([0, '', 'signature matches\n']);
    const piped = await runSvc(['webhooks', 'verify', '--secret', 'k3y', '--signature', sig.toUpperCase(), '-'], {
      env: env(),
      input: body,
    });
    expect(piped.code).toBe(0);
    // One byte less (the trailing newline) is another body.
    const trimmed = await runSvc(['webhooks', 'verify', '--secret', 'k3y', '--signature', sig], { env: env(), input: body.trim() });
    expect([trimmed.code, trimmed.stderr]).toEqual([1, 'error: signature does not match the body and secret\n']);
    const malformed = await Promise.all(
      ['', 'abc', sig.slice(1), 'zz'.repeat(32)].map((s) =>
        runSvc(['webhooks', 'verify', '--secret', 'k3y', '--signature', s, file], { env: env() }),
      ),
    );
    for (const r of malformed) {
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    const wrongKey = await runSvc(['webhooks', 'verify', '--signature', sig, file], { env: { ...env(), SVC_WEBHOOK_SECRET: 'other' } });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).not.toContain('other');
  });

  it('exits 2 for a missing secret, signature or file', async () => {
    const noSecret = await runSvc(['webhooks', 'verify', '--signature', sig, file], { env: env() });
    expect([noSecret.code, noSecret.stderr]).toEqual([2, 'error: --secret is required (or SVC_WEBHOOK_SECRET)\n']);
    expect((await runSvc(['webhooks', 'verify', '--secret', 'k', file], { env: env() })).code).toBe(2);
    const missing = await runSvc(['webhooks', 'verify', '--secret', 'k', '--signature', sig, '/nonexistent/body.json'], { env: env() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read file \(ENOENT\)/);
  });
});

describe('webhooks cleanup', () => {
  async function createHook(): Promise<{ id: number; cleanupToken: string }> {
    const r = await runSvc(
      ['webhooks', 'create', '--attr', 'url=https://hooks.example.com/in', '--attr', 'resource=prospect', '--attr', 'action=created'],
      { env: env() },
    );
    expect(r.code, r.stderr).toBe(0);
    return json<{ id: number; cleanupToken: string }>(r);
  }

  it('204 → removed, 404 → already gone, 401 → invalid token; the token is sent as Bearer and never printed', async () => {
    const hook = await createHook();
    expect(sb.store.get('webhook', hook.id)).toBeDefined();
    const mark = sb.requests.length;
    // No user token at all: the cleanup token is the credential.
    const noLogin = { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: sb.baseUrl };
    const first = await runSvc(['webhooks', 'cleanup', '--cleanup-token', hook.cleanupToken, '-v'], { env: noLogin });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/^webhook removed$/m);
    expect(json(first)).toEqual({ removed: true, alreadyGone: false });
    expect(sb.store.get('webhook', hook.id)).toBeUndefined();
    const sent = received(sb, mark, 'webhooks/cleanup');
    expect(sent.map((q) => [q.method, q.headers.authorization, q.status])).toEqual([['POST', `Bearer ${hook.cleanupToken}`, 204]]);

    const again = await runSvc(['webhooks', 'cleanup', '--cleanup-token', '-'], { env: noLogin, input: `${hook.cleanupToken}\n` });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('webhook already gone (404): nothing to remove\n');

    const bogus = await runSvc(['webhooks', 'cleanup', '--cleanup-token', 'not-a-real-token-123'], { env: noLogin });
    expect(bogus.code).toBe(3);
    expect(bogus.stderr).toBe('error: the cleanup token is not valid (401): no webhook was removed\n');
    for (const r of [first, again, bogus]) expect(r.stdout + r.stderr).not.toContain(hook.cleanupToken);
    expect(bogus.stderr).not.toContain('not-a-real-token-123');
  });

  it('needs a token; --dry-run sends nothing', async () => {
    const mark = sb.requests.length;
    const none = await runSvc(['webhooks', 'cleanup'], { env: env() });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--cleanup-token is required/);
    const dry = await runSvc(['webhooks', 'cleanup', '--cleanup-token', 'abcdefgh', '--dry-run'], { env: env() });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(`POST ${sb.baseUrl}/webhooks/cleanup\nAuthorization: Bearer ***\n`);
    expect(sb.requests.length).toBe(mark);
  });
});

describe('webhooks create and trigger checks', () => {
  it('refuses a resource/action pair the service does not offer, sending nothing', async () => {
    const mark = sb.requests.length;
    const r = await runSvc(
      ['webhooks', 'create', '--attr', 'url=https://h.example.com', '--attr', 'resource=user', '--attr', 'action=destroyed'],
      { env: env() },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: webhook action: webhooks on user do not offer action "destroyed" (use one of *, created, updated)\n');
    const s = await runSvc(['webhooks', 'create', '--attr', 'url=https://h.example.com', '--attr', 'action=completed'], { env: env() });
    expect(s.code).toBe(2);
    expect(sb.requests.length).toBe(mark);
  });

  it('trigger: usage errors for bad events and URLs; 1 when nothing listens', async () => {
    const e = await runSvc(['webhooks', 'trigger', 'prospect.*', '--to', 'http://127.0.0.1:9/'], { env: env() });
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/name one resource and one action/);
    const usage = await Promise.all(
      [
        ['import.updated', '--to', 'http://127.0.0.1:9/'],
        ['task.completed', '--to', 'ftp://x'],
        ['task.completed', '--to', 'http://127.0.0.1:9/', '--payload-version', '3'],
      ].map((args) => runSvc(['webhooks', 'trigger', ...args], { env: env() })),
    );
    expect(usage.map((r) => r.code)).toEqual([2, 2, 2]);
    const down = await runSvc(['webhooks', 'trigger', 'task.completed', '--to', 'http://127.0.0.1:9/'], { env: env() });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/could not deliver task\.completed .*ECONNREFUSED/);
    const dry = await runSvc(
      ['webhooks', 'trigger', 'mailing.opened', '--to', 'http://127.0.0.1:9/', '--secret', 'abc', '--payload-version', '2', '--dry-run'],
      { env: env() },
    );
    expect(dry.code).toBe(0);
    const [head, bodyText] = dry.stdout.split('\n\n');
    const body = JSON.parse(bodyText!) as { data: { attributes: Record<string, unknown> }; beforeUpdate: Record<string, unknown> };
    expect(body.data.attributes).toMatchObject({ state: 'opened', openCount: 1 });
    expect(body.beforeUpdate).toMatchObject({ state: 'delivered', openCount: 0 });
    expect(head).toContain(`Service-Webhook-Signature: ${signBody('abc', JSON.stringify(body))}`);
    expect(head).toContain('service-webhook-cleanup-token: ***');
  });
});
