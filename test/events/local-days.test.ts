/**
 * A day in `--since` and `--until` of `events tail` and `events replay` is a day of the machine's
 * zone (TZ), as in `--filter createdAt=DATE` (docs/filters.md): `--since DATE` its first
 * instant, `--until DATE` its last. In Sydney `--since 2026-11-30` was sent as
 * `2026-11-30T00:00:00Z..inf` (11:00 there), and the date of today there was refused as "in the
 * future" before 11:00 (a trial). In process, against the sandbox over HTTP; the parser at a
 * fixed moment in test/events/units.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { start, type Client } from '../helpers/sandbox.js';

let c: Client;
let env: Record<string, string>;

beforeAll(async () => {
  c = await start({ seed: 5 });
  env = {
    SVC_CONFIG_DIR: tempDir(),
    SVC_BASE_URL: c.sb.baseUrl,
    SVC_AUTH_URL: c.sb.authUrl,
    SVC_TOKEN: c.sb.token,
    TZ: 'Australia/Sydney',
  };
});
afterAll(async () => {
  await c.sb.close();
});

/** The `filter[createdAt]` of the events requests a run sent. */
function createdAtFilters(from: number): string[] {
  return c.sb.requests
    .slice(from)
    .filter((r) => r.path === '/api/v2/events')
    .map((r) => new URLSearchParams(r.query.raw).get('filter[createdAt]') ?? '');
}

/** Today's date in Sydney, as a Sydney calendar says it. */
const sydneyToday = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney' }).format(Date.now());

describe('a date in --since and --until is a day of the machine zone', () => {
  it('events tail --since DATE asks from the start of that day in Sydney (UTC+11 in November)', async () => {
    const mark = c.sb.requests.length;
    const r = await svcInProcess(['events', 'tail', '--since', '2026-11-02', '-o', 'ndjson'], { env });
    expect(r.code, r.stderr).toBe(0);
    const sent = createdAtFilters(mark);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent[0]).toBe('2026-11-01T13:00:00Z..inf');
  });

  it("events tail --since with Sydney's date of today is not in the future, and asks from its midnight", async () => {
    const mark = c.sb.requests.length;
    const today = sydneyToday();
    const r = await svcInProcess(['events', 'tail', '--since', today, '-o', 'ndjson'], { env });
    expect(r.code, r.stderr).toBe(0);
    const todayRun = createdAtFilters(mark)[0];
    const mark2 = c.sb.requests.length;
    expect((await svcInProcess(['events', 'tail', '--since', 'today', '-o', 'ndjson'], { env })).code).toBe(0);
    expect(todayRun).toBe(createdAtFilters(mark2)[0]);
  });

  it('events replay --plan: --since DATE from its first instant, --until DATE to its last', async () => {
    const r = await svcInProcess(
      ['events', 'replay', '--since', '2026-11-02', '--until', '2026-11-03', '--to', 'http://127.0.0.1:9/x', '--plan', '-o', 'json'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ since: '2026-11-01T13:00:00.000Z', until: '2026-11-03T12:59:59.999Z' });
  });

  it('--until with the date of today ends now, not in the future', async () => {
    const before = Date.now();
    const r = await svcInProcess(
      ['events', 'replay', '--since', 'yesterday', '--until', sydneyToday(), '--to', 'http://127.0.0.1:9/x', '--plan', '-o', 'json'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const until = Date.parse(JSON.parse(r.stdout).until);
    expect(until).toBeGreaterThanOrEqual(before);
    expect(until).toBeLessThanOrEqual(Date.now());
  });
});

describe('the view on a terminal', () => {
  it("shows the times on Sydney's clock and names the zone once; piped, ndjson keeps the API's", async () => {
    for (const name of ['Ada', 'Grace', 'Edsger']) {
      const made = await c.post('/prospects', { data: { type: 'prospect', attributes: { firstName: name, lastName: 'Zone' } } });
      expect(made.status, made.text).toBe(201);
    }
    const json = await svcInProcess(['events', 'tail', '--last', '3', '-o', 'ndjson'], { env });
    expect(json.code, json.stderr).toBe(0);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: number; createdAt: string });
    const clock = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Australia/Sydney',
      hourCycle: 'h23',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    const r = await runInProcess(['events', 'tail', '--last', '3'], env, { tty: true, columns: 120 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(events.length);
    lines.forEach((line, i) => {
      const t = Date.parse(events[i]!.createdAt.replace(/Z?$/, 'Z'));
      expect(line.startsWith(`${clock.format(t)}  `), line).toBe(true);
      expect(line.endsWith(`#${events[i]!.id}`)).toBe(true);
    });
    expect(r.stderr).toMatch(/^3 events, times in Australia\/Sydney \(UTC\+1[01]:00\); continue with: /m);
  });
});
