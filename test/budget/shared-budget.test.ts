/**
 * The rate budget shared by every `svc` process of a user (issue 30), with the built bin/svc
 * against one sandbox whose limit is small and whose "hour" is a few seconds (`rateLimit`,
 * `rateWindowMs`): several processes at once never meet a 429, an interactive read is answered
 * about as fast as alone, the window is used up, bulk runs finish together; `--budget 20%`
 * holds a run to its share; a process killed with -9 gives its share back within seconds.
 *
 * Sizes come from the environment so that the default stays quick:
 *   SVC_BUDGET_PROCS   processes in the mix: 4 (default: 2 bulk runs, 1 sync, 1 interactive
 *                      reader) or 10 (the issue's: 3 bulk runs, 1 sync, 1 long listing, 1 tail
 *                      of events, 4 interactive readers)
 *   SVC_BUDGET_LIMIT   requests per window (default 80; the issue's 600)
 *   SVC_BUDGET_WINDOW  window in seconds (default 5)
 *   SVC_BUDGET_ROWS    rows of each bulk run (default 100)
 *
 * At the issue's size (SVC_BUDGET_PROCS=10 SVC_BUDGET_LIMIT=600 SVC_BUDGET_WINDOW=30
 * SVC_BUDGET_ROWS=600: 3 bulk creates of 600 rows, a sync, a long listing, a listing of events
 * standing in for a tail, 4 interactive reads), on a 2-core machine shared with other test runs,
 * the last run gave: 0 × 429; interactive reads 329, 827, 510 and 1,104 ms against 593 ms alone,
 * none of it waiting for the budget; windows used 100.0 % and 99.8 %; the bulk runs ended 0.0 %
 * apart (91.7 s each). --budget 20% held its run to 20.0 % and 20.0 % of the windows, used
 * 98.5 % and 100.0 % with the other process; after kill -9 the share was back in 1.5 s. All four
 * tests passed at that size. (Under heavier load from other work an interactive read took up to
 * 4 s with no wait for the budget: the machine, not the budget, so the wall time is checked at
 * the default size only.) Against the svc before this change the default size fails: the bulk
 * runs ended 54.6 % apart (5.6 s and 12.3 s).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type Arrival, firstArrival, watchArrivals } from '../helpers/arrivals.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { runSvc, spawnSvc, tempDir, type SvcResult } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { inputFile } from '../helpers/bulk.js';
import { reserveOf } from '../../src/budget/ledger.js';
import { killWhen } from '../helpers/trials.js';

const PROCS = Number(process.env.SVC_BUDGET_PROCS ?? 4);
const LIMIT = Number(process.env.SVC_BUDGET_LIMIT ?? 80);
const WINDOW_MS = Number(process.env.SVC_BUDGET_WINDOW ?? 5) * 1000;
const ROWS = Number(process.env.SVC_BUDGET_ROWS ?? 100);
/** Each test's time: a few windows, more at the issue's size. */
const TIMEOUT = 60_000 + 12 * WINDOW_MS;

let sb: TestSandbox;
let env: Record<string, string>;
/** Every request the sandbox took, with when (statuses read after the runs: ../helpers/arrivals.ts). */
let seen: Arrival[] = [];

beforeAll(async () => {
  const started = await sandboxWithEnv({ seed: 300, rateLimit: LIMIT, rateWindowMs: WINDOW_MS });
  sb = started.sb;
  // One config (and data) directory for every process: they share one ledger, as a user's do.
  env = started.env();
  seen = watchArrivals(sb);
});

afterAll(async () => {
  await sb?.close();
});

/** A bulk create of `rows` prospects (its own journal). */
function bulkArgs(tag: string, rows: number): string[] {
  const lines = Array.from({ length: rows }, (_, i) =>
    JSON.stringify({ firstName: `${tag}${i}`, lastName: tag, emails: [`${tag}${i}@budget.test`] }),
  );
  const file = inputFile(`${tag}.ndjson`, lines.join('\n'));
  return ['prospects', 'create', '--input', file, '--journal', `${file}.journal`, '--concurrency', '4'];
}

/** When the sandbox took the first create of the bulk run tagged `tag` (its rows carry the tag as their last name). */
function firstCreate(tag: string): number {
  const at = firstArrival(seen, `"${tag}"`);
  if (at === Number.POSITIVE_INFINITY) throw new Error(`no create of the run ${tag} was seen`);
  return at;
}

/** Runs svc, with its start and end times. */
async function timed(args: string[], extraEnv: Record<string, string> = {}): Promise<SvcResult & { start: number; end: number }> {
  const start = Date.now();
  const r = await runSvc(args, { env: { ...env, ...extraEnv }, timeoutMs: 300_000 });
  return { ...r, start, end: Date.now() };
}

/** Requests answered per window, the windows as the sandbox's limiter makes them (fixed, from the first request after the last ended). */
function windows(from: number, to: number): { start: number; served: number; posts: number }[] {
  const out: { start: number; served: number; posts: number }[] = [];
  let cur: { start: number; served: number; posts: number } | undefined;
  for (const { at, rec } of seen) {
    if (!cur || at >= cur.start + WINDOW_MS) {
      cur = { start: at, served: 0, posts: 0 };
      out.push(cur);
    }
    if (rec.status !== 429) cur.served++;
    if (rec.method === 'POST' && rec.path === '/api/v2/prospects' && rec.status !== undefined && rec.status < 300) cur.posts++;
  }
  // Only whole windows inside the span (the limiter's window may have started a little earlier
  // than the first answer we saw: an answer is recorded after the request is counted).
  return out.filter((w) => w.start >= from && w.start + WINDOW_MS <= to);
}

describe('one rate budget for every svc process of a user', () => {
  it(
    `${PROCS} processes at once: no 429, interactive reads about as fast as alone, the window used, bulk runs together`,
    async () => {
      const solo: number[] = [];
      for (let i = 0; i < 2; i++) {
        const r = await timed(['prospects', 'get', '1']);
        expect(r.code, r.stderr).toBe(0);
        solo.push(r.end - r.start);
      }
      const aloneMs = Math.min(...solo);
      const mark = seen.length;
      const bulks = PROCS >= 10 ? 3 : 2;
      const readers = PROCS >= 10 ? 4 : 1;
      const t0 = Date.now();
      const tags = Array.from({ length: bulks }, (_, i) => `b${i}x${t0}`);
      const bulkRuns = tags.map((tag) => timed(bulkArgs(tag, ROWS)));
      const longOnes: Promise<SvcResult>[] = [timed(['sync', '--db', path.join(tempDir(), 'mirror.sqlite'), 'prospects', 'accounts'])];
      if (PROCS >= 10) {
        longOnes.push(timed(['prospects', 'list', '--all', '--page-size', '5', '-o', 'ndjson']));
        longOnes.push(timed(['events', 'list', '--all', '--page-size', '2', '-o', 'ndjson']));
      }
      // Interactive reads fired at random moments while the bulk runs go.
      const reads: Promise<SvcResult & { start: number; end: number }>[] = [];
      for (let i = 0; i < readers; i++) {
        reads.push(
          new Promise((r) => setTimeout(r, 1500 + Math.random() * 2 * WINDOW_MS)).then(() =>
            timed(['-v', 'prospects', 'get', String(2 + i)]),
          ),
        );
      }
      const bulk = await Promise.all(bulkRuns);
      const t1 = Math.min(...bulk.map((b) => b.end));
      const others = await Promise.all(longOnes);
      const answered = await Promise.all(reads);
      for (const r of [...bulk, ...others, ...answered]) expect(r.code, r.stderr).toBe(0);
      const refusals = seen.slice(mark).filter(({ rec }) => rec.status === 429);
      const refused = refusals.length;
      const latencies = answered.map((r) => r.end - r.start);
      // What the shared budget made them wait (the rest is the machine: 10 processes on 2 cores).
      const waited = answered.map((r) => [...r.stderr.matchAll(/rate budget: waiting (\d+) ms/g)].reduce((n, m) => n + Number(m[1]), 0));
      const whys = answered.map((r) => [...r.stderr.matchAll(/rate budget: waiting \d+ ms \(([^)]*)\)/g)].map((m) => m[1]).join('; '));
      // The windows from when every bulk run had sent its first create: on a loaded machine one
      // process may start seconds after the others, and a window it was not in proves nothing.
      const starts = tags.map(firstCreate);
      const allStarted = Math.max(...starts);
      const full = windows(allStarted, t1);
      const used = full.map((w) => w.served / LIMIT);
      const durations = bulk.map((b) => b.end - b.start);
      const spread = (Math.max(...bulk.map((b) => b.end)) - Math.min(...bulk.map((b) => b.end))) / Math.max(...durations);
      // A run that started late ends about as late: the ends may be apart by the starts' gap too.
      const stagger = (allStarted - Math.min(...starts)) / Math.max(...durations);
      console.log(
        `figures: ${PROCS} processes, limit ${LIMIT} per ${WINDOW_MS / 1000} s, ${ROWS} rows per bulk run: ${refused} × 429; ` +
          `interactive ${latencies.map((l, i) => `${l} ms (${waited[i]} ms waiting for the budget${whys[i] ? `: ${whys[i]}` : ''})`).join(', ')} (alone ${aloneMs} ms); ` +
          `windows used ${used.map((u) => `${(u * 100).toFixed(1)} %`).join(', ')}; ` +
          `bulk runs ${durations.map((d) => `${(d / 1000).toFixed(1)} s`).join(', ')}, ends ${(spread * 100).toFixed(1)} % apart, ` +
          `first creates ${(stagger * 100).toFixed(1)} % apart` +
          // Which requests were refused and when (ms after the test's start): for a failure to say why.
          (refused ? `; refused: ${refusals.map(({ at, rec }) => `${rec.method} ${rec.path} +${at - t0} ms`).join(', ')}` : ''),
      );
      expect(refused).toBe(0);
      // The budget never holds an interactive read back 2 s; the whole answer comes within 4 s of
      // its time alone too, less than one window (5 s) that a read held back would wait, unless
      // the machine is the limit (ten node processes on two cores: at the issue's size the figures
      // show the wall time, and that the budget made no wait). 2 s was the bound until a slower
      // machine, the suite beside it, answered in 2.4 s against 0.3 s alone with no wait at all.
      for (const w of waited) expect(w).toBeLessThanOrEqual(2000);
      if (PROCS < 10) for (const l of latencies) expect(l).toBeLessThanOrEqual(aloneMs + 4000);
      expect(full.length).toBeGreaterThan(0);
      for (const u of used) expect(u).toBeGreaterThanOrEqual(0.95);
      expect(spread).toBeLessThanOrEqual(0.1 + stagger);
    },
    3 * TIMEOUT,
  );

  it(
    '--budget 20% holds a bulk run to 20 % of each window while another process uses the rest',
    async () => {
      const t0 = Date.now();
      const capped = timed(['--budget', '20%', ...bulkArgs(`c${t0}`, Math.ceil(LIMIT * 0.2 * 3))]);
      // The other process lists every record a page at a time, and is stopped with Ctrl-C once
      // the capped run is done: only the windows both ran in are measured, and waiting for the
      // rest of the listing (some 600 pages) cost half a minute.
      let cappedDone = false;
      // Looked at when the capped run is done, not polled every millisecond for ~17 s.
      let look = () => false;
      const other = killWhen(
        spawnSvc(['prospects', 'list', '--all', '--page-size', '1', '-o', 'ndjson'], { env }),
        'SIGINT',
        () => cappedDone,
        { arm: (check) => ((look = check), () => {}) },
      ).then((e) => ({ ...e, end: Date.now() }));
      const c = await capped;
      cappedDone = true;
      look();
      const o = await other;
      expect(c.code, c.stderr).toBe(0);
      // Done listing (0) or stopped by the Ctrl-C (130).
      expect(o.signal, o.stderr).toBeNull();
      expect([0, 130], o.stderr).toContain(o.code);
      // Said before the first row: the run does not fit in one window's 20 %.
      expect(c.stderr).toMatch(/budget 20% of the hour \(\d+ requests\): this run needs about \d+ requests/);
      const full = windows(t0 + 500, Math.min(c.end, o.end));
      console.log(
        `figures: --budget 20% of ${LIMIT}: the capped run's share of each whole window ${full.map((w) => `${((100 * w.posts) / LIMIT).toFixed(1)} %`).join(', ')}; the window used ${full.map((w) => `${((100 * w.served) / LIMIT).toFixed(1)} %`).join(', ')}`,
      );
      expect(full.length).toBeGreaterThan(0);
      for (const w of full) {
        expect(w.posts / LIMIT).toBeGreaterThanOrEqual(0.18);
        expect(w.posts / LIMIT).toBeLessThanOrEqual(0.22);
        expect(w.served / LIMIT).toBeGreaterThanOrEqual(0.9);
      }
      expect(seen.filter(({ at, rec }) => at >= t0 && rec.status === 429).length).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'a process killed with -9 while holding a share gives it back within 5 s',
    async () => {
      const t0 = Date.now();
      const victim: ChildProcess = spawnSvc(bulkArgs(`k${t0}`, LIMIT * 3), { env });
      const survivor = timed(bulkArgs(`s${t0}`, LIMIT));
      // Both hold shares of the window.
      let holders: { pid: number; share: number | null }[] = [];
      for (let i = 0; i < 100 && holders.filter((h) => h.share !== null).length < 2; i++) {
        await new Promise((r) => setTimeout(r, 100));
        // Reading the ledger needs no process of its own: in this one.
        const l = await svcInProcess(['limits', '-o', 'json'], { env });
        holders = JSON.parse(l.stdout).holders;
      }
      expect(holders.map((h) => h.pid)).toContain(victim.pid);
      victim.kill('SIGKILL');
      const killed = Date.now();
      let after: { holders: { pid: number; share: number | null; taken: number }[]; limit: number; left: number } | undefined;
      for (;;) {
        await new Promise((r) => setTimeout(r, 250));
        after = JSON.parse((await svcInProcess(['limits', '-o', 'json'], { env })).stdout);
        if (!after!.holders.some((h) => h.pid === victim.pid) || Date.now() - killed > 10_000) break;
      }
      const back = Date.now() - killed;
      console.log(`figures: kill -9: the share was back after ${back} ms`);
      expect(back).toBeLessThanOrEqual(5000);
      // The survivor may now take all the window has left (the reserve for interactive aside).
      const h = after!.holders.find((x) => x.share !== null)!;
      expect(h.share! - h.taken).toBeGreaterThanOrEqual(after!.left - reserveOf(LIMIT));
      const s = await survivor;
      expect(s.code, s.stderr).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'a corrupt ledger: one warning, the command runs paced by the headers',
    async () => {
      const dir = path.join(env.SVC_CONFIG_DIR!, 'data', 'budget');
      const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
      expect(files).toHaveLength(1);
      const file = path.join(dir, files[0]!);
      const kept = fs.readFileSync(file);
      fs.writeFileSync(file, '{"version": 1, "used": "lots"');
      try {
        // In this process: the ledger is read by the command, not at the process's start.
        const r = await svcInProcess(['prospects', 'list', '--page-size', '5', '-o', 'ndjson'], { env });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(5);
        expect(r.stderr.match(/warning: /g)).toHaveLength(1);
        expect(r.stderr).toMatch(
          /warning: the rate budget shared with your other svc processes is off for this command: .* is not a ledger \(not JSON\); pacing by the server's headers alone/,
        );
        expect(fs.readFileSync(file, 'utf8')).toBe('{"version": 1, "used": "lots"');
      } finally {
        fs.writeFileSync(file, kept);
      }
    },
    TIMEOUT,
  );
});
