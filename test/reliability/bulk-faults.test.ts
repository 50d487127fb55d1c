/**
 * Bulk runs through a faulty network: creates whose answers are lost after the server did the
 * work (reset, cut short, hang, a gateway's 502), creates that never reached it, updates,
 * deletes and enrolments meeting the same, and 429/503 storms. Every row is done exactly once:
 * the sandbox's records are counted, not svc's report.
 *
 * The runs are in this process (`svcInProcess`, the same program and bulk engine); the run
 * interrupted mid-storm is the built bin/svc.
 *
 * Time: the tests run at the same time (`describe.concurrent`), so that the storm's Retry-After
 * waits, the outage and the settle windows overlap. Each test has a fault proxy of its own in
 * front of the one sandbox (its planned faults meet only its requests, its counts at the wire
 * are its own, its outage is its own) and rows of its own (its own markers; the records it
 * updates, deletes or enrols are claimed, no two tests share one). The three runs whose
 * `--timeout 1` must not fire on an ordinary answer go one at a time (the worker's event loop
 * carries svc, the proxies and the sandbox at once). 11.5 → 4.7 s of wall.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeProspects, inputFile, ndjson, newSequence, stateProspects } from '../helpers/bulk.js';
import { times, type Fault } from '../helpers/fault-proxy.js';
import { expectNoCrash, ownProxy, startRig, turns, type Rig } from '../helpers/reliability.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { spawnSvc } from '../helpers/run-svc.js';
import { recordStats } from '../helpers/stats.js';

let base: Rig;
beforeAll(async () => {
  base = await startRig({ seed: 41 });
});
/** One at a time: the runs with `--timeout 1`, whose ordinary answers must come back within it. */
const shortTimeout = turns(1);
/** Records claimed by a test (updated, deleted, enrolled): no two concurrent tests get the same. */
const claimed = new Set<number>();
/** `n` prospects with no sequence state (from id 5), none claimed before; claimed now. */
function claim(n: number): number[] {
  const ids = freeProspects(base.sb, n + claimed.size, 5)
    .filter((id) => !claimed.has(id))
    .slice(0, n);
  for (const id of ids) claimed.add(id);
  return ids;
}
/** Rows each test sent through faults, and what the sandbox holds for them (README figures). */
const tally = { rows: 0, rowsLost: 0, duplicates: 0 };
/** Counts a create test's rows from the store: missing names are lost rows, extra records duplicates. */
function countCreated(marker: string, names: string[]): void {
  const got = marked(marker).map((p) => String(p.attributes['firstName']));
  tally.rows += names.length;
  tally.rowsLost += names.filter((n) => !got.includes(n)).length;
  tally.duplicates += got.length - new Set(got).size;
}
afterAll(async () => {
  recordStats('bulk-faults', { bulkRows: tally.rows, rowsLost: tally.rowsLost, duplicates: tally.duplicates });
  await base?.close();
});

const svc = (rig: Rig, args: string[]) => svcInProcess(args, { env: rig.env(), timeoutMs: 60_000 });
type Line = { row: number; status: string; id: number | null; error: string | null; recovered?: boolean };

/** Prospects in the store whose first address ends with a marker. */
function marked(marker: string) {
  return [...base.sb.store.table('prospect').values()].filter((p) =>
    String((p.attributes['emails'] as string[] | undefined)?.[0] ?? '').endsWith(marker),
  );
}

/**
 * An NDJSON file of `n` new prospects `${prefix}0`, `${prefix}1`… (with `extra` attributes), each
 * with one address ending in `marker`; their first names.
 */
function newPeople(
  name: string,
  prefix: string,
  marker: string,
  n: number,
  extra: Record<string, string> = {},
): { file: string; names: string[] } {
  const names = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const rows = names.map((f) => JSON.stringify({ firstName: f, ...extra, emails: [`${f.toLowerCase()}${marker}`] }));
  return { file: inputFile(name, rows.join('\n') + '\n'), names };
}

/** Every line of a journal parses; returns the entries. */
function journalEntries(file: string) {
  const text = fs.readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { key: string; row: number; status: string; id?: number });
}

/** An HTML page a gateway sends after the server behind it did the work. */
const gateway502: Fault = {
  kind: 'rewrite',
  status: 502,
  headers: { 'content-type': 'text/html' },
  body: () => '<html><body><h1>502 Bad Gateway</h1></body></html>',
};

/** The faults a run of creates meets, in order, on its POSTs. */
const CREATE_FAULTS: Fault[] = [
  { kind: 'reset-after' }, // done by the server, answer lost
  { kind: 'pass' },
  { kind: 'reset-before' }, // never reached the server
  { kind: 'cut' }, // done, answer cut short
  gateway502, // done, the gateway says 502
  { kind: 'answer', status: 500, body: '{"errors":[{"title":"Internal Server Error"}]}' }, // not done, 500
  { kind: 'hang', forward: true }, // done, answer never comes (timeout)
  { kind: 'reset-after' },
];

describe.concurrent('bulk runs through faults, each test with its own proxy', () => {
  describe('creates: answers lost after the server did the work', () => {
    it('every row created exactly once; lost answers found by lookup, never re-sent blindly', async (ctx) => {
      const { expect } = ctx;
      await shortTimeout(ctx);
      const rig = await ownProxy(base, ctx);
      const n = 14;
      const { file, names } = newPeople('c.ndjson', 'Net', '@netfault.test', n, { lastName: 'Fault' });
      const report = `${file}.report.ndjson`;
      const POSTS = { method: 'POST', path: /^\/api\/v2\/prospects(\?|$)/ };
      rig.proxy.plan(POSTS, CREATE_FAULTS);
      const mark = rig.proxy.log.length;
      const r = await svc(rig, [
        'prospects',
        'create',
        '--input',
        file,
        '--report',
        report,
        '--concurrency',
        '4',
        '--timeout',
        '1',
        '--settle',
        '1',
        // Rows that never reached the server are sent again (after the last lookup), as this test wants.
        '--resend-unconfirmed',
      ]);
      rig.proxy.clear();
      countCreated('@netfault.test', names);
      expectNoCrash(r);
      expect(r.code, r.stderr).toBe(0);
      // The sandbox holds each row once.
      const made = marked('@netfault.test');
      expect(made.map((p) => p.attributes['firstName']).sort()).toEqual([...names].sort());
      // The report: one line per row, all created, ids those of the store.
      const lines = ndjson<Line>(report);
      expect(lines.map((l) => l.row).sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      expect(lines.every((l) => l.status === 'created')).toBe(true);
      expect(lines.map((l) => l.id).sort()).toEqual(made.map((p) => p.id).sort());
      // Every fault was met; the ones after the server did the work were recovered by lookup.
      const posts = rig.proxy.since(mark, POSTS);
      expect(posts.slice(0, CREATE_FAULTS.length).map((e) => e.fault)).toEqual(CREATE_FAULTS.map((f) => f.kind));
      expect(lines.filter((l) => l.recovered)).toHaveLength(5);
      // Rows the server never created were sent again; the others were not.
      expect(posts.length).toBe(n + 2);
      const journal = journalEntries(`${file}.journal.ndjson`);
      const done = journal.filter((j) => j.status === 'created');
      expect(new Set(done.map((j) => j.key)).size).toBe(n);
      // A rerun does nothing.
      const mark2 = rig.proxy.log.length;
      const again = await svc(rig, ['prospects', 'create', '--input', file]);
      expect(again.code, again.stderr).toBe(0);
      expect(rig.proxy.since(mark2, POSTS)).toHaveLength(0);
      expect(marked('@netfault.test')).toHaveLength(n);
    });
  });

  describe('updates, deletes, enrolments through faults', () => {
    it('updates whose answers were lost are read back, not sent again; each record ends with its new value', async (ctx) => {
      const { expect } = ctx;
      await shortTimeout(ctx);
      const rig = await ownProxy(base, ctx);
      const ids = claim(8);
      const file = inputFile('u.ndjson', ids.map((id) => JSON.stringify({ id, title: `Fixed ${id}` })).join('\n') + '\n');
      const PATCHES = { method: 'PATCH', path: /^\/api\/v2\/prospects\/\d+(\?|$)/ };
      rig.proxy.plan(PATCHES, [
        { kind: 'reset-after' },
        { kind: 'cut' },
        gateway502,
        { kind: 'hang', forward: true },
        { kind: 'reset-before' },
      ]);
      const mark = rig.proxy.log.length;
      const r = await svc(rig, ['prospects', 'update', '--input', file, '--report', '-', '--timeout', '1', '--settle', '1']);
      rig.proxy.clear();
      expectNoCrash(r);
      tally.rows += ids.length;
      tally.rowsLost += ids.filter((id) => rig.sb.store.get('prospect', id)?.attributes['title'] !== `Fixed ${id}`).length;
      expect(r.code, r.stderr).toBe(0);
      for (const id of ids) expect(rig.sb.store.get('prospect', id)!.attributes['title']).toBe(`Fixed ${id}`);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line);
      expect(lines.map((l) => l.status)).toEqual(Array(8).fill('updated'));
      // Lost answers are read back, not sent again: only the update that never reached the server
      // (reset before forwarding) is sent a second time, after the settle window.
      expect(lines.filter((l) => l.recovered)).toHaveLength(4);
      expect(rig.proxy.since(mark, PATCHES)).toHaveLength(8 + 1);
    });

    it('a delete whose answer was lost is found gone on the retry and counted deleted once', async (ctx) => {
      const { expect } = ctx;
      const rig = await ownProxy(base, ctx);
      const ids = claim(6);
      const file = inputFile('d.csv', 'id\n' + ids.join('\n') + '\n');
      const DELETES = { method: 'DELETE', path: /^\/api\/v2\/prospects\/\d+(\?|$)/ };
      rig.proxy.plan(DELETES, [{ kind: 'reset-after' }, { kind: 'pass' }, { kind: 'cut' }]);
      const r = await svc(rig, ['prospects', 'delete', '--input', file, '--yes', '--report', '-', '--settle', '1']);
      rig.proxy.clear();
      expectNoCrash(r);
      tally.rows += ids.length;
      tally.rowsLost += ids.filter((id) => rig.sb.store.get('prospect', id) !== undefined).length;
      expect(r.code, r.stderr).toBe(0);
      for (const id of ids) expect(rig.sb.store.get('prospect', id)).toBeUndefined();
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line);
      expect(lines.map((l) => l.status)).toEqual(Array(6).fill('deleted'));
    });

    it('enrolments: lost answers looked up, every prospect in the sequence exactly once', async (ctx) => {
      const { expect } = ctx;
      await shortTimeout(ctx);
      const rig = await ownProxy(base, ctx);
      const seq = await newSequence(rig.sb, { permitDuplicateProspects: 'allow' });
      const ids = claim(10);
      const file = inputFile('e.csv', 'id\n' + ids.join('\n') + '\n');
      const STATES = { method: 'POST', path: /^\/api\/v2\/sequenceStates(\?|$)/ };
      rig.proxy.plan(STATES, [
        { kind: 'reset-after' },
        gateway502,
        { kind: 'reset-before' },
        { kind: 'cut' },
        { kind: 'hang', forward: true },
      ]);
      const r = await svc(rig, [
        'enroll',
        '--sequence',
        String(seq),
        '--mailbox',
        '1',
        '--input',
        file,
        '--report',
        '-',
        '--timeout',
        '1',
        '--settle',
        '1',
        // Rows that never reached the server are sent again (after the last lookup), as this test wants.
        '--resend-unconfirmed',
      ]);
      rig.proxy.clear();
      expectNoCrash(r);
      expect(r.code, r.stderr).toBe(0);
      // permitDuplicateProspects: allow — the server would take a second enrolment; there is none.
      const states = stateProspects(rig.sb, seq);
      tally.rows += ids.length;
      tally.rowsLost += ids.filter((id) => !states.includes(id)).length;
      tally.duplicates += states.length - new Set(states).size;
      expect(states).toEqual([...ids].sort((a, b) => a - b));
    });
  });

  describe('429 storms and maintenance during a run', () => {
    it('a storm of 429s and 503s (seconds and ISO Retry-After) is waited out; every row once', async (ctx) => {
      const { expect } = ctx;
      const rig = await ownProxy(base, ctx);
      const n = 10;
      const { file, names } = newPeople('s.ndjson', 'Storm', '@storm.test', n);
      const POSTS = { method: 'POST', path: /^\/api\/v2\/prospects(\?|$)/ };
      const limited = (retryAfter?: string): Fault => ({
        kind: 'answer',
        status: 429,
        headers: retryAfter ? { 'retry-after': retryAfter } : {},
        body: '{"errors":[{"id":"rateLimitExceeded","title":"Rate limit exceeded"}]}',
      });
      const maintenance: Fault = {
        kind: 'answer',
        status: 503,
        headers: { 'retry-after': new Date(Date.now() + 1500).toISOString() },
        body: '{"errors":[{"id":"scheduledServerMaintenance","title":"Scheduled maintenance"}]}',
      };
      rig.proxy.plan(POSTS, [...times(6, limited('1')), maintenance, limited(), ...times(3, limited('0'))]);
      const mark = rig.proxy.log.length;
      const r = await svc(rig, ['prospects', 'create', '--input', file, '--report', '-']);
      rig.proxy.clear();
      countCreated('@storm.test', names);
      expectNoCrash(r);
      expect(r.code, r.stderr).toBe(0);
      expect(marked('@storm.test')).toHaveLength(n);
      const posts = rig.proxy.since(mark, POSTS);
      expect(posts.filter((e) => e.fault === 'pass')).toHaveLength(n);
      expect(posts).toHaveLength(n + 11);
    });
  });

  describe('the API goes away during a run', () => {
    it('down for a moment after some creates: the run waits it out, every row once', async (ctx) => {
      const { expect } = ctx;
      const rig = await ownProxy(base, ctx);
      const n = 16;
      const { file, names } = newPeople('o.ndjson', 'Out', '@outage.test', n);
      const POSTS = { method: 'POST', path: /^\/api\/v2\/prospects(\?|$)/ };
      const mark = rig.proxy.log.length;
      const child = spawnSvc(
        ['prospects', 'create', '--input', file, '--report', '-', '--concurrency', '2', '--settle', '1', '--resend-unconfirmed'],
        {
          env: rig.env(),
        },
      );
      let stdout = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr!.resume();
      // After the fifth create the server vanishes (connections refused) for 1.2 s.
      while (rig.proxy.since(mark, POSTS).length < 5) await new Promise((r) => setTimeout(r, 2));
      await rig.proxy.down();
      await new Promise((r) => setTimeout(r, 1_200));
      await rig.proxy.up();
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      countCreated('@outage.test', names);
      expect(code).toBe(0);
      expect(marked('@outage.test')).toHaveLength(n);
      const lines = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line);
      expect(lines.map((l) => l.status)).toEqual(Array(n).fill('created'));
    });

    it('down for good: failed rows are reported (exit 5), nothing is lost; the rerun does the rest once', async (ctx) => {
      const { expect } = ctx;
      const rig = await ownProxy(base, ctx);
      const n = 8;
      const { file, names } = newPeople('g.ndjson', 'Gone', '@gone.test', n);
      const POSTS = { method: 'POST', path: /^\/api\/v2\/prospects(\?|$)/ };
      // The first three creates go through, then every create is refused at the door.
      const remove = rig.proxy.plan(POSTS, [{ kind: 'pass' }, { kind: 'pass' }, { kind: 'pass' }, ...times(200, { kind: 'reset-before' })]);
      const r = await svc(rig, [
        'prospects',
        'create',
        '--input',
        file,
        '--report',
        `${file}.report`,
        '--concurrency',
        '1',
        '--settle',
        '0.3',
        '--resend-unconfirmed',
      ]);
      remove();
      expectNoCrash(r);
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toMatch(/error: 5 of 8 rows failed/);
      const report = ndjson<Line>(`${file}.report`);
      expect(report.filter((l) => l.status === 'created')).toHaveLength(3);
      expect(report.filter((l) => l.status === 'failed')).toHaveLength(5);
      expect(marked('@gone.test')).toHaveLength(3);
      const again = await svc(rig, ['prospects', 'create', '--input', file]);
      countCreated('@gone.test', names);
      expect(again.code, again.stderr).toBe(0);
      const made = marked('@gone.test');
      expect(made.map((p) => p.attributes['firstName']).sort()).toEqual([...names].sort());
    });
  });

  describe('refused rows in the journal', () => {
    /** A refusal at the door: nothing was created. */
    const refused: Fault = {
      kind: 'answer',
      status: 422,
      body: '{"errors":[{"id":"validationError","title":"Validation Error","detail":"try again later"}]}',
    };

    it('a create refused with a 4xx is journaled failed; a rerun sends it again, or skips it with --skip-failed', async (ctx) => {
      const { expect } = ctx;
      const rig = await ownProxy(base, ctx);
      // Rows with no filterable field: a row left `pending` could never be looked up (unknown for good).
      const jobs = Array.from({ length: 6 }, (_, i) => `Refused job ${i}`);
      const file = inputFile('r.ndjson', jobs.map((j) => JSON.stringify({ occupation: j, middleName: 'Refused' })).join('\n') + '\n');
      const POSTS = { method: 'POST', path: /^\/api\/v2\/prospects(\?|$)/ };
      const refuse = new Set([jobs[1], jobs[4]]);
      const remove = rig.proxy.decide(POSTS, (q) => {
        const job = String(JSON.parse(q.body).data.attributes.occupation);
        return refuse.delete(job) ? refused : undefined;
      });
      const stored = () =>
        [...rig.sb.store.table('prospect').values()]
          .filter((p) => String(p.attributes['occupation']).startsWith('Refused job'))
          .map((p) => String(p.attributes['occupation']));
      const first = await svc(rig, ['prospects', 'create', '--input', file, '--report', `${file}.1`]);
      remove();
      expectNoCrash(first);
      expect(first.code, first.stderr).toBe(5);
      expect(
        ndjson<Line>(`${file}.1`)
          .filter((l) => l.status === 'failed')
          .map((l) => l.row)
          .sort(),
      ).toEqual([2, 5]);
      // The journal says what happened: refused, with the server's reason — not left pending.
      const latest = new Map(journalEntries(`${file}.journal.ndjson`).map((e) => [e.row, e]));
      expect([2, 5].map((row) => latest.get(row)?.status)).toEqual(['failed', 'failed']);
      expect(latest.get(2)).toMatchObject({ error: expect.stringMatching(/HTTP 422 Validation Error/) });

      // --skip-failed: nothing is sent; the refused rows are reported skipped, with the reason.
      const mark = rig.proxy.log.length;
      const skip = await svc(rig, ['prospects', 'create', '--input', file, '--skip-failed', '--report', '-']);
      expect(skip.code, skip.stderr).toBe(0);
      expect(rig.proxy.since(mark, POSTS)).toHaveLength(0);
      const skipped = skip.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line & { reason: string });
      expect(
        skipped
          .filter((l) => /failed in an earlier run/.test(l.reason))
          .map((l) => l.row)
          .sort(),
      ).toEqual([2, 5]);

      // The default rerun sends the refused rows again (nothing to look up: they were refused).
      const again = await svc(rig, ['prospects', 'create', '--input', file, '--report', '-']);
      expectNoCrash(again);
      expect(again.code, again.stderr).toBe(0);
      expect(rig.proxy.since(mark, POSTS)).toHaveLength(2);
      const lines = again.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line);
      expect(
        lines
          .filter((l) => l.status === 'created')
          .map((l) => l.row)
          .sort(),
      ).toEqual([2, 5]);
      tally.rows += jobs.length;
      tally.rowsLost += jobs.filter((j) => !stored().includes(j)).length;
      tally.duplicates += stored().length - new Set(stored()).size;
      expect(stored().sort()).toEqual([...jobs].sort());
    });

    it('an enrolment refused with a 4xx is journaled failed and enrolled by the rerun', async (ctx) => {
      const { expect } = ctx;
      const rig = await ownProxy(base, ctx);
      const seq = await newSequence(rig.sb, { permitDuplicateProspects: 'allow' });
      const ids = claim(4);
      const file = inputFile('re.csv', 'id\n' + ids.join('\n') + '\n');
      const STATES = { method: 'POST', path: /^\/api\/v2\/sequenceStates(\?|$)/ };
      const remove = rig.proxy.plan(STATES, [refused]);
      const first = await svc(rig, ['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--concurrency', '1']);
      remove();
      expect(first.code, first.stderr).toBe(5);
      expect(journalEntries(`${file}.journal.ndjson`).filter((e) => e.status === 'failed')).toHaveLength(1);
      const again = await svc(rig, ['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file]);
      expect(again.code, again.stderr).toBe(0);
      expect(stateProspects(rig.sb, seq)).toEqual([...ids].sort((a, b) => a - b));
    });
  });
});
