/**
 * Records a well-behaved service would not send, from a scripted server: ids above 2^53 and an
 * attribute named `__proto__`. What the CLI prints, and what it sends back, must keep both intact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, tempDir } from '../helpers/run-svc.js';
import { startTinyServer, type Received, type Responder } from '../helpers/tiny-server.js';

const BIG = '9007199254740993'; // 2^53 + 1: JSON.parse and Number() make it …992
let server: Awaited<ReturnType<typeof startTinyServer>>;
let base: string;

// Written by hand: JSON.stringify cannot write a number above 2^53 exactly.
const record = `{"type":"prospect","id":${BIG},"attributes":{"firstName":"Eve","__proto__":{"polluted":"yes"},"score":12345678901234567890},"relationships":{"account":{"data":{"type":"account","id":${BIG}}}}}`;

beforeAll(async () => {
  server = await startTinyServer((req: Received): ReturnType<Responder> => {
    const u = new URL(req.url, 'http://x');
    if (req.method === 'GET' && u.pathname === '/api/v2/prospects') return { status: 200, body: `{"data":[${record}],"links":{},"meta":{"count":null}}` };
    if (req.method === 'GET' && u.pathname.startsWith('/api/v2/prospects/')) return { status: 200, body: `{"data":${record}}` };
    if (req.method === 'DELETE' && u.pathname.startsWith('/api/v2/prospects/')) return { status: 204 };
    if (req.method === 'PATCH' && u.pathname.startsWith('/api/v2/prospects/')) return { status: 200, body: `{"data":${record}}` };
    return { status: 404, body: JSON.stringify({ errors: [{ id: 'resourceNotFound', title: 'Resource not found' }] }) };
  });
  base = `${server.url}/api/v2`;
});
afterAll(async () => {
  await server.close();
});

const env = () => ({ SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: base, SVC_TOKEN: 'tok_test_abcdef123456' });

describe('an attribute named __proto__', () => {
  it('is an ordinary field in json, ndjson and csv output', async () => {
    for (const format of ['json', 'ndjson']) {
      const r = await runSvc(['prospects', 'list', '-o', format], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('"__proto__":');
      const rec = (format === 'json' ? JSON.parse(r.stdout)[0] : JSON.parse(r.stdout.trim())) as Record<string, unknown>;
      expect(Object.hasOwn(rec, '__proto__'), format).toBe(true);
      expect(Object.getOwnPropertyDescriptor(rec, '__proto__')!.value).toEqual({ polluted: 'yes' });
    }
    const csv = await runSvc(['prospects', 'list', '-o', 'csv'], { env: env() });
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[0]!.split(',')).toContain('__proto__');
  });

  it('shows as its own row in the table view, not as columns of its members', async () => {
    const r = await runSvc(['prospects', 'get', '7', '-o', 'table'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^__proto__\s+\{"polluted":"yes"\}$/m);
    expect(r.stdout).not.toMatch(/^polluted/m);
    const t = await runSvc(['prospects', 'list', '-o', 'table', '--columns', 'id,polluted,constructor'], { env: env() });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).not.toContain('yes');
    expect(t.stdout).not.toContain('function');
  });
});
