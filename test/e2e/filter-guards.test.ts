/**
 * Filters, `--fields` and `--columns` that would silently return the wrong answer are refused
 * (exit 2, nothing sent) or fixed and said before anything is sent — in-process (svcInProcess)
 * against the sandbox, checking what the server received and what came back. The other refusals
 * (impossible dates, ranges, near misses in --fields and --columns) send nothing and are checked
 * in-process in test/unit/commands/resource-commands/list-usage.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { json } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: () => Record<string, string>;

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 60 }));
});
afterAll(() => sb.close());

/** Runs svc; returns the result and the decoded queries of the /prospects GETs it caused. */
async function run(args: string[], envVars: Record<string, string> = env()) {
  const mark = sb.requests.length;
  const r = await svcInProcess(args, { env: envVars });
  const sent = received(sb, mark, 'prospects').map((q) => decodeURIComponent(q.query.raw));
  return { ...r, sent };
}

function refusedUnsent(r: { code: number | null; stderr: string; sent: string[] }, message: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.sent).toEqual([]);
}

describe('filters refused before anything is sent', () => {
  it('two filters on one field: exit 2, suggesting the list', async () => {
    const r = await run(['prospects', 'list', '--filter', 'title=CEO', '--filter', 'title=CFO', '-o', 'json']);
    refusedUnsent(r, /^error: two filters on title \("title=CEO", "title=CFO"\).*\nhint: .*--filter 'title=CEO,CFO'/m);
  });
});

describe('filters fixed and said', () => {
  it('"title=CEO, CTO": the space is trimmed with a warning, and CTOs come back', async () => {
    const r = await run(['prospects', 'list', '--filter', 'title=CEO, CTO', '--all', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^warning: filter "title=CEO, CTO": spaces around a value are not part of it; filtering on title=CEO,CTO/m);
    expect(r.sent[0]).toContain('filter[title]=CEO,CTO&');
    const titles = new Set(json<{ title: string }[]>(r).map((p) => p.title));
    expect(titles).toEqual(new Set(['CEO', 'CTO']));
  });

  it('an escaped space stays part of the value, without a warning', async () => {
    const r = await run(['prospects', 'list', '--filter', 'title=CEO,\\ CTO', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/warning/);
    expect(r.sent[0]).toContain('filter[title]=CEO, CTO&');
  });

  it("createdAt=<a date> finds the record created that day in the machine's zone (sent as the instants of the local day)", async () => {
    const created = await svcInProcess(['prospects', 'create', '--attr', 'firstName=Dayfilter', '-o', 'json'], { env: env() });
    expect(created.code, created.stderr).toBe(0);
    const { id, createdAt } = json<{ id: number; createdAt: string }>(created);
    // The date in Kiritimati (UTC+14), which is the UTC date only before 10:00 UTC.
    const [from, to] = dayAround(Date.parse(`${createdAt}Z`), 14);
    const day = new Date(Date.parse(from) + 14 * HOUR).toISOString().slice(0, 10);
    const r = await run(['prospects', 'list', '--filter', `createdAt=${day}`, '--all', '-o', 'json'], {
      ...env(),
      TZ: 'Pacific/Kiritimati',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent[0]).toContain(`filter[createdAt]=${from}..${to}&`);
    expect(json<{ id: number }[]>(r).map((p) => p.id)).toContain(id);
  });

  it('a range of days is sent as the instants its local days begin and end at, in either filter syntax', async () => {
    const tokyo = { ...env(), TZ: 'Asia/Tokyo' };
    const orig = await run(['prospects', 'list', '--filter', 'updatedAt=2024-01-01..2024-02-01', '-o', 'json'], tokyo);
    expect(orig.sent[0]).toContain('filter[updatedAt]=2023-12-31T15:00:00Z..2024-02-01T14:59:59Z&');
    const nfs = await run(['prospects', 'list', '--new-filter-syntax', '--filter', 'updatedAt=..2024-02-01', '-o', 'json'], tokyo);
    expect(nfs.sent[0]).toContain('filter[updatedAt][lte]=2024-02-01T14:59:59Z');
    expect(nfs.sent[0]).not.toContain('[gte]');
  });

  it('a date-time with a time is sent as given', async () => {
    const r = await run(['prospects', 'list', '--filter', 'updatedAt=2024-01-01T10:00:00..', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent[0]).toContain('filter[updatedAt]=2024-01-01T10:00:00..inf');
  });

  it('a filter name neither the registry nor the org schema knows: refused, no list asked for', async () => {
    // It went to the server, whose 400 was exit 1 (a new-user trial); the org schema is pulled
    // once for it (the name could be a custom-field label), then the list is not asked for.
    const r = await run(['prospects', 'list', '--filter', 'noSuchField=1', '-o', 'json']);
    refusedUnsent(
      r,
      /^"noSuchField" not known: pulling the org schema \(custom-field labels\) once\nerror: --filter: prospect has no field "noSuchField"\n/,
    );
  });
});

const HOUR = 3_600_000;

/**
 * The first and the last second, as the UTC instants svc sends, of the day `at` falls on in a zone
 * `hours` from UTC that keeps no daylight saving (Kiritimati +14, Pago Pago -11).
 */
function dayAround(at: number, hours: number): [string, string] {
  const start = Math.floor((at + hours * HOUR) / (24 * HOUR)) * 24 * HOUR - hours * HOUR;
  const iso = (t: number) => `${new Date(t).toISOString().slice(0, 19)}Z`;
  return [iso(start), iso(start + 24 * HOUR - 1000)];
}

describe("a day on a date-time field is the machine's (TZ), sent as the UTC instants it begins and ends at", () => {
  // A trial: at 13:28 UTC `updatedAt=today` found the record updated a second before with TZ=UTC,
  // and nothing in Sydney or Kiritimati, which sent their date (1 December) as a bare date: the API
  // read it as a UTC day not yet begun. Kiritimati (UTC+14) and Pago Pago (UTC-11) are 25 hours
  // apart, so at any moment the date of at least one of them is not the UTC date.
  let id: number;
  beforeAll(async () => {
    const created = await svcInProcess(['prospects', 'create', '--attr', 'firstName=Todayfilter', '-o', 'json'], { env: env() });
    expect(created.code, created.stderr).toBe(0);
    id = json<{ id: number }>(created).id;
  });

  it.each([
    ['Pacific/Kiritimati', 14],
    ['Pacific/Pago_Pago', -11],
  ])('updatedAt=today with TZ=%s finds the record updated just now', async (TZ, hours) => {
    const updated = await svcInProcess(['prospects', 'update', String(id), '--attr', `lastName=${TZ}`, '-o', 'json'], { env: env() });
    expect(updated.code, updated.stderr).toBe(0);
    const { updatedAt } = json<{ updatedAt: string }>(updated);
    const before = Date.now();
    const r = await run(['prospects', 'list', '--filter', 'updatedAt=today', '--all', '-o', 'json'], { ...env(), TZ });
    const after = Date.now();
    expect(r.code, r.stderr).toBe(0);
    // Today in that zone (the day of the run's start or, across its midnight, of its end).
    const sent = /filter\[updatedAt\]=([^&]*)/.exec(r.sent[0]!)?.[1];
    expect([dayAround(before, hours).join('..'), dayAround(after, hours).join('..')]).toContain(sent);
    const rows = json<{ id: number; updatedAt: string }[]>(r);
    expect(rows.find((p) => p.id === id)?.updatedAt).toBe(updatedAt);
    // Every record returned was updated within the local day (the API's times are UTC, without a Z).
    const [from, to] = sent!.split('..').map((t) => Date.parse(t));
    expect(rows.filter((p) => !(Date.parse(`${p.updatedAt}Z`) >= from! && Date.parse(`${p.updatedAt}Z`) <= to!))).toEqual([]);
  });

  it('a TZ that is no zone svc knows counts UTC days and says how to pick one, only when a filter names a day', async () => {
    const posix = { ...env(), TZ: 'JST-9' };
    const day = await run(['prospects', 'list', '--filter', 'createdAt=2026-11-07', '-o', 'json'], posix);
    expect(day.code, day.stderr).toBe(0);
    expect(day.stderr).toMatch(/^warning: TZ=JST-9 is not a time zone svc knows: days are counted in UTC \(TZ=Asia\/Tokyo or another/m);
    expect(day.sent[0]).toContain('filter[createdAt]=2026-11-07T00:00:00Z..2026-11-07T23:59:59Z&');
    const none = await run(['prospects', 'list', '--filter', 'updatedAt=2026-11-07T10:00:00..', '-o', 'json'], posix);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stderr).toBe('');
  });
});

describe('--fields and --columns', () => {
  it('--columns account.name adds the include it reads (and the sparse fields it needs)', async () => {
    const r = await run(['prospects', 'list', '--columns', 'id,account.name', '--fields', 'firstName', '--limit', '3', '-o', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent[0]).toContain('include=account');
    expect(r.sent[0]).toContain('fields[prospect]=firstName,account');
    const rows = r.stdout.trim().split('\n').slice(1);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).toMatch(/^\d+,\S.*$/);
  });

  it('with -o json the records are narrowed to the columns (as --json a,b does), names still checked', async () => {
    const r = await run(['prospects', 'list', '--columns', 'id,account.name', '--limit', '1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent[0]).toContain('include=account');
    const rec = json<Record<string, unknown>[]>(r)[0]!;
    expect(Object.keys(rec)).toEqual(['id', 'account.name']);
    expect(typeof rec['account.name']).toBe('string');
    const bad = await run(['prospects', 'list', '--columns', 'id,fistName', '-o', 'json']);
    refusedUnsent(bad, /has no field "fistName"/);
  });
});
