/** Webhooks: registration rules, visibility, cleanup, deliveries (spec: Webhook endpoints, Events). */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAttributes } from '../../src/api/validate.js';
import { resourceByType } from '../../src/registry/index.js';
import { doc, start, until, type Client } from '../helpers/sandbox.js';

let c: Client;
let receiver: Server;
let url = '';
const got: { headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  c = await start({ seed: 5, webhookTiming: { retryDelayMs: 20, timeoutMs: 500 } });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(
        req.url === '/fail' ? 500 : req.url === '/redirect' ? 302 : 200,
        req.url === '/redirect' ? { Location: '/elsewhere' } : {},
      );
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await c.sb.close();
  await new Promise((r) => receiver.close(r));
});

const hook = (attrs: Record<string, unknown>, token?: string) => c.post('/webhooks', doc('webhook', attrs), token);

describe('registration', () => {
  it('201 with defaults, active and a cleanupToken', async () => {
    const r = await hook({ url: `${url}/x` });
    expect(r.status).toBe(201);
    expect(r.body.data.attributes).toMatchObject({ resource: '*', action: '*', payloadVersion: 1, active: true });
    expect(r.body.data.attributes.cleanupToken).toMatch(/\S{20,}/);
    expect(r.body.data.attributes.createdAt).toMatch(/\.\d{3}Z$/);
    await c.del(`/webhooks/${r.body.data.id}`);
  });

  it('validates resource/action against the table, the URL scheme and payloadVersion (422)', async () => {
    const bad = await hook({ url: `${url}/x`, resource: 'task', action: 'opened' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].source.pointer).toBe('/data/attributes/action');
    expect((await hook({ url: `${url}/x`, resource: 'template' })).status).toBe(422);
    expect((await hook({ url: 'http://example.com/hook' })).body.errors[0].source.pointer).toBe('/data/attributes/url');
    expect((await hook({ url: 'https://example.com/hook', payloadVersion: 3 })).status).toBe(422);
    const ok = await hook({ url: 'https://example.com/hook', resource: 'mailing', action: 'opened' });
    expect(ok.status).toBe(201);
    await c.del(`/webhooks/${ok.body.data.id}`);
  });

  it("what it refuses is what its OpenAPI document says and what svc checks before sending (the registry's enum and https-url format)", async () => {
    const schema = (await c.get('/schema/openapi.json', null)).body.components.schemas.Webhook.properties.attributes.properties;
    expect(schema.payloadVersion).toMatchObject({ type: 'integer', enum: [1, 2] });
    expect(schema.url).toMatchObject({ type: 'string', format: 'uri' });
    const pattern = new RegExp(schema.url.pattern);
    for (const u of [
      'https://example.com/hook',
      `${url}/x`,
      'http://localhost:9/',
      'http://[::1]:9/h',
      'http://example.com/hook',
      'ftp://h.test/x',
      'http://127.0.0.1.example.com/',
      // The scheme and host in capitals: the URL parser reads them so, the pattern must too (a review).
      'HTTPS://EXAMPLE.COM/hook',
      'HTTP://LOCALHOST:9/x',
      'HTTP://EXAMPLE.COM/hook',
      // White space the URL parser would drop, or keep encoded, and the stored value keep (a trial).
      'http://localhost:3000/hooks ',
      ' https://example.com/hook',
      'https://example.com/ho\tok',
    ]) {
      const r = await hook({ url: u });
      expect([u, r.status]).toEqual([u, pattern.test(u) ? 201 : 422]);
      expect([u, checkAttributes(resourceByType('webhook')!, { url: u }).length]).toEqual([u, pattern.test(u) ? 0 : 1]);
      if (r.status === 201) await c.del(`/webhooks/${r.body.data.id}`);
      else expect(r.body.errors[0].source.pointer).toBe('/data/attributes/url');
    }
    const three = await hook({ url: 'https://example.com/hook', payloadVersion: 3 });
    expect(three.body.errors[0]).toMatchObject({
      detail: 'payloadVersion must be one of: 1, 2.',
      source: { pointer: '/data/attributes/payloadVersion' },
    });
  });

  it('visibility: admin sees all, the creating app sees its own, others see redactions', async () => {
    const appToken = c.sb.issueToken({ appId: c.sb.clientId });
    const made = await hook({ url: 'https://example.com/h?key=abc', secret: 's3cret' }, appToken);
    expect(made.body.data.attributes.secret).toBe('s3cret');
    const id = made.body.data.id;
    const find = (r: any) => r.body.data.find((w: any) => w.id === id).attributes;
    expect(find(await c.get('/webhooks'))).toMatchObject({ secret: 's3cret', url: 'https://example.com/h?key=abc' });
    expect(find(await c.get('/webhooks', appToken)).secret).toBe('s3cret');
    const regular = c.sb.issueToken({ userId: 2 });
    const seen = find(await c.get('/webhooks', regular));
    expect(seen.secret).toBe('[REDACTED]');
    expect(seen.cleanupToken).toBe('[REDACTED]');
    expect(seen.url).not.toContain('abc');
    await c.del(`/webhooks/${id}`);
  });
});

describe('cleanup', () => {
  it('204 removed, 404 already gone, 401 invalid token — empty bodies', async () => {
    const made = await hook({ url: `${url}/x` });
    const tok = made.body.data.attributes.cleanupToken;
    const clean = (t: string) => fetch(`${c.sb.baseUrl}/webhooks/cleanup`, { method: 'POST', headers: { Authorization: `Bearer ${t}` } });
    const a = await clean(tok);
    expect(a.status).toBe(204);
    expect(await a.text()).toBe('');
    const b = await clean(tok);
    expect(b.status).toBe(404);
    expect(await b.text()).toBe('');
    const d = await clean('not-a-token');
    expect(d.status).toBe(401);
    expect(await d.text()).toBe('');
  });
});

describe('deliveries', () => {
  it('v1 created/updated carry only created or changed attributes, signed, with the cleanup token', async () => {
    const made = await hook({ url: `${url}/v1`, resource: 'prospect', secret: 'k' });
    const tok = made.body.data.attributes.cleanupToken;
    got.length = 0;
    const p = await c.post('/prospects', doc('prospect', { firstName: 'Hook' }));
    await c.patch(`/prospects/${p.body.data.id}`, doc('prospect', { title: 'CEO' }, {}, p.body.data.id));
    await until(() => got.length >= 2);
    const [created, updated] = got.map((g) => ({ ...g, json: JSON.parse(g.body) }));
    expect(created!.json.meta.eventName).toBe('prospect.created');
    expect(created!.json.data.attributes.firstName).toBe('Hook');
    expect(updated!.json.meta.eventName).toBe('prospect.updated');
    expect(Object.keys(updated!.json.data.attributes).sort()).toEqual(['title', 'updatedAt']);
    expect(updated!.json.data.attributes.updatedAt).toMatch(/\.\d{3}Z$/);
    expect(updated!.json).not.toHaveProperty('beforeUpdate');
    expect(updated!.headers['service-webhook-signature']).toBe(createHmac('sha256', 'k').update(updated!.body).digest('hex'));
    expect(updated!.headers['service-webhook-cleanup-token']).toBe(tok);
    await c.del(`/webhooks/${made.body.data.id}`);
  });

  it('v2 adds beforeUpdate; destroyed carries the last known attributes', async () => {
    const made = await hook({ url: `${url}/v2`, resource: 'account', payloadVersion: 2 });
    const a = await c.post('/accounts', doc('account', { name: 'Before' }));
    got.length = 0;
    await c.patch(`/accounts/${a.body.data.id}`, doc('account', { name: 'After' }, {}, a.body.data.id));
    await c.del(`/accounts/${a.body.data.id}`);
    const events = () => got.map((g) => JSON.parse(g.body)).filter((b) => b.data.id === a.body.data.id);
    await until(() => events().some((b) => b.meta.eventName === 'account.destroyed'));
    const upd = events().find((b) => b.meta.eventName === 'account.updated');
    const del = events().find((b) => b.meta.eventName === 'account.destroyed');
    expect(upd.beforeUpdate).toMatchObject({ type: 'account', id: a.body.data.id, name: 'Before' });
    expect(del.meta.eventName).toBe('account.destroyed');
    expect(del.data.attributes.name).toBe('After');
    await c.del(`/webhooks/${made.body.data.id}`);
  });

  it('special actions (sequenceState.finished, task.completed) are delivered to matching hooks only', async () => {
    const made = await hook({ url: `${url}/t`, resource: 'task', action: 'completed' });
    got.length = 0;
    const t = await c.post('/tasks', doc('task', { action: 'email' }));
    await c.post(`/tasks/${t.body.data.id}/actions/markComplete`);
    await until(() => got.length >= 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(got.map((g) => JSON.parse(g.body).meta.eventName)).toEqual(['task.completed']);
    await c.del(`/webhooks/${made.body.data.id}`);
  });

  it('any HTTP status acknowledges (no retry, no redirect followed); network failures get 4 attempts', async () => {
    const fail = await hook({ url: `${url}/fail`, resource: 'user' });
    const redirect = await hook({ url: `${url}/redirect`, resource: 'user' });
    const dead = await hook({ url: 'http://127.0.0.1:1/nobody', resource: 'user' });
    got.length = 0;
    await c.post('/users', doc('user', { firstName: 'W', email: 'w@x.test' }));
    await c.sb.webhooksIdle();
    const byUrl = (u: string) => c.sb.deliveries.filter((d) => d.url === u).at(-1)!;
    expect(byUrl(`${url}/fail`)).toMatchObject({ attempts: 1, status: 500 });
    expect(byUrl(`${url}/redirect`)).toMatchObject({ attempts: 1, status: 302 });
    expect(got.filter((g) => g.body.includes('user.created'))).toHaveLength(2);
    expect(byUrl('http://127.0.0.1:1/nobody')).toMatchObject({ attempts: 4 });
    expect(byUrl('http://127.0.0.1:1/nobody').status).toBeUndefined();
    for (const h of [fail, redirect, dead]) await c.del(`/webhooks/${h.body.data.id}`);
  });
});
