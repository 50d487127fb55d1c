/**
 * `svc report` counts days, weeks and dates in a time zone (`--tz`, else the machine's), against
 * the sandbox over HTTP. A trial user in Tokyo saw a mailing delivered at 00:33 local time on the
 * day before: reports counted UTC days. Mailings are placed at chosen instants (the org is seeded
 * as of 2019, so nothing else falls in 2026's February and March), and the report's days and the
 * range it asks for are checked in Asia/Tokyo, UTC and across America/New_York's change to
 * daylight saving. The default zone is the process's: a child `bin/svc` with TZ set. (An unknown
 * zone's usage error: test/unit/commands/report/usage.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { json, runSvc } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: () => Record<string, string>;

/** Mailbox 1's mailings are the Tokyo ones, mailbox 2's the New York ones. */
const TOKYO = [
  '2026-03-01T14:59:59', // 23:59:59 on 1 March in Tokyo
  '2026-03-01T15:33:00', // 00:33 on 2 March in Tokyo: the trial's mailing
  '2026-03-02T14:59:59', // 23:59:59 on 2 March
  '2026-03-02T15:00:00', // 00:00 on 3 March: outside 1–2 March in Tokyo, inside in UTC
];
/** Around 8 March 2026, when New York moved from UTC-05:00 to UTC-04:00 (a Sunday of 23 hours). */
const NEW_YORK = [
  '2026-03-02T04:50:00', // Sunday 1 March 23:50 EST: the week of 23 February
  '2026-03-02T05:15:00', // Monday 2 March 00:15 EST
  '2026-03-08T05:00:00', // Sunday 8 March 00:00 EST, the first second of the short day
  '2026-03-09T03:59:59', // Sunday 8 March 23:59:59 EDT, its last (in UTC already Monday)
  '2026-03-09T04:00:00', // Monday 9 March 00:00 EDT (at UTC-05:00 still Sunday)
];

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seedNow: '2019-06-01T12:00:00Z' }));
  const add = (deliveredAt: string, mailbox: number) =>
    sb.store.insert(
      'mailing',
      { deliveredAt, state: 'delivered', mailboxAddress: `box${mailbox}@tz.test`, openedAt: deliveredAt },
      { mailbox: { type: 'mailbox', id: mailbox } },
      { silent: true },
    );
  for (const t of TOKYO) add(t, 1);
  for (const t of NEW_YORK) add(t, 2);
});
afterAll(() => sb?.close());

async function report(args: string[], extraEnv: Record<string, string> = {}) {
  const mark = sb.requests.length;
  const r = await svcInProcess(['report', 'mailings', ...args], { env: { ...env(), ...extraEnv } });
  const sent = received(sb, mark).filter((q) => q.path.startsWith('/api/v2/'));
  return { ...r, sent: sent.map((q) => decodeURIComponent(q.query.raw)) };
}
const counts = (r: { stdout: string }) => json<{ group: string; delivered: number }[]>(r as never).map((x) => [x.group, x.delivered]);
const tokyoRange = ['--filter', 'deliveredAt=2026-03-01..2026-03-02', '--filter', 'mailbox.id=1'];

describe('report mailings --tz', () => {
  it('a mailing delivered at 2026-03-01T15:33:00 UTC is on 2 March in Asia/Tokyo; the range is Tokyo days, sent as UTC instants', async () => {
    const r = await report([...tokyoRange, '--tz', 'Asia/Tokyo', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(counts(r)).toEqual([
      ['2026-03-01', 1],
      ['2026-03-02', 2],
    ]);
    // Rows only, as before: the group keys are the local dates.
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
    expect(r.sent).toHaveLength(1);
    expect(r.sent[0]).toContain('filter[deliveredAt]=2026-02-28T15:00:00Z..2026-03-02T14:59:59Z');
    // One date alone is that whole local day.
    const one = await report(['--filter', 'deliveredAt=2026-03-02', '--filter', 'mailbox.id=1', '--tz', 'asia/tokyo', '-o', 'json']);
    expect(counts(one)).toEqual([['2026-03-02', 2]]);
    expect(one.sent[0]).toContain('filter[deliveredAt]=2026-03-01T15:00:00Z..2026-03-02T14:59:59Z');
  });

  it("relative days in the filter are the zone's: yesterday.. in Pacific/Kiritimati (UTC+14) from a machine in Los Angeles", async () => {
    const day = 86_400_000;
    const kiritimati = (t: number) => Math.floor((t + 14 * 3_600_000) / day) * day - 14 * 3_600_000;
    const before = Date.now();
    const r = await report(['--filter', 'deliveredAt=yesterday..', '--tz', 'Pacific/Kiritimati', '-o', 'json'], {
      TZ: 'America/Los_Angeles',
    });
    expect(r.code, r.stderr).toBe(0);
    // The first second of yesterday in Kiritimati (of the run's start or, across its midnight, its end).
    const from = (t: number) => `filter[deliveredAt]=${new Date(kiritimati(t) - day).toISOString().slice(0, 19)}Z..inf`;
    expect([from(before), from(Date.now())]).toContain(/filter\[deliveredAt\]=[^&]*/.exec(r.sent[0]!)?.[0]);
    expect(counts(r)).toHaveLength(2);
  });

  it('--tz UTC counts UTC days, as the API writes its times', async () => {
    const r = await report([...tokyoRange, '--tz', 'UTC', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(counts(r)).toEqual([
      ['2026-03-01', 2],
      ['2026-03-02', 2],
    ]);
    expect(r.sent[0]).toContain('filter[deliveredAt]=2026-03-01T00:00:00Z..2026-03-02T23:59:59Z');
  });

  it('weeks start on the local Monday across the change to daylight saving in America/New_York', async () => {
    const ny = ['--filter', 'mailbox.id=2', '--tz', 'America/New_York', '-o', 'json'];
    const weeks = await report(['--by', 'week', '--filter', 'deliveredAt=2026-02-23..2026-03-15', ...ny]);
    expect(weeks.code, weeks.stderr).toBe(0);
    expect(json<{ group: string; delivered: number; days: number }[]>(weeks).map((x) => [x.group, x.delivered, x.days])).toEqual([
      ['2026-02-23', 1, 7],
      ['2026-03-02', 3, 7],
      ['2026-03-09', 1, 7],
    ]);
    // 23 February 00:00 EST to 15 March 23:59:59 EDT.
    expect(weeks.sent[0]).toContain('filter[deliveredAt]=2026-02-23T05:00:00Z..2026-03-16T03:59:59Z');
    // The Sunday of 23 hours holds its first and its last second; Monday begins an hour earlier in UTC.
    const days = await report(['--filter', 'deliveredAt=2026-03-07..2026-03-09', ...ny]);
    expect(counts(days)).toEqual([
      ['2026-03-07', 0],
      ['2026-03-08', 2],
      ['2026-03-09', 1],
    ]);
    expect(days.sent[0]).toContain('filter[deliveredAt]=2026-03-07T05:00:00Z..2026-03-10T03:59:59Z');
  });

  it('a range without a start begins at the first delivery: the days and weeks between with none are rows of 0, not left out', async () => {
    // A mailbox of its own: the seeded org's mailings are years older.
    const box = sb.store.insert('mailbox', { email: 'open-start@tz.test' }, {}, { silent: true }).id;
    for (const deliveredAt of ['2026-03-02T05:15:00', '2026-03-08T05:00:00', '2026-03-09T04:00:00'])
      sb.store.insert('mailing', { deliveredAt, state: 'delivered' }, { mailbox: { type: 'mailbox', id: box } }, { silent: true });
    const ny = ['--filter', `mailbox.id=${box}`, '--tz', 'America/New_York', '-o', 'json'];
    const days = await report(['--filter', 'deliveredAt=..2026-03-10', ...ny]);
    expect(days.code, days.stderr).toBe(0);
    expect(counts(days)).toEqual([
      ['2026-03-02', 1],
      ['2026-03-03', 0],
      ['2026-03-04', 0],
      ['2026-03-05', 0],
      ['2026-03-06', 0],
      ['2026-03-07', 0],
      ['2026-03-08', 1],
      ['2026-03-09', 1],
      ['2026-03-10', 0],
    ]);
    // By week the first is whole (nothing was delivered before it) and each says its days.
    const weeks = await report(['--by', 'week', '--filter', 'deliveredAt=..2026-03-22', ...ny]);
    expect(json<{ group: string; delivered: number; days: number }[]>(weeks).map((x) => [x.group, x.delivered, x.days])).toEqual([
      ['2026-03-02', 2, 7],
      ['2026-03-09', 1, 7],
      ['2026-03-16', 0, 7],
    ]);
  });

  it('the drawing names the zone once; the HTML footer names it instead of UTC', async () => {
    const drawn = await report([...tokyoRange, '--tz', 'Asia/Tokyo', '--ascii']);
    expect(drawn.code, drawn.stderr).toBe(0);
    expect(drawn.stdout).toMatch(/^Mailings by day: 3 delivered, 2026-03-01 to 2026-03-02$/m);
    expect(drawn.stdout.match(/Asia\/Tokyo/g)).toHaveLength(1);
    expect(drawn.stdout).toMatch(/^days in Asia\/Tokyo \(UTC\+09:00\)$/m);
    const weeks = await report(['--by', 'week', '--filter', 'deliveredAt=2026-03-01..2026-03-14', '--tz', 'America/New_York', '--ascii']);
    expect(weeks.stdout).toMatch(/^weeks \(from Monday\) in America\/New_York \(UTC-05:00, UTC-04:00 from 2026-03-08\)$/m);
    const page = await report([...tokyoRange, '--tz', 'Asia/Tokyo', '--html', '-']);
    expect(page.code, page.stderr).toBe(0);
    expect(page.stdout).toMatch(/<footer><p>Made by svc on \d{4}-\d\d-\d\d \d\d:\d\d Asia\/Tokyo \(UTC\+09:00\)\.<\/p><\/footer>/);
    expect(page.stdout).not.toMatch(/ UTC\.</);
  });
});

describe('the other reports', () => {
  it('report prospect dates the last touch in the zone and says so; the histogram keeps the API’s months', async () => {
    sb.store.update('prospect', 1, { touchedAt: '2026-03-01T15:33:00', engagedAt: '2026-03-01T14:59:59' });
    const run = (zone: string) => svcInProcess(['report', 'prospect', '1', '--tz', zone, '--ascii'], { env: env() });
    const tokyo = await run('Asia/Tokyo');
    expect(tokyo.code, tokyo.stderr).toBe(0);
    expect(tokyo.stdout).toMatch(/last touched 2026-03-02 · last engaged 2026-03-01/);
    expect(tokyo.stdout.replace(/\s+/g, ' ')).toContain(
      "dates in Asia/Tokyo (UTC+09:00); the histogram's months are the API's, named by the month in UTC",
    );
    expect((await run('UTC')).stdout).toMatch(/last touched 2026-03-01 · last engaged 2026-03-01/);
  });

  it('report sequences --html: the footer names the machine’s zone (TZ), or --tz', async () => {
    const page = (args: string[]) =>
      runInProcess(['report', 'sequences', '--html', '-', ...args], { ...env(), TZ: 'America/New_York' }, { timeoutMs: 30_000 });
    const footer = (r: { stdout: string }) =>
      /<footer><p>Made by svc on \d{4}-\d\d-\d\d \d\d:\d\d (.*)\.<\/p><\/footer>/.exec(r.stdout)?.[1];
    expect(footer(await page([]))).toMatch(/^America\/New_York \(UTC-0[45]:00\)$/);
    expect(footer(await page(['--tz', 'utc']))).toBe('UTC');
  });
});

describe('the default zone is the machine’s', () => {
  it('TZ=Asia/Tokyo in the environment of bin/svc counts Tokyo days without --tz', async () => {
    const r = await runSvc(['report', 'mailings', ...tokyoRange, '-o', 'json'], { env: { ...env(), TZ: 'Asia/Tokyo' } });
    expect(r.code, r.stderr).toBe(0);
    expect(counts(r)).toEqual([
      ['2026-03-01', 1],
      ['2026-03-02', 2],
    ]);
  });

  it('in-process, the command’s TZ is the zone; --tz local is the same; a TZ no zone names counts UTC days and says so', async () => {
    const run = (args: string[], TZ: string) =>
      runInProcess(['report', 'mailings', ...tokyoRange, ...args], { ...env(), NO_COLOR: '1', TZ }, { timeoutMs: 30_000 });
    const tokyo = await run(['--ascii'], 'Asia/Tokyo');
    expect(tokyo.code, tokyo.stderr).toBe(0);
    expect(tokyo.stdout).toMatch(/^days in Asia\/Tokyo \(UTC\+09:00\)$/m);
    expect((await run(['--tz', 'local', '--ascii'], 'Asia/Tokyo')).stdout).toBe(tokyo.stdout);
    const posix = await run(['-o', 'json'], 'JST-9');
    expect(posix.code, posix.stderr).toBe(0);
    expect(posix.stderr).toMatch(/^warning: TZ=JST-9 is not a time zone svc knows: days are counted in UTC/m);
    expect(JSON.parse(posix.stdout).map((x: { group: string; delivered: number }) => [x.group, x.delivered])).toEqual([
      ['2026-03-01', 2],
      ['2026-03-02', 2],
    ]);
  });
});
