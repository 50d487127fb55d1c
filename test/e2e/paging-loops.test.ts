/**
 * Paging always ends: a scripted server whose `links.next` points to the page itself, goes round
 * a cycle, or hands out the same records under ever new offsets. `list --all` and
 * `api --paginate` stop after a few requests with one error naming the link (exit 1), instead of
 * requesting forever.
 *
 * Each run has a scripted server of its own (started per run, a few milliseconds), so the tests,
 * which count the requests their run made, run at once (describe.concurrent).
 */
import { describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { startTinyServer, type Received, type Responder } from '../helpers/tiny-server.js';

const page = (ids: number[], next?: string) =>
  JSON.stringify({ data: ids.map((id) => ({ type: 'prospect', id, attributes: { firstName: `P${id}` } })), links: next ? { next } : {} });

/** The scripted server of one run. */
function startServer() {
  let server: Awaited<ReturnType<typeof startTinyServer>>;
  const started = startTinyServer((req: Received): ReturnType<Responder> => {
    const u = new URL(req.url, server.url);
    const offset = Number(u.searchParams.get('page[offset]') ?? 0);
    const limit = Number(u.searchParams.get('page[limit]') ?? 50);
    // Links keep the request's query (as the service's do) with another offset.
    const at = (o: number) => {
      const next = new URL(u);
      next.searchParams.set('page[offset]', String(o));
      return next.toString();
    };
    switch (u.pathname) {
      // The next link of every page is the page itself.
      case '/api/v2/prospects':
        return { status: 200, body: page([1, 2], u.toString()) };
      // Page A links to B, B back to A.
      case '/api/v2/accounts':
        return { status: 200, body: offset === 0 ? page([1, 2], at(limit)) : page([3, 4], at(0)) };
      // The offset moves on, the records do not (a server that ignores page[offset]).
      case '/api/v2/mailboxes':
        return { status: 200, body: page([1, 2], at(offset + 2)) };
      default:
        return { status: 404, body: JSON.stringify({ errors: [{ id: 'resourceNotFound', title: 'Resource not found' }] }) };
    }
  });
  return started.then((s) => (server = s));
}

async function run(args: string[], path: string) {
  const server = await startServer();
  try {
    const env = { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: `${server.url}/api/v2`, SVC_TOKEN: 'tok_test_paging_0123456789' };
    const started = Date.now();
    const r = await svcInProcess(args, { env, timeoutMs: 15_000 });
    const requests = server.received.filter((q) => q.url.startsWith(`/api/v2/${path}`)).length;
    return { ...r, requests, secs: (Date.now() - started) / 1000 };
  } finally {
    await server.close();
  }
}

function expectStopped(r: Awaited<ReturnType<typeof run>>, link: RegExp, maxRequests: number) {
  expect(r.signal, 'killed: paging never ended').toBeNull();
  expect(r.code, r.stderr).toBe(1);
  const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
  expect(errors, r.stderr).toHaveLength(1);
  expect(errors[0]).toMatch(/^error: paging made no progress: /);
  expect(errors[0]).toMatch(link);
  expect(r.requests).toBeLessThanOrEqual(maxRequests);
  expect(r.secs).toBeLessThan(10);
}

describe.concurrent('list --all', () => {
  it('a links.next that points to the page itself: stops at the second request, naming the link', async () => {
    const r = await run(['prospects', 'list', '--all', '-o', 'ndjson'], 'prospects');
    expectStopped(r, /the server's links\.next http:\/\/127\.0\.0\.1:\d+\/api\/v2\/prospects\?\S+ leads back to a page already fetched/, 1);
    // The page that did arrive was written once.
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([1, 2]);
  });

  it('a cycle of two pages: stops when the link leads back to the first', async () => {
    const r = await run(['accounts', 'list', '--all', '-o', 'ndjson'], 'accounts');
    expectStopped(r, /links\.next \S+\/accounts\?\S*page%5Boffset%5D=0 leads back/, 2);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([1, 2, 3, 4]);
  });

  it('new offsets, the same records: stops at the page that brings nothing new', async () => {
    const r = await run(['mailboxes', 'list', '--all', '-o', 'ndjson'], 'mailboxes');
    expectStopped(r, /the page at \S+\/mailboxes\?\S*page%5Boffset%5D=2\S* holds only records the page before already had/, 2);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([1, 2]);
  });
});

describe.concurrent('api --paginate', () => {
  it('a links.next that points to the page itself: stops, naming the link', async () => {
    const r = await run(['api', 'GET', '/prospects?page[limit]=2', '--paginate'], 'prospects');
    expectStopped(r, /links\.next \S+\/prospects\?page\[limit\]=2 leads back/, 1);
  });

  it('new offsets, the same records: stops at the page that brings nothing new', async () => {
    const r = await run(['api', 'GET', '/mailboxes', '--paginate'], 'mailboxes');
    expectStopped(r, /the page at \S+\/mailboxes\?\S*page%5Boffset%5D=2\S* holds only records/, 2);
  });
});
