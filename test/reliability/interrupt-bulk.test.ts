/**
 * Bulk runs interrupted with SIGINT (Ctrl-C) and SIGKILL at seeded random points — before the
 * first request or after the k-th create — once or twice, then run again to the end. After every
 * interruption the journal is whole (every line parses; only a SIGKILL could leave a cut-off
 * last line); after a Ctrl-C every record the server made is already in the journal (requests on
 * the wire finish and are recorded) and svc says how to resume; the final run leaves every row
 * created exactly once in the sandbox (records counted there, not in svc's report).
 *
 * Trials per signal: SVC_RELIABILITY_TRIALS (default 3 here, 5 before; the issue's figure is 20).
 * Each interruption is a spawned bin/svc (~0.4 CPU-s). The seeded first three trials already hold
 * every kind of kill point for both signals: before the first request (SIGINT 176 and 227 ms,
 * SIGKILL 88 ms after start), after the k-th create (k from 1 to 16), and trials interrupted twice
 * before the rerun (SIGINT k3+k1, SIGKILL k16+k12); trials 4 and 5 add no new kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputFile, prng } from '../helpers/bulk.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { spawnSvc } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { recordStats } from '../helpers/stats.js';
import { atTime, expectEndedBy, killWhen, onRecorded, parseNdjsonStrict, TRIALS, trialTimeout } from '../helpers/trials.js';

let sb: TestSandbox;
let env: () => Record<string, string>;
beforeAll(async () => {
  // A little latency so that kills land while requests are on the wire.
  ({ sb, env } = await sandboxWithEnv({ seed: 47, latencyMs: 8 }));
});
afterAll(() => sb.close());

const ROWS = 24;
/** Trials per signal: 3 unless SVC_RELIABILITY_TRIALS says (see the header for why 3 suffice). */
const BULK_TRIALS = process.env.SVC_RELIABILITY_TRIALS ? TRIALS : 3;
type Journal = { key: string; row: number; status: string; id?: number };

/** Prospects of a trial (by the marker in their address): address → ids. */
function made(marker: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const p of sb.store.table('prospect').values()) {
    const e = String((p.attributes['emails'] as string[] | undefined)?.[0] ?? '');
    if (e.endsWith(marker)) out.set(e, [...(out.get(e) ?? []), p.id]);
  }
  return out;
}

const posts = () => sb.requests.filter((q) => q.method === 'POST' && q.path === '/api/v2/prospects').length;

/** Figures for the README (printed at the end). */
const figures = { trials: 0, interruptions: 0, rowsLost: 0, duplicates: 0 };
afterAll(() => {
  recordStats('interrupt-bulk', {
    trials: figures.trials,
    interruptions: figures.interruptions,
    bulkRows: figures.trials * ROWS,
    rowsLost: figures.rowsLost,
    duplicates: figures.duplicates,
  });
});

describe.each(['SIGINT', 'SIGKILL'] as const)('%s during bulk creates', (signal) => {
  it(`${BULK_TRIALS} seeded trials: journal whole after each, every row exactly once after the rerun`, {
    timeout: trialTimeout(4_000),
  }, async () => {
    const rnd = prng(signal === 'SIGINT' ? 9_101 : 9_202);
    for (let t = 0; t < BULK_TRIALS; t++) {
      const marker = `@${signal.toLowerCase()}-${t}.interrupt.test`;
      const rows = Array.from({ length: ROWS }, (_, i) => ({ firstName: `I${i}`, lastName: `Trial${t}`, emails: [`r${i}${marker}`] }));
      const file = inputFile('rows.ndjson', rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
      const journal = `${file}.journal.ndjson`;
      // A short settle window: a pending row the sandbox never received is watched that long.
      // A row left pending whose request never reached the sandbox is sent again (after a lookup)
      // only on request: --resend-unconfirmed.
      const args = ['prospects', 'create', '--input', file, '--concurrency', '4', '--settle', '1', '--resend-unconfirmed'];
      const interruptions = 1 + Math.floor(rnd() * 2);
      const torn = new Set<string>();
      for (let i = 0; i < interruptions; i++) {
        // The kill point: during start-up (before any request), or after the k-th create.
        const early = rnd() < 0.2;
        const delayMs = Math.floor(rnd() * 250);
        const k = 1 + Math.floor(rnd() * (ROWS - 4));
        const start = posts();
        const started = Date.now();
        const child = spawnSvc(args, { env: env() });
        // Looked at when the moment comes or the sandbox records a request, not polled.
        const ended = await killWhen(child, signal, () => (early ? Date.now() - started >= delayMs : posts() - start >= k), {
          arm: early ? atTime(started + delayMs) : onRecorded(sb.requests),
        });
        const where = `trial ${t}, interruption ${i + 1} (${early ? `${delayMs} ms after start` : `after ${k} creates`})`;
        expectEndedBy(ended, signal);
        if (signal === 'SIGINT' && ended.signal === 'SIGINT') {
          // Ended by the signal's default action: before svc set its handler (nothing sent), or
          // after it finished and removed it (every row journaled).
          const done = new Set(
            parseNdjsonStrict<Journal>(journal, false, torn)
              .filter((e) => e.status === 'created')
              .map((e) => e.row),
          );
          expect(posts() === start || done.size === ROWS, `${where}: ended by SIGINT in the middle of the run`).toBe(true);
        }
        if (ended.interrupted) figures.interruptions++;
        const entries = parseNdjsonStrict<Journal>(journal, signal === 'SIGKILL', torn);
        if (entries.tornTail) torn.add(entries.tornTail);
        // Every line is an entry, or the owner line that starts each run (its org and command).
        for (const e of entries) expect((typeof e.key === 'string' && typeof e.status === 'string') || 'owner' in e, where).toBe(true);
        if (signal === 'SIGINT' && ended.code === 130) {
          expect(ended.stderr, where).toMatch(/hint: run the same command again to do the rest/);
          // Ctrl-C lets the requests on the wire finish: whatever the server made is journaled.
          const journaled = new Set(entries.filter((e) => e.status === 'created').map((e) => e.id));
          for (const ids of made(marker).values())
            for (const id of ids) expect(journaled.has(id), `${where}: record ${id} made but not journaled`).toBe(true);
        }
        // Never a duplicate, even between the interruptions.
        for (const [email, ids] of made(marker)) expect(ids, `${where}: ${email}`).toHaveLength(1);
      }
      // The rerun that finishes the job: in this process (the killed runs are the built bin/svc).
      const last = await svcInProcess([...args, '--report', `${file}.report.ndjson`], { env: env() });
      expect(last.code, `trial ${t}\n${last.stderr}`).toBe(0);
      const byEmail = made(marker);
      figures.trials++;
      figures.rowsLost += rows.filter((r) => !byEmail.has(r.emails[0]!)).length;
      figures.duplicates += [...byEmail.values()].reduce((n, ids) => n + ids.length - 1, 0);
      expect([...byEmail.keys()].sort(), `trial ${t}`).toEqual(rows.map((r) => r.emails[0]!).sort());
      for (const ids of byEmail.values()) expect(ids).toHaveLength(1);
      // The journal after the last run: whole, one `created` per row.
      const final = parseNdjsonStrict<Journal>(journal, false, torn);
      expect(new Set(final.filter((e) => e.status === 'created').map((e) => e.row)).size).toBe(ROWS);
    }
  });
});

// SIGTERM is what a cancelled CI job and `timeout` send. It was Node's default, a silent death:
// no "interrupted" line, no rerun hint (a new user's trial). Now it winds down as Ctrl-C does.
it('SIGTERM during bulk creates: wound down as on Ctrl-C, exit 143, the rerun does the rest once', async () => {
  const marker = '@sigterm.interrupt.test';
  const rows = Array.from({ length: ROWS }, (_, i) => ({ firstName: `T${i}`, lastName: 'Term', emails: [`r${i}${marker}`] }));
  const file = inputFile('rows.ndjson', rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const args = ['prospects', 'create', '--input', file, '--concurrency', '2'];
  const start = posts();
  const ended = await killWhen(spawnSvc(args, { env: env() }), 'SIGTERM', () => posts() - start >= 3, { arm: onRecorded(sb.requests) });
  expect(ended.signal).toBeNull();
  expect(ended.code, ended.stderr).toBe(143);
  expect(ended.stderr).toMatch(/^error: interrupted: \d+ of 24 rows done$/m);
  expect(ended.stderr).toMatch(/hint: run the same command again to do the rest/);
  const last = await svcInProcess(args, { env: env() });
  expect(last.code, last.stderr).toBe(0);
  const byEmail = made(marker);
  expect([...byEmail.keys()].sort()).toEqual(rows.map((r) => r.emails[0]!).sort());
  for (const ids of byEmail.values()) expect(ids).toHaveLength(1);
});

// A CI job's cleanup after its timeout: the run stopped by SIGTERM, then `runs undo --yes` under
// set -e. The rows read ahead but never sent were recorded as maybe sent ("3 created, 21 cut
// short" with --concurrency 1), and the undo failed on each: "cannot … check by hand", exit 5 (a
// new user's trial).
it('SIGTERM with --concurrency 1: only the rows sent are recorded, and runs undo --yes exits 0 leaving the org as before', async () => {
  const marker = '@sigterm-undo.interrupt.test';
  const rows = Array.from({ length: ROWS }, (_, i) => ({ firstName: `U${i}`, lastName: 'TermUndo', emails: [`r${i}${marker}`] }));
  const file = inputFile('rows.ndjson', rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const e = env();
  const start = posts();
  const ended = await killWhen(
    spawnSvc(['prospects', 'create', '--input', file, '--concurrency', '1'], { env: e }),
    'SIGTERM',
    () => posts() - start >= 3,
    {
      arm: onRecorded(sb.requests),
    },
  );
  expect(ended.code, ended.stderr).toBe(143);
  const sent = posts() - start;
  expect(made(marker).size).toBe(sent);
  const run = /recorded as run (\S+):/.exec(ended.stderr)?.[1];
  expect(run, ended.stderr).toBeDefined();
  const list = await svcInProcess(['runs', 'list', '-o', 'json'], { env: e });
  // Every row sent answered (requests on the wire finish): none cut short, none of the unsent listed.
  expect((JSON.parse(list.stdout) as { id: string; rows: string }[]).find((r) => r.id === run)?.rows).toBe(`${sent} created (of ${ROWS})`);
  const undo = await svcInProcess(['runs', 'undo', run!, '--yes'], { env: e });
  expect(undo.code, undo.stderr).toBe(0);
  expect(made(marker).size).toBe(0);
});
