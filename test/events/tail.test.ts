/**
 * `svc events tail --follow` while a bulk run writes: every event once, in (updatedAt, id) order,
 * as the events index has them afterwards; within the stated share of the hourly request
 * budget; Ctrl-C prints a cursor that `--since-cursor` continues exactly from.
 *
 * Size: SVC_EVENTS_BULK rows (default 150, a few seconds). At the issue's size,
 * SVC_EVENTS_BULK=2000 (run 2026-11-28 on 2 shared cores): 2,000 of 2,000 events, 0
 * duplicates, 0 missing, in order, 40 requests in 8.9 s where 2 % of the budget allows 55.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { start, type Client } from '../helpers/sandbox.js';
import { encodeCursor } from '../../src/events/cursor.js';
import { eventually, indexEvents, isoSecond, watch } from './helpers.js';

const ROWS = Number(process.env.SVC_EVENTS_BULK ?? 150);
/** A budget large enough that 2 % of it polls often (2 % of 1,000,000 an hour: every 180 ms). */
const LIMIT = 1_000_000;

let c: Client;
let env: Record<string, string>;

beforeAll(async () => {
  c = await start({ seed: 5, rateLimit: LIMIT });
  env = { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token };
});
afterAll(async () => {
  await c.sb.close();
});

/** The ids of the complete lines (a pipe may deliver a long line in parts: the rest comes later). */
function ids(ndjson: string): string[] {
  return ndjson
    .slice(0, ndjson.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((l) => String(JSON.parse(l).id));
}

/**
 * The events' ids of a JSON array still being written (`-o json --follow`): what is printed so
 * far, closed, parsed; none while a record is half-written. Not a search for `"id": N` in the
 * text: an event's payload has its record's id too (`"payload": {"type": "account", "id": 168}`),
 * which let the test stop the tail before event 168 was printed (CI, 2026-11-28).
 */
function openArrayIds(json: string): string[] {
  const body = json.trimEnd().replace(/,$/, '');
  try {
    return (JSON.parse(body.endsWith(']') ? body : `${body}]`) as { id: number }[]).map((e) => String(e.id));
  } catch {
    return [];
  }
}

describe('events tail --follow', () => {
  it(`prints each of the events of a bulk run of ${ROWS} creates once, in order, within 2 % of the budget`, async () => {
    const t0 = Date.now();
    const since = isoSecond(t0);
    const tail = watch(['events', 'tail', '--follow', '--since', since, '-o', 'ndjson'], env);
    await tail.until((o) => o.stderr.includes('following events'));
    const mark = c.sb.requests.length;
    const dir = tempDir();
    const csv = path.join(dir, 'accounts.csv');
    fs.writeFileSync(csv, ['name', ...Array.from({ length: ROWS }, (_, i) => `Bulk ${i}`)].join('\n') + '\n');
    const bulk = await svcInProcess(['accounts', 'create', '--input', csv, '--concurrency', '8', '-o', 'json'], {
      env,
      timeoutMs: 600_000,
    });
    expect(bulk.code, bulk.stderr).toBe(0);
    const index = await indexEvents(c, since);
    expect(index.filter((e) => e.name === 'account_created').length).toBeGreaterThanOrEqual(ROWS);
    await eventually(() => ids(tail.out.stdout).length >= index.length, `tail to print ${index.length} events`, 120_000);
    // A little longer: nothing more (no duplicate) comes.
    await new Promise((r) => setTimeout(r, 600));
    const elapsedMs = Date.now() - t0;
    const polls = c.sb.requests.slice(mark).filter((r) => r.path === '/api/v2/events' && r.headers['user-agent'] !== undefined).length;
    tail.child.kill('SIGINT');
    const end = await tail.exited;
    expect(end.code, tail.out.stderr).toBe(0);

    const printed = ids(tail.out.stdout);
    expect(new Set(printed).size).toBe(printed.length);
    expect(printed).toEqual(index.map((e) => e.id));
    // The share: 2 % of the limit an hour, pro rata, plus a burst of 5 and the window's first poll.
    const allowed = (LIMIT * 0.02 * elapsedMs) / 3_600_000 + 6;
    expect(polls).toBeLessThanOrEqual(allowed);
    console.log(
      `events tail: ${printed.length} of ${index.length} events, 0 duplicates, in order; ${polls} requests in ${elapsedMs} ms (allowed ${Math.floor(allowed)})`,
    );

    // Ctrl-C said where to continue: exactly after the last event printed.
    const cursor = /--since-cursor (c[12]\.\S+)/.exec(tail.out.stderr)?.[1];
    expect(cursor, tail.out.stderr).toBeDefined();
    for (let i = 0; i < 3; i++) await c.post('/accounts', { data: { type: 'account', attributes: { name: `after ${i}` } } });
    const more = await svcInProcess(['events', 'tail', '--since-cursor', cursor!, '-o', 'ndjson'], { env });
    expect(more.code, more.stderr).toBe(0);
    const after = (await indexEvents(c, since)).slice(index.length).map((e) => e.id);
    expect(after).toHaveLength(3);
    expect(ids(more.stdout)).toEqual(after);
  }, 600_000);

  it('continues from a cursor across same-second events split between two runs, none twice or skipped', async () => {
    // Same-second events split across polls: a first tail reads some, its cursor then continues.
    const since = isoSecond(Date.now());
    for (let i = 0; i < 5; i++) await c.post('/accounts', { data: { type: 'account', attributes: { name: `same ${i}` } } });
    const first = await svcInProcess(['events', 'tail', '--since', since, '-o', 'ndjson'], { env });
    const cursor = /--since-cursor (c[12]\.\S+)/.exec(first.stderr)![1]!;
    for (let i = 0; i < 5; i++) await c.post('/accounts', { data: { type: 'account', attributes: { name: `same b ${i}` } } });
    const second = await svcInProcess(['events', 'tail', '--since-cursor', cursor, '-o', 'ndjson'], { env });
    const all = [...ids(first.stdout), ...ids(second.stdout)];
    expect(all).toEqual((await indexEvents(c, since)).map((e) => e.id));
    expect(ids(second.stdout)).toHaveLength(5);
  });

  it('--cursor-file: a script runs again and again, each run printing what came since the last, none twice or skipped; the file is owner-only', async () => {
    const since = isoSecond(Date.now());
    const file = path.join(tempDir(), 'events.cursor');
    const run = () => svcInProcess(['events', 'tail', '--cursor-file', file, '--since', since, '-o', 'ndjson'], { env });
    for (let i = 0; i < 3; i++) await c.post('/accounts', { data: { type: 'account', attributes: { name: `kept ${i}` } } });
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`continue with: svc events tail --cursor-file ${file.includes(' ') ? `'${file}'` : file}`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    for (let i = 0; i < 4; i++) await c.post('/accounts', { data: { type: 'account', attributes: { name: `kept b ${i}` } } });
    const second = await run();
    expect(second.stderr).toMatch(/^continuing from \S+Z \(/m);
    const third = await run();
    expect(ids(third.stdout)).toEqual([]);
    const all = [...ids(first.stdout), ...ids(second.stdout)];
    expect(all).toEqual((await indexEvents(c, since)).map((e) => e.id));
    expect(ids(second.stdout)).toHaveLength(4);
    // A run with no new event in CSV is the header alone, as `list` writes it (it was 0 bytes).
    const csv = await svcInProcess(['events', 'tail', '--cursor-file', file, '-o', 'csv'], { env });
    expect(csv.stdout).toMatch(/^id,type,body,createdAt,eventAt,[\w,]+\n$/);
    const both = await svcInProcess(['events', 'tail', '--cursor-file', file, '--since-cursor', 'c2.x'], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^error: --since-cursor and --cursor-file: give one/);
  });

  it('prints an event that becomes visible late, within the overlap window, once; one older than the window is not taken for new', async () => {
    // The tail starts 8 s back, so the late event (3 s back) is after its start.
    const since = isoSecond(Date.now() - 8000);
    await c.post('/accounts', { data: { type: 'account', attributes: { name: 'on time' } } });
    const first = await svcInProcess(['events', 'tail', '--since', since, '-o', 'ndjson'], { env });
    const cursor1 = /--since-cursor (c[12]\.\S+)/.exec(first.stderr)![1]!;
    // A late commit: an event stamped 3 s before the last one read, visible only now.
    const realNow = c.sb.store.now;
    const lateAt = Date.now() - 3000;
    const staleAt = Date.now() - 60_000;
    try {
      c.sb.store.now = () => lateAt;
      await c.post('/accounts', { data: { type: 'account', attributes: { name: 'late' } } });
      c.sb.store.now = () => staleAt;
      await c.post('/accounts', { data: { type: 'account', attributes: { name: 'too late' } } });
    } finally {
      c.sb.store.now = realNow;
    }
    const late = (await indexEvents(c, isoSecond(lateAt))).find((e) => e.payload.attributes?.name === 'late')!;
    const second = await svcInProcess(['events', 'tail', '--since-cursor', cursor1, '-o', 'ndjson'], { env });
    expect(ids(second.stdout)).toEqual([late.id]);
    const cursor2 = /--since-cursor (c[12]\.\S+)/.exec(second.stderr)![1]!;
    const third = await svcInProcess(['events', 'tail', '--since-cursor', cursor2, '-o', 'ndjson'], { env });
    expect(ids(third.stdout)).toEqual([]);
  });

  it('a --name no event of the spec has is warned of, with the nearest one, and sent as written (a typo matched nothing, a trial)', async () => {
    const r = await svcInProcess(['events', 'tail', '--since', '1h', '--name', 'prospect_udpated,prospects.updated', '-o', 'ndjson'], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'warning: --name prospect_udpated: no event the spec lists is named so (did you mean "prospect_updated"?); sent as written\n',
    );
    expect(r.stderr).toContain(
      'warning: --name prospects_updated: no event the spec lists is named so (did you mean "prospect_updated"?); sent as written\n',
    );
    const known = await svcInProcess(['events', 'tail', '--since', '1h', '--name', 'prospect_updated', '-o', 'ndjson'], { env });
    expect(known.stderr).not.toContain('warning');
  });

  it('shows one line per event for people, and the last few by default', async () => {
    const r = await svcInProcess(['events', 'tail', '--last', '3', '-o', 'table'], { env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(l).toMatch(/^\d{2}:\d{2}:\d{2} {2}account_created +account \d+ {2}user \d+ {2}#\d+$/);
  });

  it('-o json while following is one valid array, closed on Ctrl-C', async () => {
    const since = isoSecond(Date.now());
    const tail = watch(['events', 'tail', '--follow', '--since', since, '--every', '50%', '-o', 'json'], env);
    await tail.until((o) => o.stderr.includes('following events'));
    for (let i = 0; i < 3; i++) await c.post('/accounts', { data: { type: 'account', attributes: { name: `json ${i}` } } });
    const want = (await indexEvents(c, since)).map((e) => e.id);
    await tail.until((o) => {
      const printed = openArrayIds(o.stdout);
      return want.every((id) => printed.includes(id));
    });
    tail.child.kill('SIGINT');
    expect((await tail.exited).code, tail.out.stderr).toBe(0);
    expect((JSON.parse(tail.out.stdout) as { id: number }[]).map((e) => String(e.id))).toEqual(want);
  });

  it('refuses bad input with exit 2 and one line', async () => {
    const cases: [string[], RegExp][] = [
      [['--since', '2099-01-01T00:00:00Z'], /--since 2099-01-01T00:00:00Z: that is in the future/],
      [['--since', 'last week'], /--since last week: expected a span back from now/],
      [['--since-cursor', 'nonsense'], /--since-cursor: "nonsense" is not a cursor/],
      [['--since', '1h', '--since-cursor', 'c1.x'], /give one/],
      // A position far past the clock (another API's, edited): it showed nothing, for ever.
      [
        ['--since-cursor', encodeCursor({ t: Date.parse('2099-01-01T00:00:00Z'), id: '5', seen: [] })],
        /--since-cursor: its position \(2099-01-01T00:00:00Z\) is in the future/,
      ],
      [['--every', '0%'], /--every 0%: expected a share/],
      [['--name', 'nosuch_*'], /--name nosuch_\*: matches no event name/],
    ];
    for (const [args, message] of cases) {
      const r = await svcInProcess(['events', 'tail', ...args], { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')[0]).toMatch(/^error: /);
      expect(r.stdout).toBe('');
    }
  });
});
