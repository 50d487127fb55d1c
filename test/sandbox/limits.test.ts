/** Rate limits, maintenance, latency, root, schema and types (spec: Limits, Errors, Schema endpoints). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/registry/index.js';
import { start, type Client } from '../helpers/sandbox.js';

let c: Client;
beforeAll(async () => {
  c = await start({ seed: 5 });
});
afterAll(() => c.sb.close());

describe('rate limits', () => {
  it('X-RateLimit-* on every response, including errors', async () => {
    for (const r of [await c.get('/prospects/1'), await c.get('/prospects/999999'), await c.get('/prospects', null)]) {
      expect(r.headers.get('x-ratelimit-limit')).toBe('10000');
      // The header itself, a whole number within the limit (Number(null) is 0: a missing header
      // passed the old '>= 0').
      expect(r.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeLessThanOrEqual(10000);
      expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    }
  });

  it('429 rateLimitExceeded with Retry-After once the hourly budget is spent', async () => {
    const small = await start({ seed: 5, rateLimit: 3 });
    try {
      const rs = [];
      for (let i = 0; i < 4; i++) rs.push(await small.get('/prospects/1'));
      expect(rs.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
      const last = rs[3]!;
      expect(last.status).toBe(429);
      expect(last.body.errors[0].id).toBe('rateLimitExceeded');
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await small.sb.close();
    }
  });
});

describe('every endpoint counts (spec: Limits, "all endpoints")', () => {
  it("the schemas count against the token's user and answer with its window; without a token, the address's", async () => {
    const small = await start({ seed: 5, rateLimit: 5 });
    try {
      const remaining = (r: { headers: Headers }) => r.headers.get('x-ratelimit-remaining');
      const first = await small.get('/prospects/1');
      // Before, the schemas counted nowhere and answered with a fresh window's headers (5 left,
      // a later reset): svc's shared budget took that for a new window and granted the hour again.
      const openapi = await small.get('/schema/openapi.json');
      const schema = await small.get('/schema.json');
      const after = await small.get('/prospects/1');
      expect([first, openapi, schema, after].map(remaining)).toEqual(['4', '3', '2', '1']);
      expect(new Set([first, openapi, schema, after].map((r) => r.headers.get('x-ratelimit-reset'))).size).toBe(1);
      // Anonymous requests count against the client's address, not the user.
      const anon = await small.get('/schema/openapi.json', null);
      expect(anon.status).toBe(200);
      expect(remaining(anon)).toBe('4');
      expect(remaining(await small.get('/prospects/1'))).toBe('0');
      const spent = await small.get('/schema.json');
      expect(spent.status).toBe(429);
    } finally {
      await small.sb.close();
    }
  });
});

describe('maintenance and latency', () => {
  it('503 scheduledServerMaintenance with Retry-After holding the ISO time', async () => {
    const until = new Date(Date.now() + 3600_000).toISOString();
    const m = await start({ seed: 5, maintenanceUntil: until });
    try {
      const r = await m.get('/prospects');
      expect(r.status).toBe(503);
      expect(r.body.errors[0].id).toBe('scheduledServerMaintenance');
      expect(r.headers.get('retry-after')).toBe(until);
    } finally {
      await m.sb.close();
    }
  });

  it('latencyMs delays responses', async () => {
    const slow = await start({ seed: 5, latencyMs: 120 });
    try {
      const t0 = Date.now();
      await slow.get('/prospects/1');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
    } finally {
      await slow.sb.close();
    }
  });
});

describe('root, types and schemas', () => {
  it('GET {base_url} describes application, token, organization and user', async () => {
    const r = await c.get('');
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ application: null, organization: { name: expect.any(String) }, user: { id: 1, admin: true } });
    expect(r.body.meta.token.scopes).toContain('prospects.all');
    expect(r.body.meta.token.expiresAt).toMatch(/^\d{4}-/);
  });

  it('GET /types returns the custom-field validations (needs a token)', async () => {
    expect((await c.get('/types', null)).status).toBe(401);
    const r = await c.get('/types');
    const prospect = r.body.data.find((d: any) => d.type === 'prospect');
    expect(prospect.meta.validations.custom1).toMatchObject({
      type: 'inclusion',
      required: false,
      label: expect.any(String),
      definition: expect.any(Array),
    });
    expect(prospect.meta.validations.custom2.definition).toBeNull();
  });

  it('GET /schema.json is a JSON Schema of every type; custom labels only with a token', async () => {
    const anon = await c.get('/schema.json', null);
    expect(anon.status).toBe(200);
    expect(Object.keys(anon.body.definitions)).toHaveLength(RESOURCES.length);
    expect(anon.body.definitions.prospect.properties.attributes.properties.custom1.title).toBeUndefined();
    const authed = await c.get('/schema.json');
    expect(authed.body.definitions.prospect.properties.attributes.properties.custom1.title).toBeTruthy();
  });

  it('GET /schema/openapi.json is a structurally valid OpenAPI 3 document from the registry', async () => {
    const r = await c.get('/schema/openapi.json', null);
    const d = r.body;
    expect(d.openapi).toMatch(/^3\.0\.\d$/);
    expect(d.servers).toEqual([{ url: c.sb.baseUrl }]);
    expect(d.info.title && d.info.version).toBeTruthy();
    const ops = new Set<string>();
    const refs: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) k === '$ref' ? refs.push(x as string) : walk(x);
    };
    walk(d);
    // Each check that fails is named and collected, then asserted once: an expect() per ref,
    // path, operation and response was ~6,500 calls, each updating vitest's assertion state.
    const bad: string[] = [];
    for (const ref of refs) {
      const target = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((o: any, k) => o?.[k], d);
      if (!target) bad.push(`${ref}: resolves to nothing`);
    }
    for (const [path, item] of Object.entries<any>(d.paths)) {
      if (!path.startsWith('/')) bad.push(`${path}: does not start with /`);
      for (const p of path.match(/\{(\w+)\}/g) ?? []) {
        const name = p.slice(1, -1);
        const params = [...(item.parameters ?? []), ...Object.values<any>(item).flatMap((o) => o?.parameters || [])];
        if (!params.some((x: any) => x.in === 'path' && x.name === name && x.required))
          bad.push(`${path}: no required path parameter ${name}`);
      }
      for (const [method, op] of Object.entries<any>(item)) {
        if (method === 'parameters') continue;
        const at = `${method} ${path}`;
        if (!['get', 'post', 'patch', 'delete', 'put'].includes(method)) bad.push(`${at}: not a method`);
        if (!(Object.keys(op.responses).length > 0)) bad.push(`${at}: no responses`);
        for (const [code, resp] of Object.entries<any>(op.responses)) {
          if (!/^[1-5]\d\d$/.test(code)) bad.push(`${at} ${code}: not a status code`);
          if (typeof resp.description !== 'string') bad.push(`${at} ${code}: description is ${typeof resp.description}`);
          for (const mt of Object.keys(resp.content ?? {}))
            if (mt !== 'application/vnd.api+json') bad.push(`${at} ${code}: media type ${mt}`);
        }
        if (op.requestBody) {
          const types = Object.keys(op.requestBody.content);
          if (types.length !== 1 || types[0] !== 'application/vnd.api+json')
            bad.push(`${at}: request body media types ${types.join(', ')}`);
        }
        if (ops.has(op.operationId)) bad.push(`${at}: operationId ${op.operationId} used twice`);
        ops.add(op.operationId);
      }
    }
    expect(bad).toEqual([]);
    expect(refs.length).toBeGreaterThan(0);
    // Only the operations the registry allows.
    expect(d.paths['/calls/{id}'].patch).toBeUndefined();
    expect(d.paths['/tasks/{id}/actions/markComplete'].post.parameters[0].name).toBe('actionParams[completionNote]');
  });
});
