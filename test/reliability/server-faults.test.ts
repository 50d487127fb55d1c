/**
 * Server faults, injected by a proxy in front of the sandbox: 500/502/503 with and without
 * `Retry-After` (seconds and ISO time), 429 storms, HTML error pages, truncated and invalid
 * JSON, a document without `data`, ids sent as strings. Clear errors, the right exit codes,
 * no stack traces; idempotent reads retried (attempts counted at the proxy).
 *
 * svc runs in this process (`svcInProcess`: the same program, ~30 ms a run against ~300 ms for a
 * spawn), the error path of the built bin/svc once: what these faults test is the client's
 * answer to them, not the process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { times, type Fault } from '../helpers/fault-proxy.js';
import { expectCleanFailure, startRig, type Rig } from '../helpers/reliability.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { runSvc } from '../helpers/run-svc.js';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ seed: 60 });
});
afterAll(() => rig.close());

/*
 * Tests run concurrently (the file stays fast), all of the file's groups at once (vitest runs
 * five tests of a worker at a time): each has its own record or its own list query, so the
 * proxy's rules, matched on the path, never touch another test's requests. The longest start
 * first (they take the five places in the order written).
 */
let nextId = 0;
let nextList = 0;
/** A get of its own: the path of prospect n and the args. */
function ownGet(extra: string[] = []) {
  const id = ++nextId;
  return { match: { path: new RegExp(`^/api/v2/prospects/${id}(\\?|$)`) }, args: ['prospects', 'get', String(id), ...extra], id };
}
/** A list of its own (an id range no other test uses). */
function ownList(extra: string[] = []) {
  const upper = 100_000 + ++nextList;
  return {
    match: { path: new RegExp(`^/api/v2/prospects\\?.*${upper}`) },
    args: ['prospects', 'list', '--filter', `id=1..${upper}`, ...extra],
  };
}
const svc = (args: string[], binary = false) => (binary ? runSvc : svcInProcess)(args, { env: rig.env() });

const jsonError = (status: number, id: string, title: string, headers: Record<string, string> = {}): Fault => ({
  kind: 'answer',
  status,
  headers,
  body: JSON.stringify({ errors: [{ id, status: String(status), title, detail: `${title} (injected)` }] }),
});
const html = (status: number): Fault => ({
  kind: 'answer',
  status,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: `<!doctype html><html><head><title>${status}</title></head><body><h1>${status} Bad Gateway</h1><hr>nginx</body></html>`,
});

/** Runs a command with faults planned on `match`; returns the result and the attempts seen. */
async function withFaults(
  { match, args }: { match: { path: RegExp }; args: string[] },
  faults: Fault[] | { always: Fault },
  binary = false,
) {
  const remove = Array.isArray(faults) ? rig.proxy.plan(match, faults) : rig.proxy.always(match, faults.always);
  const mark = rig.proxy.log.length;
  const started = Date.now();
  const r = await svc(args, binary);
  const ms = Date.now() - started;
  remove();
  return { r, ms, attempts: rig.proxy.since(mark, match) };
}

describe.concurrent('server faults', () => {
  describe.concurrent('429 storms', () => {
    it('three 429s in a row with Retry-After 1: waited out, success on the fourth attempt', async () => {
      const limited = jsonError(429, 'rateLimitExceeded', 'Rate limit exceeded', { 'retry-after': '1' });
      const { r, attempts } = await withFaults(ownGet(['-o', 'json']), times(3, limited));
      expect(r.code, r.stderr).toBe(0);
      expect(attempts.map((a) => a.status)).toEqual([429, 429, 429, 200]);
      expect(attempts[3]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(2_900);
    });

    it('a storm that outlasts the retries: exit 1, rate limit named', async () => {
      const limited = jsonError(429, 'rateLimitExceeded', 'Rate limit exceeded', { 'retry-after': '0' });
      const { r, attempts } = await withFaults(ownGet([]), { always: limited });
      expectCleanFailure(r, 1, /^error: Rate limit exceeded: .* \(id rateLimitExceeded\)$/);
      expect(attempts).toHaveLength(4);
    });

    it('a 429 asking for an hour: exit 1 at once with the time to retry', async () => {
      const limited = jsonError(429, 'rateLimitExceeded', 'Rate limit exceeded', { 'retry-after': '3600' });
      const { r, attempts, ms } = await withFaults(ownGet([]), { always: limited });
      expectCleanFailure(r, 1, /rate ?limit/i);
      expect(r.stderr).toMatch(/hint: the service asks to retry after 3600 s \(at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)/);
      expect(attempts).toHaveLength(1);
      expect(ms).toBeLessThan(5_000);
    });
  });

  describe.concurrent('5xx: retried for reads, then one clear line', () => {
    it('500 on every attempt of a get: 4 attempts, exit 1, the server’s title and detail (bin/svc)', async () => {
      const { r, attempts } = await withFaults(ownGet([]), { always: jsonError(500, 'internalError', 'Internal Server Error') }, true);
      expectCleanFailure(r, 1, /^error: Internal Server Error: Internal Server Error \(injected\) \(id internalError\)$/);
      expect(attempts).toHaveLength(4);
    });

    it('500 twice on a list page, then an answer: retried, the listing completes', async () => {
      const { r, attempts } = await withFaults(
        ownList(['--limit', '5', '-o', 'json']),
        times(2, jsonError(500, 'internalError', 'Internal Server Error')),
      );
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toHaveLength(5);
      expect(attempts.map((a) => a.status)).toEqual([500, 500, 200]);
    });

    it('a gateway timeout (504) on a big list page: the page is halved, the listing completes', async () => {
      const gatewayTimeout: Fault = {
        kind: 'answer',
        status: 504,
        headers: { 'content-type': 'text/html' },
        body: '<html>504 Gateway Time-out</html>',
      };
      const { r, attempts } = await withFaults(ownList(['--limit', '10', '-o', 'json']), [gatewayTimeout]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toHaveLength(10);
      expect(r.stderr).toContain('warning: page of 10 answered 504; retrying with pages of 5');
      expect(attempts.map((a) => a.status)).toEqual([504, 200, 200]);
    });

    it('502 HTML pages from a gateway: retried, then exit 1 saying a gateway answered, not the API', async () => {
      const { r, attempts } = await withFaults(ownGet([]), { always: html(502) });
      expectCleanFailure(r, 1, /^error: HTTP 502: server sent an HTML page \(a proxy or gateway answered, not the API\)$/);
      expect(r.stderr).not.toContain('<html');
      expect(attempts).toHaveLength(4);
    });

    it('503 without Retry-After, then an answer: backoff, success', async () => {
      const own = ownGet(['-o', 'json']);
      const { r, attempts } = await withFaults(own, [jsonError(503, 'serviceUnavailable', 'Service Unavailable')]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).id).toBe(own.id);
      expect(attempts.map((a) => a.status)).toEqual([503, 200]);
    });

    it('503 maintenance with Retry-After in seconds, twice: waited out (≥ 2 s), success', async () => {
      const m = jsonError(503, 'scheduledServerMaintenance', 'Scheduled maintenance', { 'retry-after': '1' });
      const { r, attempts, ms } = await withFaults(ownGet(['-o', 'json']), [m, m]);
      expect(r.code, r.stderr).toBe(0);
      expect(attempts.map((a) => a.status)).toEqual([503, 503, 200]);
      expect(attempts[2]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(1_900);
      expect(ms).toBeLessThan(10_000);
    });

    it('503 maintenance with an ISO Retry-After a second away: waited out until then, success', async () => {
      const until = new Date(Date.now() + 1_500);
      const m = jsonError(503, 'scheduledServerMaintenance', 'Scheduled maintenance', { 'retry-after': until.toISOString() });
      const { r, attempts } = await withFaults(ownGet(['-o', 'json']), [m]);
      expect(r.code, r.stderr).toBe(0);
      expect(attempts.map((a) => a.status)).toEqual([503, 200]);
      expect(attempts[1]!.at).toBeGreaterThanOrEqual(until.getTime() - 50);
    });

    it('503 maintenance for another hour (ISO Retry-After): no pointless waiting, exit 1, says until when', async () => {
      const until = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
      const m = jsonError(503, 'scheduledServerMaintenance', 'Scheduled maintenance', { 'retry-after': until });
      const { r, attempts, ms } = await withFaults(ownGet([]), { always: m });
      expectCleanFailure(r, 1, /^error: Scheduled maintenance: Scheduled maintenance \(injected\) \(id scheduledServerMaintenance\)$/);
      expect(r.stderr).toContain(`hint: the service asks to retry after ${until}`);
      expect(attempts).toHaveLength(1);
      expect(ms).toBeLessThan(5_000);
    });
  });

  describe.concurrent('bodies that are not what they should be', () => {
    const broken: [string, Fault, RegExp][] = [
      [
        'truncated JSON',
        { kind: 'rewrite', body: (b) => b.slice(0, Math.floor(b.length / 2)) },
        /^error: bad response: server answered 200 with invalid JSON$/,
      ],
      [
        'invalid JSON',
        { kind: 'rewrite', body: () => '{"data": [1, 2,, }' },
        /^error: bad response: server answered 200 with invalid JSON$/,
      ],
      [
        'an HTML page with 200',
        { kind: 'rewrite', headers: { 'content-type': 'text/html' }, body: () => '<html><body>Sign in to continue</body></html>' },
        /^error: bad response: server answered 200 with an HTML page$/,
      ],
      [
        'a JSON array instead of a document',
        { kind: 'rewrite', body: () => '[1,2,3]' },
        /^error: bad response: server answered 200 with invalid JSON$/,
      ],
      ['a document without data', { kind: 'rewrite', body: () => '{"meta":{"note":"no data here"}}' }, /^error: bad response: .*no data/],
      ['data of the wrong shape', { kind: 'rewrite', body: () => '{"data":"prospect 4"}' }, /^error: bad response: .*no data/],
      ['an empty body with 200', { kind: 'rewrite', body: () => '' }, /^error: bad response: .*no data/],
    ];

    it('a 500 with an empty body, and one with text: exit 1, the status and what came', async () => {
      // The two runs at once (each its own record): their retries' backoffs overlap.
      const [empty, text] = await Promise.all([
        withFaults(ownGet([]), { always: { kind: 'answer', status: 500, body: '' } }),
        withFaults(ownGet([]), {
          always: { kind: 'answer', status: 500, headers: { 'content-type': 'text/plain' }, body: 'upstream exploded' },
        }),
      ]);
      expectCleanFailure(empty.r, 1, /^error: HTTP 500: server sent empty body$/);
      expectCleanFailure(text.r, 1, /^error: HTTP 500: server sent a body that is not JSON:API$/);
    });

    it.each(broken)('get answered with %s: exit 1, one clear line', async (_name, fault, message) => {
      const { r } = await withFaults(ownGet(['-o', 'json']), [fault]);
      expectCleanFailure(r, 1, message);
      expect(r.stdout).toBe('');
    });

    it.each(broken)('list answered with %s: exit 1, one clear line', async (_name, fault) => {
      const { r } = await withFaults(ownList(['--limit', '3', '-o', 'json']), [fault]);
      expectCleanFailure(r, 1, /^error: bad response: /);
    });
  });

  describe.concurrent('ids as strings', () => {
    const stringIds: Fault = { kind: 'rewrite', body: (b) => b.replace(/"id":(\d+)/g, '"id":"$1"') };

    it('get, list (json, csv, table) and paging with --all work; ids print as numbers', async () => {
      const own = ownGet(['-o', 'json']);
      const one = await withFaults(own, [stringIds]);
      expect(one.r.code, one.r.stderr).toBe(0);
      const rec = JSON.parse(one.r.stdout);
      expect(rec.id).toBe(own.id);
      expect(typeof rec.account === 'number' || rec.account === null).toBe(true);

      const list = await withFaults(ownList(['--all', '--page-size', '7', '-o', 'ndjson']), { always: stringIds });
      expect(list.r.code, list.r.stderr).toBe(0);
      const ids = list.r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id);
      expect(ids.every((id) => typeof id === 'number')).toBe(true);
      expect(ids).toEqual([...rig.sb.store.table('prospect').keys()].sort((a, b) => a - b));
      expect(list.attempts).toHaveLength(Math.ceil(ids.length / 7));

      for (const format of ['csv', 'table']) {
        const r = await withFaults(ownList(['--limit', '3', '-o', format]), { always: stringIds });
        expect(r.r.code, r.r.stderr).toBe(0);
        // The first record's id, printed plainly (no quotes in the CSV cell, a number in the table).
        expect(r.r.stdout).toMatch(format === 'csv' ? /\n1,prospect,/ : /│ 1 +│/);
      }
    });
  });
});
