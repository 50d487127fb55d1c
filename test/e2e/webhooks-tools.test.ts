/**
 * `svc webhooks verify`, `cleanup` and `trigger` in-process (svcInProcess) (cleanup against the
 * sandbox's real endpoint). What sends nothing (verify's matches, the usage errors of cleanup,
 * create and trigger, their --dry-run) is checked in-process in
 * test/unit/commands/webhooks/usage.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/webhooks/signature.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { json, tempDir } from '../helpers/run-svc.js';

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

  it('exits 2 for a missing secret, signature or file', async () => {
    const noSecret = await svcInProcess(['webhooks', 'verify', '--signature', sig, file], { env: env() });
    expect([noSecret.code, noSecret.stderr]).toEqual([2, 'error: --secret is required (or SVC_WEBHOOK_SECRET)\n']);
    expect((await svcInProcess(['webhooks', 'verify', '--secret', 'k', file], { env: env() })).code).toBe(2);
    const missing = await svcInProcess(['webhooks', 'verify', '--secret', 'k', '--signature', sig, '/nonexistent/body.json'], {
      env: env(),
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read file \(ENOENT\)/);
  });
});

describe('webhooks cleanup', () => {
  async function createHook(): Promise<{ id: number; cleanupToken: string }> {
    const r = await svcInProcess(
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
    const first = await svcInProcess(['webhooks', 'cleanup', '--cleanup-token', hook.cleanupToken, '-v'], { env: noLogin });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/^webhook removed$/m);
    expect(json(first)).toEqual({ removed: true, alreadyGone: false });
    expect(sb.store.get('webhook', hook.id)).toBeUndefined();
    const sent = received(sb, mark, 'webhooks/cleanup');
    expect(sent.map((q) => [q.method, q.headers.authorization, q.status])).toEqual([['POST', `Bearer ${hook.cleanupToken}`, 204]]);

    const again = await svcInProcess(['webhooks', 'cleanup', '--cleanup-token', '-'], { env: noLogin, input: `${hook.cleanupToken}\n` });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('webhook already gone (404): nothing to remove\n');

    const bogus = await svcInProcess(['webhooks', 'cleanup', '--cleanup-token', 'not-a-real-token-123'], { env: noLogin });
    expect(bogus.code).toBe(3);
    expect(bogus.stderr).toBe('error: the cleanup token is not valid (401): no webhook was removed\n');
    for (const r of [first, again, bogus]) expect(r.stdout + r.stderr).not.toContain(hook.cleanupToken);
    expect(bogus.stderr).not.toContain('not-a-real-token-123');
  });
});

describe('webhooks trigger', () => {
  it('1 when nothing listens', async () => {
    const down = await svcInProcess(['webhooks', 'trigger', 'task.completed', '--to', 'http://127.0.0.1:9/'], { env: env() });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/could not deliver task\.completed .*ECONNREFUSED/);
  });
});
