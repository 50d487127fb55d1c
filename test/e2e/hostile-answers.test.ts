/**
 * A hostile or broken server (a scripted one, answering what the sandbox never would): writes
 * answered without the record, answers that trickle forever, that never end, that are too big
 * or nested too deeply. One `error:` line and exit 1 each, within the time and memory bounds.
 *
 * Every group is concurrent, so all the tests' waits overlap: the file's wall is its slowest test
 * (the trickle: four one-second timeouts and the backoffs). Each test has its own route on the
 * tiny server, and each proxy-and-sandbox group its own rig, so none counts another's requests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeProspects, ndjson, newSequence, stateProspects } from '../helpers/bulk.js';
import { expectCleanFailure, expectNoCrash, startRig, type Rig } from '../helpers/reliability.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { runSvc, tempDir } from '../helpers/run-svc.js';
import { startTinyServer, type Received } from '../helpers/tiny-server.js';

type Answer = ReturnType<Parameters<typeof startTinyServer>[0]>;

/** Answers by the first path segment after /api/v2/<tag>/ so that concurrent tests do not meet. */
const routes = new Map<string, (r: Received) => Answer>();
let server: Awaited<ReturnType<typeof startTinyServer>>;
beforeAll(async () => {
  server = await startTinyServer((r) => {
    const tag = /^\/([^/]+)\//.exec(r.url)?.[1] ?? '';
    return routes.get(tag)?.(r) ?? { status: 404, body: '{"errors":[{"title":"Not Found"}]}' };
  });
});
afterAll(() => server.close());

const PROSPECT = JSON.stringify({ data: { type: 'prospect', id: 1, attributes: { firstName: 'A' } } });

/** Runs svc against the tiny server under its own tag. */
function svc(tag: string, args: string[], extra: Record<string, string> = {}, timeoutMs = 30_000) {
  return svcInProcess(args, {
    env: { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: `${server.url}/${tag}/api/v2`, SVC_TOKEN: 'test-token-0123456789', ...extra },
    timeoutMs,
  });
}
const hits = (tag: string) => server.received.filter((r) => r.url.startsWith(`/${tag}/`));

describe.concurrent('writes answered without the record', () => {
  it('create answered 201 with an empty body: exit 1, no `null` printed, a hint that it may exist', async () => {
    routes.set('empty201', () => ({ status: 201, body: '' }));
    const r = await svc('empty201', ['prospects', 'create', '--attr', 'firstName=E', '--json']);
    expectCleanFailure(r, 1, /^error: bad response: server answered 201 with no data \(expected one resource\)$/);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/hint: the record may have been created all the same/);
    expect(hits('empty201')).toHaveLength(1);
  });

  it('a create sent and never answered (a timeout) hints that it may exist; one never sent does not', async () => {
    // A script retrying on exit 1 made the record twice: the timeout read as a GET's (a trial).
    routes.set('hang', () => ({ raw: () => {} }));
    const r = await svc('hang', ['prospects', 'create', '--attr', 'firstName=H', '--timeout', '1']);
    expectCleanFailure(r, 1, /^error: POST http:\/\/\S+\/prospects: timed out waiting for the server \(see --timeout\)$/);
    expect(r.stderr).toContain(
      'hint: the record may have been created all the same: look for it before creating it again (svc prospects list --sort -id --limit 5)',
    );
    const closed = await svcInProcess(['prospects', 'create', '--attr', 'firstName=C'], {
      env: { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: 'http://127.0.0.1:9/api/v2', SVC_TOKEN: 'test-token-0123456789' },
    });
    expect(closed.code).toBe(1);
    expect(closed.stderr).not.toContain('may have been created');
  });

  it('create answered with a redirect, update and action answered 200 empty: exit 1 each', async () => {
    routes.set('redirect', () => ({ status: 302, headers: { location: 'https://elsewhere.example/' }, body: '' }));
    const moved = await svc('redirect', ['prospects', 'create', '--attr', 'firstName=R', '--json']);
    expectCleanFailure(moved, 1, /^error: bad response: server answered 302 \(a redirect, not followed\) to the create$/);
    expect(moved.stdout).toBe('');
    routes.set('empty200', () => ({ status: 200, body: '' }));
    for (const args of [
      ['prospects', 'update', '1', '--attr', 'firstName=U', '--json'],
      ['sequence-states', 'finish', '1', '--json'],
    ]) {
      const r = await svc('empty200', args);
      expectCleanFailure(r, 1, /^error: bad response: server answered 200 with no data/);
      expect(r.stdout).toBe('');
    }
  });

  it('a bulk create answered 201 empty: the row is unknown (may exist), not created', async () => {
    routes.set('bulk201', () => ({ status: 201, body: '' }));
    const input = path.join(tempDir(), 'in.csv');
    fs.writeFileSync(input, 'firstName\nB1\n');
    const report = path.join(tempDir(), 'report.ndjson');
    const r = await svc('bulk201', ['prospects', 'create', '--input', input, '--report', report, '--settle', '1']);
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(5);
    expect(JSON.parse(fs.readFileSync(report, 'utf8'))).toMatchObject({
      row: 1,
      status: 'unknown',
      id: null,
      error: expect.stringContaining('answered 201 without the created record'),
    });
  });
});

describe.concurrent('answers are bounded', () => {
  it('an answer that trickles forever ends at --timeout for the whole answer (retries included)', async () => {
    routes.set('trickle', () => ({
      raw: (res) => {
        res.writeHead(200, { 'content-type': 'application/vnd.api+json' });
        res.write('{"data":');
        const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 100);
        res.on('close', () => clearInterval(t));
      },
    }));
    const started = Date.now();
    const r = await svc('trickle', ['prospects', 'get', '1', '--timeout', '1'], {}, 25_000);
    const ms = Date.now() - started;
    expectCleanFailure(r, 1, /^error: GET http:\/\/\S+\/prospects\/1: timed out waiting for the server \(see --timeout\)$/);
    // Four attempts of one second each and the backoffs between them.
    expect(ms).toBeLessThan(12_000);
    expect(hits('trickle')).toHaveLength(4);
  });

  it('an answer over the cap stops with the cap and the flag that raises it (announced, or endless)', async () => {
    const big = `{"data":{"type":"prospect","id":1,"attributes":{"notes":"${'n'.repeat(3 * 1024 * 1024)}"}}}`;
    routes.set('big', () => ({ status: 200, body: big }));
    for (const [args, extra] of [
      [['--max-response-mb', '1'], {}],
      [[], { SVC_MAX_RESPONSE_MB: '1' }],
    ] as const) {
      const r = await svc('big', ['prospects', 'get', '1', ...args], extra);
      expectCleanFailure(r, 1, /^error: GET \S+: the answer is larger than 1 MB, the cap on one document$/);
      expect(r.stderr).toMatch(/hint: raise the cap with --max-response-mb <n> \(or SVC_MAX_RESPONSE_MB\)/);
    }
    // Raised above the size, the same answer is read.
    const ok = await svc('big', ['prospects', 'get', '1', '--max-response-mb', '8', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    // An endless chunked answer (no length announced) is cut at the cap, not read forever.
    routes.set('endless', () => ({
      raw: (res) => {
        res.writeHead(200, { 'content-type': 'application/vnd.api+json' });
        const chunk = Buffer.alloc(256 * 1024, 0x20);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        res.write('{"data":');
        pump();
      },
    }));
    const endless = await svc('endless', ['prospects', 'get', '1', '--max-response-mb', '4'], {}, 20_000);
    expectCleanFailure(endless, 1, /the answer is larger than 4 MB, the cap on one document$/);
  });

  it('a bad --max-response-mb is a usage error', async () => {
    const r = await svc('nothing', ['prospects', 'get', '1', '--max-response-mb', 'lots']);
    expectCleanFailure(r, 2, /^error: --max-response-mb lots: expected megabytes > 0$/);
    expect(hits('nothing')).toHaveLength(0);
  });

  it('a document nested 20,000 levels deep: exit 1, bad response', async () => {
    routes.set('deep', () => ({
      status: 200,
      body: `{"data":{"type":"prospect","id":1,"attributes":{"x":${'['.repeat(20_000)}${']'.repeat(20_000)}}}}`,
    }));
    for (const args of [
      ['prospects', 'get', '1'],
      ['api', 'GET', '/prospects/1'],
    ]) {
      const r = await svc('deep', args);
      expectCleanFailure(r, 1, /^error: bad response: server answered 200 with a document nested deeper than 100 levels$/);
    }
  });

  it('a listing page large enough for the lazy page parser, one record nested 20,000 levels deep: exit 1, bad response', async () => {
    const padding = 'x'.repeat(2000);
    const record = (id: number, x: string) => `{"type":"prospect","id":${id},"attributes":{"firstName":"${padding}","x":${x}}}`;
    const page = (deep: string) => {
      const records = Array.from({ length: 200 }, (_, i) => record(i + 1, '1'));
      records[100] = record(101, deep);
      return `{"data":[${records.join(',')}],"meta":{"count":200}}`;
    };
    for (const depth of [20_000, 150]) {
      routes.set('deep-page', () => ({ status: 200, body: page(`${'['.repeat(depth)}${']'.repeat(depth)}`) }));
      const r = await svc('deep-page', ['prospects', 'list', '-o', 'ndjson']);
      expectCleanFailure(r, 1, /^error: bad response: server answered 200 with a document nested deeper than 100 levels$/);
    }
    // Within the bound, the same page is written in full.
    routes.set('deep-page', () => ({ status: 200, body: page(`${'['.repeat(50)}${']'.repeat(50)}`) }));
    const ok = await svc('deep-page', ['prospects', 'list', '--limit', '200', '-o', 'ndjson']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trim().split('\n')).toHaveLength(200);
  });

  it('with a good answer in time, nothing changes', async () => {
    routes.set('fine', () => ({ status: 200, body: PROSPECT }));
    const r = await svc('fine', ['prospects', 'get', '1', '--timeout', '5', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 1, firstName: 'A' });
  });
});

describe.concurrent('bulk writes answered without the record (a proxy in front of the sandbox)', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ seed: 40 });
  });
  afterAll(() => rig.close());

  it('enroll: an empty 201 after the server enrolled is found by a lookup; one never sent is unknown', async () => {
    const [done, lost] = freeProspects(rig.sb, 2, 10) as [number, number];
    const seq = await newSequence(rig.sb);
    const report = path.join(tempDir(), 'report.ndjson');
    // The first POST reaches the server and its answer is emptied; the second never arrives.
    const remove = rig.proxy.plan({ method: 'POST', path: /^\/api\/v2\/sequenceStates/ }, [
      { kind: 'rewrite', status: 201, body: () => '' },
      { kind: 'answer', status: 201, body: '' },
    ]);
    const r = await svcInProcess(
      [
        'enroll',
        '--sequence',
        String(seq),
        '--mailbox',
        '2',
        '--prospect',
        String(done),
        '--prospect',
        String(lost),
        '--concurrency',
        '1',
        '--report',
        report,
        '--settle',
        '2',
      ],
      { env: rig.env() },
    );
    remove();
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(5);
    const lines = ndjson<{ row: number; status: string; id: number | null; error: string | null; recovered?: boolean }>(report).sort(
      (a, b) => a.row - b.row,
    );
    expect(lines[0]).toMatchObject({ row: 1, status: 'created', recovered: true });
    expect(typeof lines[0]!.id).toBe('number');
    expect(lines[1]).toMatchObject({
      row: 2,
      status: 'unknown',
      id: null,
      error: expect.stringContaining('answered 201 without the created sequence state'),
    });
    expect(stateProspects(rig.sb, seq)).toEqual([done]);
  });
});

describe.concurrent('bulk creates answered without the record (a proxy in front of the sandbox)', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ seed: 5 });
  });
  afterAll(() => rig.close());

  it('an empty 201 after the server created it is found by a lookup; one never sent is unknown', async () => {
    const input = path.join(tempDir(), 'in.csv');
    fs.writeFileSync(input, 'firstName,emails\nKept,kept-empty201@example.test\nLost,lost-empty201@example.test\n');
    const report = path.join(tempDir(), 'report.ndjson');
    const remove = rig.proxy.plan({ method: 'POST', path: /^\/api\/v2\/prospects/ }, [
      { kind: 'rewrite', status: 201, body: () => '' },
      { kind: 'answer', status: 201, body: '' },
    ]);
    const r = await runSvc(['prospects', 'create', '--input', input, '--concurrency', '1', '--report', report, '--settle', '2'], {
      env: rig.env(),
    });
    remove();
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(5);
    const lines = ndjson<{ row: number; status: string; id: number | null; error: string | null; recovered?: boolean }>(report).sort(
      (a, b) => a.row - b.row,
    );
    const kept = [...rig.sb.store.table('prospect').values()].find((p) => p.attributes['firstName'] === 'Kept');
    expect(lines[0]).toMatchObject({ row: 1, status: 'created', id: kept!.id, recovered: true });
    expect(lines[1]).toMatchObject({
      row: 2,
      status: 'unknown',
      id: null,
      error: expect.stringContaining('answered 201 without the created record'),
    });
    expect([...rig.sb.store.table('prospect').values()].some((p) => p.attributes['firstName'] === 'Lost')).toBe(false);
  });
});

describe.concurrent('svc api and empty or redirected answers', () => {
  it('204: nothing on stdout, a note on stderr, exit 0; a redirect: exit 1, not followed', async () => {
    routes.set('api204', () => ({ status: 204 }));
    const gone = await svc('api204', ['api', 'DELETE', '/prospects/1']);
    expect(gone.code, gone.stderr).toBe(0);
    expect(gone.stdout).toBe('');
    expect(gone.stderr).toBe('HTTP 204: empty answer (no content)\n');
    routes.set('api302', () => ({ status: 302, headers: { location: 'https://elsewhere.example/x' }, body: '' }));
    const moved = await svc('api302', ['api', 'POST', '/prospects', '--data', '{"data":{"type":"prospect","attributes":{}}}']);
    expectCleanFailure(
      moved,
      1,
      /^error: bad response: server answered 302 \(a redirect to https:\/\/elsewhere\.example\/x, not followed\)$/,
    );
    expect(moved.stdout).toBe('');
    expect(server.received.filter((r) => r.url.startsWith('/api302/'))).toHaveLength(1);
  });
});
