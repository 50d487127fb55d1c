/**
 * The API core against a scripted local server: `svc api`, error mapping, non-JSON answers,
 * poisoned links, run in-process (svcInProcess: the real program, no process to start), and a
 * usage error that sends nothing through the real binary (the others, and an absolute URL to
 * another host, in-process in test/unit/commands/).
 *
 * Time: the retried 5xx answers and the refused connection each wait out svc's backoff
 * (0.2 + 0.4 + 0.8 s); the tests share only the stateless scripted server (each has its own
 * config dir), so they wait side by side (describe.concurrent); the tests that count what the
 * server received run alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { json, runSvc, tempDir } from '../helpers/run-svc.js';
import { startTinyServer, type Received, type Responder } from '../helpers/tiny-server.js';

const TOKEN = 'tok_test_abcdef123456';
let server: Awaited<ReturnType<typeof startTinyServer>>;
let base: string;
const page = (ids: number[], next?: string) =>
  JSON.stringify({
    data: ids.map((id) => ({
      type: 'prospect',
      id,
      attributes: { firstName: `P${id}` },
      relationships: { account: { data: { type: 'account', id: 1 } } },
    })),
    links: next ? { next } : {},
    meta: { count: null },
  });

beforeAll(async () => {
  server = await startTinyServer((req: Received): ReturnType<Responder> => {
    const u = new URL(req.url, 'http://x');
    if (u.pathname === '/api/v2/prospects' && !u.searchParams.has('page[offset]') && u.searchParams.get('poison') === null) {
      return {
        status: 200,
        body: page([1, 2], `${base}/prospects?page[limit]=2&page[offset]=2`),
        headers: { 'x-ratelimit-remaining': '9999, 19988', 'x-ratelimit-limit': '10000' },
      };
    }
    if (u.pathname === '/api/v2/prospects' && u.searchParams.get('page[offset]') === '2') return { status: 200, body: page([3]) };
    if (u.pathname === '/api/v2/prospects' && u.searchParams.has('poison'))
      return { status: 200, body: page([1], 'https://evil.example/steal?page[offset]=1') };
    if (u.pathname === '/api/v2/mailings') {
      // Big pages time out at the gateway, as long mailing bodies do.
      const limit = Number(u.searchParams.get('page[limit]'));
      const offset = Number(u.searchParams.get('page[offset]') ?? 0);
      if (limit > 250) return { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>502 Bad Gateway</html>' };
      const ids = Array.from({ length: Math.max(0, Math.min(limit, 600 - offset)) }, (_, i) => offset + i + 1);
      const data = ids.map((id) => ({ type: 'mailing', id, attributes: { subject: `m${id}` } }));
      const next = offset + limit < 600 ? `${base}/mailings?page[limit]=${limit}&page[offset]=${offset + limit}` : undefined;
      return { status: 200, body: JSON.stringify({ data, links: next ? { next } : { first: `${base}/mailings` } }) };
    }
    if (u.pathname === '/api/v2/html') return { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>Bad Gateway</html>' };
    if (u.pathname === '/api/v2/broken') return { status: 200, body: '{"data": [' };
    if (u.pathname === '/api/v2/empty') return { status: 500, body: '' };
    if (u.pathname === '/api/v2/forbidden')
      return {
        status: 403,
        body: JSON.stringify({
          errors: [{ id: 'unauthorizedOauthScope', title: 'Unauthorized OAuth scope', detail: 'missing prospects.read' }],
        }),
      };
    if (u.pathname === '/api/v2/unauth')
      return { status: 401, body: JSON.stringify({ errors: [{ id: 'unauthorized', title: 'Unauthorized' }] }) };
    if (u.pathname === '/api/v2/invalid')
      return {
        status: 422,
        body: JSON.stringify({
          errors: [
            { id: 'validationError', title: 'Validation error', detail: 'is too long', source: { pointer: '/data/attributes/title' } },
          ],
        }),
      };
    return { status: 404, body: JSON.stringify({ errors: [{ id: 'resourceNotFound', title: 'Resource not found' }] }) };
  });
  base = `${server.url}/api/v2`;
});
afterAll(() => server.close());

const env = () => ({ SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: base, SVC_TOKEN: TOKEN });

describe('svc api', () => {
  it('GET /prospects prints the document and sends the bearer token and JSON:API media type', async () => {
    const before = server.received.length;
    const r = await svcInProcess(['api', 'GET', '/prospects'], { env: env() });
    expect(r.code).toBe(0);
    expect(json<{ data: unknown[] }>(r).data).toHaveLength(2);
    const got = server.received[before]!;
    expect(got.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(got.headers.accept).toBe('application/vnd.api+json');
    expect(r.stderr).toBe('');
  });

  it('--paginate follows links.next, and --verbose traces without the token', async () => {
    const r = await svcInProcess(['api', 'GET', '/prospects', '--paginate', '-o', 'ndjson', '--verbose'], { env: env() });
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([1, 2, 3]);
    expect(r.stderr).toContain('GET ');
    expect(r.stderr).toContain('rate 9999/10000');
    expect(r.stderr + r.stdout).not.toContain(TOKEN);
  });

  it('never follows a next link to another host with the token', async () => {
    const r = await svcInProcess(['prospects', 'list', '--all', '-o', 'ndjson'], { env: { ...env(), SVC_BASE_URL: base }, input: '' });
    // the list itself is fine; now the poisoned one
    const p = await svcInProcess(['api', 'GET', '/prospects?poison=1', '--paginate', '-o', 'ndjson'], { env: env() });
    expect(r.code).toBe(0);
    expect(p.stderr).toMatch(/not following links\.next to another host/);
    expect(server.received.some((x) => x.url.includes('steal'))).toBe(false);
  });
});

describe.concurrent('pagination', () => {
  it('halves the page size when a large page answers 502, and still lists everything', async () => {
    const before = server.received.length;
    const r = await svcInProcess(['mailings', 'list', '--all', '-o', 'ndjson'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const ids = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
    // Only this test lists mailings (the error tests run beside it).
    const limits = server.received
      .slice(before)
      .map((x) => new URL(x.url, 'http://x'))
      .filter((u) => u.pathname === '/api/v2/mailings')
      .map((u) => u.searchParams.get('page[limit]'));
    expect(limits.slice(0, 3)).toEqual(['1000', '500', '250']);
    expect(r.stderr).toMatch(/answered 502; retrying with pages of 500/);
  });
});

describe.concurrent('errors and exit codes', () => {
  it.each([
    ['/forbidden', 4, /Unauthorized OAuth scope: missing prospects\.read \(id unauthorizedOauthScope\)/],
    ['/unauth', 3, /Unauthorized/],
    ['/invalid', 1, /Validation error: is too long \(field \/data\/attributes\/title, id validationError\)/],
    ['/nothing-here', 1, /Resource not found/],
    ['/html', 1, /HTML page/],
    ['/broken', 1, /invalid JSON/],
    ['/empty', 1, /empty body/],
  ])('%s → exit %i', async (path, code, message) => {
    const r = await svcInProcess(['api', 'GET', path], { env: env() });
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.stderr.trim().split('\n')[0]).toMatch(/^error: /);
  });

  it('-o json also writes {"errors":[...]} to stderr', async () => {
    const r = await svcInProcess(['api', 'GET', '/invalid', '-o', 'json'], { env: env() });
    const last = r.stderr.trim().split('\n').pop()!;
    expect(JSON.parse(last).errors[0].source.pointer).toBe('/data/attributes/title');
  });

  it('--verbose adds the stack trace', async () => {
    const r = await svcInProcess(['api', 'GET', '/invalid', '--verbose'], { env: env() });
    expect(r.stderr).toMatch(/\n\s+at /);
  });

  it('connection refused → exit 1 with one clear line', async () => {
    const r = await svcInProcess(['api', 'GET', '/prospects'], { env: { ...env(), SVC_BASE_URL: 'http://127.0.0.1:9/api/v2' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/connection refused/);
  });
});

describe('usage errors send nothing (exit 2)', () => {
  // The others (unknown commands, operations, bad ids, filters, formats) are checked in-process
  // in test/unit/commands/resource-commands/command-usage.test.ts.
  it('an unknown option: svc prospects list --no-such-option', async () => {
    const before = server.received.length;
    const r = await runSvc(['prospects', 'list', '--no-such-option'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(3);
    expect(r.stderr).toMatch(/error/);
    expect(server.received.length).toBe(before);
  });
});
