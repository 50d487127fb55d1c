/**
 * `svc limits` in every output format (used, left, reset, holders with command, pid and share),
 * and the bad values of `--budget`, `SVC_BUDGET` and `--priority` (exit 2, one line naming the
 * fix). In-process against a sandbox with a small limit; another process's lease is written to
 * the shared ledger the way that process would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileLedger } from '../../src/budget/file-ledger.js';
import { runInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { baseEnv } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: Record<string, string>;

beforeAll(async () => {
  const s = await sandboxWithEnv({ seed: 20, rateLimit: 200 });
  sb = s.sb;
  env = s.env();
});

afterAll(async () => {
  await sb?.close();
});

const svc = (args: string[], extra: Record<string, string> = {}) => svcInProcess(args, { env: { ...env, ...extra } });

describe('svc limits', () => {
  it('asks the server once when the ledger knows no window, then shows what the hour holds, and who holds what', async () => {
    const first = await svc(['limits', '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    const j = JSON.parse(first.stdout);
    expect(j).toMatchObject({ limit: 200, used: 1, left: 199, holders: [] });
    expect(Date.parse(j.reset)).toBeGreaterThan(Date.now());
    const dir = path.join(env.SVC_CONFIG_DIR!, 'data', 'budget');
    const [name] = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(fs.statSync(path.join(dir, name!)).mode & 0o777).toBe(0o600);
    // Another svc process (a live pid: the test runner's parent) running a bulk run at 20 %.
    const other = { pid: process.ppid, host: os.hostname(), command: 'prospects upsert', kind: 'bulk' as const, priority: 'low' as const };
    const ledger = new FileLedger(path.join(dir, name!));
    await ledger.take({ lease: { ...other, started: Date.now(), cap: { percent: 20 } }, held: 0, want: 10 });
    const again = await svc(['limits', '-o', 'json']);
    expect(JSON.parse(again.stdout)).toMatchObject({
      limit: 200,
      used: 11,
      left: 189,
      holders: [
        { pid: process.ppid, command: 'prospects upsert', priority: 'low', taken: 10, held: 10, share: 40, sharePercent: 20, cap: 40 },
      ],
    });
    // No request when the ledger knows the window: the count is the ledger's.
    const mark = sb.requests.length;
    const table = await svc(['limits', '-o', 'table']);
    expect(sb.requests.length).toBe(mark);
    expect(table.stdout).toMatch(
      /^limit {3}200 requests an hour at http:\/\/127\.0\.0\.1:\d+\/api\/v2\nused {4}11\nleft {4}189\nreset {3}\d\d:\d\d:\d\d UTC \(in \d+ min\)\n\nPID +COMMAND +PRIORITY +TAKEN +HELD +SHARE\n/,
    );
    expect(table.stdout).toContain(`${String(process.ppid).padEnd(8)} prospects upsert low`);
    expect(table.stdout).toMatch(/ 10 +10 {2}40 \(20%\), budget 40\n$/);
    const csv = await svc(['limits', '-o', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('limit,used,left,reset,pid,command,kind,priority,taken,held,share,sharePercent,cap');
    expect(csv.stdout.split('\n')[1]).toMatch(new RegExp(`^200,11,189,[^,]+,${process.ppid},prospects upsert,bulk,low,10,10,40,20,40$`));
    const nd = await svc(['limits', '-o', 'ndjson']);
    expect(JSON.parse(nd.stdout.trim())).toMatchObject({ limit: 200, used: 11 });
    // --refresh asks the server, whose count wins.
    const refreshed = await svc(['limits', '--refresh', '-o', 'json']);
    expect(sb.requests.length).toBe(mark + 1);
    expect(JSON.parse(refreshed.stdout).used).toBeGreaterThanOrEqual(11);
    await ledger.giveBack({ lease: { ...other, started: Date.now() }, held: 0 });
  });
});

describe('bad budget values', () => {
  it.each([
    [
      ['--budget', '20x', 'limits'],
      {},
      /^error: --budget 20x: expected a number of requests an hour \(2000\) or a share of the hour's limit \(20%\)\n/,
    ],
    [['--budget', '0', 'limits'], {}, /^error: --budget 0: expected a number/],
    [['--budget', '150%', 'limits'], {}, /^error: --budget 150%: expected a number/],
    [['limits'], { SVC_BUDGET: 'lots' }, /^error: SVC_BUDGET lots: expected a number/],
    [['--priority', 'urgent', 'limits'], {}, /^error: --priority urgent: expected low, normal or high\n/],
    [['limits'], { SVC_PRIORITY: 'top' }, /^error: SVC_PRIORITY top: expected low, normal or high\n/],
  ])('%j %j: exit 2 with one line', async (args, extra, message) => {
    const mark = sb.requests.length;
    const r = await svc(args as string[], extra as Record<string, string>);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/ at .*\.(ts|js):\d+/);
    expect(r.stdout).toBe('');
    expect(sb.requests.length).toBe(mark);
  });
});

describe('the forecast of a bulk run under --budget', () => {
  it('counts the rows that will send a request, not the invalid ones', async () => {
    // A trial: 116 invalid rows of a run that sent nothing were forecast as "about 116 requests …
    // it would end about 15:45 UTC".
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-forecast-'));
    const file = path.join(dir, 'people.csv');
    fs.writeFileSync(file, 'First Name,E-mail\nAïcha,aicha@forecast.test\nBo,not-an-address\nCy,also bad\nDee,dee@forecast.test\n');
    const r = await svc(['prospects', 'create', '--input', file, '--budget', '20%']);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/^budget 20% of the hour \(40 requests\): this run needs about 2 requests and fits in this hour$/m);
    const none = path.join(dir, 'none.csv');
    fs.writeFileSync(none, 'First Name,E-mail\nBo,not-an-address\n');
    const bad = await svc(['prospects', 'create', '--input', none, '--budget', '20%']);
    expect(bad.stderr).not.toMatch(/needs about/);
  });

  it("with a fresh config dir (a CI job), learns the hour from the run owner's read and says before the first row whether it fits", async () => {
    // A trial: a CI job's fresh $RUNNER_TEMP/svc said "the hour's limit is known after the first
    // answer", then spent its budget and waited an hour, where a warm config said "does not fit".
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-forecast-'));
    const file = path.join(dir, 'ci.csv');
    fs.writeFileSync(file, `First Name,E-mail\n${[1, 2, 3].map((i) => `Ci${i},ci${i}@fresh.test`).join('\n')}\n`);
    /** Runs the create in a config dir of its own; what the sandbox had when the forecast line was written. */
    const run = async (budget: string, stopAtForecast = false) => {
      const cold = { ...env, SVC_CONFIG_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'svc-forecast-config-')) };
      const mark = sb.requests.length;
      const atForecast: { creates?: number; roots?: number } = {};
      const stop = new AbortController();
      const journal = path.join(dir, `${budget}.journal.ndjson`);
      const r = await runInProcess(['prospects', 'create', '--input', file, '--journal', journal, '--budget', budget], baseEnv(cold), {
        signal: stop.signal,
        onOutput: (stream, text) => {
          if (stream !== 'stderr' || !/^budget .*: this run needs/m.test(text)) return;
          atForecast.creates = received(sb, mark, 'prospects').filter((q) => q.method === 'POST').length;
          atForecast.roots = sb.requests.slice(mark).filter((q) => q.method === 'GET' && q.path === '/api/v2').length;
          if (stopAtForecast) stop.abort();
        },
      });
      return { ...r, atForecast, roots: sb.requests.slice(mark).filter((q) => q.method === 'GET' && q.path === '/api/v2').length };
    };
    const fits = await run('20%');
    expect(fits.code, fits.stderr).toBe(0);
    expect(fits.stderr).toMatch(/^budget 20% of the hour \(40 requests\): this run needs about 3 requests and fits in this hour$/m);
    expect(fits.stderr).not.toMatch(/known after the first answer/);
    // Said after the root document's answer and before the first row left; that read is the run's
    // owner lookup, sent once as before (not a request added for the forecast).
    expect(fits.atForecast).toEqual({ creates: 0, roots: 1 });
    expect(fits.roots).toBe(1);
    // A budget the run does not fit: said up front, with when it would end (stopped there, no hour's wait).
    const tight = await run('2', true);
    expect(tight.stderr).toMatch(
      /^budget 2 requests an hour: this run needs about 3 requests, 1 are left this hour; it would end about \d\d:\d\d UTC$/m,
    );
    expect(tight.atForecast).toEqual({ creates: 0, roots: 1 });
    expect(tight.code).toBe(130);
  });
});

describe('one ledger per user', () => {
  it("a profile and --token with that profile's token share one ledger, as one user's jobs should", async () => {
    // A trial: `--token "$TOK"` beside `--profile anna` (logged in with the same token) kept two
    // ledger files for one user, and `svc --profile anna limits` saw neither the job nor its count.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-one-ledger-'));
    const base = { SVC_CONFIG_DIR: dir };
    const login = await svcInProcess(['--profile', 'anna', 'login', '--with-token', '--base-url', sb.baseUrl], {
      env: base,
      input: `${sb.token}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    const byProfile = await svcInProcess(['--profile', 'anna', 'limits', '-o', 'json'], { env: base });
    expect(byProfile.code, byProfile.stderr).toBe(0);
    const byToken = await svcInProcess(['--token', sb.token, '--base-url', sb.baseUrl, 'limits', '-o', 'json'], { env: base });
    expect(byToken.code, byToken.stderr).toBe(0);
    expect(JSON.parse(byToken.stdout).ledger).toBe(JSON.parse(byProfile.stdout).ledger);
  });
});
