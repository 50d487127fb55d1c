/**
 * Waits that follow what the server says, through a fault proxy in front of the sandbox: a 429
 * whose `Retry-After` is short while `X-RateLimit-Remaining` says thousands are left is waited
 * out for `Retry-After` only; a wait the server asks for that cannot be meant (over a day, a
 * reset in the past, a time in epoch milliseconds) stops the run at once with an error naming
 * what was received, the journal intact for the rerun; waiting prints few lines.
 *
 * The runs go through svc's program in the test process (svcInProcess): the waits are the
 * client's, not the process's. One single-request refusal runs the built bin/svc.
 *
 * Time: the tests wait out what the server asks for, each on its own rig (sandbox and fault
 * proxy), so they wait side by side (describe.concurrent).
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { inputFile, ndjson } from '../helpers/bulk.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { runSvc } from '../helpers/run-svc.js';
import { startRig, type Rig } from '../helpers/reliability.js';
import type { Fault } from '../helpers/fault-proxy.js';

/** The tests' rigs (one each: the tests run side by side), closed after the file. */
const rigs: Rig[] = [];
afterAll(async () => {
  for (const r of rigs) await r.close();
});
async function newRig(seed: number): Promise<Rig> {
  const r = await startRig({ seed });
  rigs.push(r);
  return r;
}

const PATCH = { method: 'PATCH', path: /^\/api\/v2\/prospects\/\d+/ };

/** A 429 as a gateway in front of the API sends it: refused, though the window has room. */
function refusal(retryAfter: string | undefined): Fault {
  return {
    kind: 'answer',
    status: 429,
    headers: {
      ...(retryAfter !== undefined ? { 'retry-after': retryAfter } : {}),
      'x-ratelimit-limit': '10000',
      'x-ratelimit-remaining': '9999',
      'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 3600),
    },
    body: JSON.stringify({ errors: [{ id: 'rateLimitExceeded', title: 'Rate limit exceeded' }] }),
  };
}

/** An update of `n` prospects' titles; returns the input file and the args. */
function updateRun(n: number, concurrency = 4) {
  const rows = Array.from({ length: n }, (_, i) => JSON.stringify({ id: i + 1, title: `Waited ${i + 1}` }));
  const file = inputFile('titles.ndjson', rows.join('\n') + '\n');
  return { file, journal: `${file}.journal.ndjson`, args: ['prospects', 'update', '--input', file, '--concurrency', String(concurrency)] };
}

const titled = (r: Rig, n: number) =>
  Array.from({ length: n }, (_, i) => r.sb.store.get('prospect', i + 1)?.attributes['title']).filter((t) => String(t).startsWith('Waited'))
    .length;

describe.concurrent('a 429 waits for Retry-After, not for the rate-limit window', () => {
  it('Retry-After: 1 with 9,999 requests left: the run waits about a second and finishes', async () => {
    const rig = await newRig(41);
    const run = updateRun(20);
    rig.proxy.plan(PATCH, [refusal('1'), refusal('1')]);
    const started = Date.now();
    const r = await svcInProcess(run.args, { env: rig.env(), timeoutMs: 20_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(titled(rig, 20)).toBe(20);
    expect(r.stderr).not.toMatch(/no requests left in this window/);
    expect(r.stderr).toMatch(/waiting 0:0[12]: rate limited \(HTTP 429\)/);
  });
});

describe.concurrent('maintenance that overran its announced end', () => {
  it('503 with a Retry-After long past: backed off and retried, not an error; the run finishes', async () => {
    const rig = await newRig(46);
    const run = updateRun(10, 2);
    const overran: Fault = {
      kind: 'answer',
      status: 503,
      headers: { 'retry-after': new Date(Date.now() - 120_000).toISOString() },
      body: JSON.stringify({ errors: [{ id: 'scheduledServerMaintenance', title: 'Scheduled maintenance' }] }),
    };
    rig.proxy.plan(PATCH, [overran, overran]);
    const r = await svcInProcess(run.args, { env: rig.env(), timeoutMs: 20_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(titled(rig, 10)).toBe(10);
    expect(rig.proxy.log.filter((e) => e.status === 503)).toHaveLength(2);
  });
});

describe.concurrent('a wait that cannot be meant stops the run with an error saying what came', () => {
  const cases: [string, () => string, RegExp][] = [
    ['over a day (30 days in seconds)', () => '2592000', /Retry-After: 2592000.*over 24 hours/],
    ['a time in epoch milliseconds', () => String(Date.now() + 60_000), /Retry-After: \d{13}.*epoch milliseconds/],
    ['a reset an hour in the past', () => String(Math.floor(Date.now() / 1000) - 3600), /Retry-After: \d{10}.*in the past/],
    ['an HTTP date a year ahead', () => new Date(Date.now() + 365 * 86400_000).toUTCString(), /Retry-After: .*GMT.*over 24 hours/],
  ];
  for (const [what, value, message] of cases) {
    it(`${what}: exit 1 in seconds, one error line, the journal keeps what was done`, async () => {
      const rig = await newRig(42);
      const run = updateRun(30, 2);
      // The first rows go through, then the server asks for the absurd wait from then on.
      rig.proxy.plan(
        PATCH,
        Array.from({ length: 10 }, () => ({ kind: 'pass' }) as Fault),
      );
      rig.proxy.always(PATCH, refusal(value()));
      const started = Date.now();
      const r = await svcInProcess(run.args, { env: rig.env(), timeoutMs: 20_000 });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(r.code, r.stderr).toBe(1);
      const lines = r.stderr.split('\n').filter((l) => l.trim());
      expect(
        lines.filter((l) => l.startsWith('error:')),
        r.stderr,
      ).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toMatch(/hint: .*run the same command again/);
      expect(lines.length, r.stderr).toBeLessThan(12);
      // Nothing was sent after the refusal was understood: each worker met it at most once.
      const refused = rig.proxy.log.filter((e) => e.method === 'PATCH' && e.status === 429);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(refused.length).toBeLessThanOrEqual(2);
      // The journal holds the rows done; the rerun (server well again) does the rest.
      const done = ndjson(run.journal).filter((e) => e.status === 'updated');
      expect(done).toHaveLength(10);
      rig.proxy.clear();
      const mark = rig.proxy.log.length;
      const again = await svcInProcess(run.args, { env: rig.env(), timeoutMs: 20_000 });
      expect(again.code, again.stderr).toBe(0);
      expect(titled(rig, 30)).toBe(30);
      expect(rig.proxy.since(mark, PATCH)).toHaveLength(20);
    });
  }
});

describe.concurrent('one request (no bulk run)', () => {
  const GET1 = { method: 'GET', path: /^\/api\/v2\/prospects\/1(\?|$)/ };

  it('a 429 with requests left and no Retry-After is retried shortly, not given up for the hour', async () => {
    const rig = await newRig(44);
    rig.proxy.plan(GET1, [refusal(undefined)]);
    const r = await svcInProcess(['prospects', 'get', '1', '-o', 'json'], { env: rig.env(), timeoutMs: 15_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(1);
    expect(rig.proxy.log.filter((e) => e.method === 'GET')).toHaveLength(2);
  });

  it('a Retry-After in epoch milliseconds: exit 1 at once, the error names the header and the value', async () => {
    const rig = await newRig(45);
    const value = String(Date.now() + 60_000);
    rig.proxy.always(GET1, refusal(value));
    const started = Date.now();
    // The one run of the built bin/svc here: its exit code and stderr as a script sees them.
    const r = await runSvc(['prospects', 'get', '1'], { env: rig.env(), timeoutMs: 15_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe(
      `error: HTTP 429 (Rate limit exceeded): Retry-After: ${value} is a time in epoch milliseconds (${new Date(Number(value)).toISOString().replace(/\.\d{3}Z$/, 'Z')}), not seconds; not waiting for it`,
    );
    expect(r.stderr).toMatch(/^hint: try again later$/m);
    expect(rig.proxy.log.filter((e) => e.method === 'GET')).toHaveLength(1);
  });
});

describe.concurrent('waiting is shown with few lines', () => {
  it('refusals one after another: at most one wait line every few seconds off a terminal', async () => {
    const rig = await newRig(43);
    const run = updateRun(3, 1);
    rig.proxy.plan(
      PATCH,
      Array.from({ length: 6 }, () => refusal('1')),
    );
    const started = Date.now();
    const r = await svcInProcess(run.args, { env: rig.env(), timeoutMs: 30_000 });
    const secs = (Date.now() - started) / 1000;
    expect(r.code, r.stderr).toBe(0);
    expect(secs).toBeGreaterThan(5);
    const waits = r.stderr.split('\n').filter((l) => l.startsWith('waiting '));
    expect(waits.length, r.stderr).toBeGreaterThanOrEqual(1);
    expect(waits.length, r.stderr).toBeLessThanOrEqual(Math.ceil(secs / 5) + 1);
    expect(fs.existsSync(run.journal)).toBe(true);
  });
});
