/**
 * Filters, `--fields` and `--columns` that would silently return the wrong answer are refused
 * (exit 2, nothing sent) or fixed and said before anything is sent — through the built binary
 * against the sandbox, checking what the server received and what came back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, runSvc } from '../helpers/run-svc.js';
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
  const r = await runSvc(args, { env: envVars });
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
  it.each([
    ['updatedAt=2024-13-45'],
    ['createdAt=2024-02-30..2024-03-01'],
    ['updatedAt=..2024-01-01T25:00:00'],
    ['createdAt=yesterdayish'],
  ])('%s: an impossible date is exit 2', async (expr) => {
    const r = await run(['prospects', 'list', '--filter', expr, '-o', 'json']);
    refusedUnsent(r, /^error: filter ".*": ".*" is not a valid date-time on (updatedAt|createdAt)\nhint: write YYYY-MM-DD/m);
  });

  it('two filters on one field: exit 2, suggesting the list', async () => {
    const r = await run(['prospects', 'list', '--filter', 'title=CEO', '--filter', 'title=CFO', '-o', 'json']);
    refusedUnsent(r, /^error: two filters on title \("title=CEO", "title=CFO"\).*\nhint: .*--filter 'title=CEO,CFO'/m);
  });

  it('two half-open ranges on one field: exit 2, suggesting the range', async () => {
    const r = await run(['prospects', 'list', '--filter', 'updatedAt=2024-01-01..', '--filter', 'updatedAt=..2024-02-01', '-o', 'json']);
    refusedUnsent(r, /^error: two filters on updatedAt.*\nhint: .*--filter 'updatedAt=2024-01-01\.\.2024-02-01'/m);
  });

  it('a list of bare dates on a date-time field is exit 2 (each means a whole day)', async () => {
    const r = await run(['prospects', 'list', '--filter', 'createdAt=2026-01-01,2026-01-02', '-o', 'json']);
    refusedUnsent(r, /a date on createdAt means a whole day/);
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

  it("createdAt=<today> finds the record created today (sent as the day's range)", async () => {
    const created = await runSvc(['prospects', 'create', '--attr', 'firstName=Dayfilter', '-o', 'json'], { env: env() });
    expect(created.code, created.stderr).toBe(0);
    const { id, createdAt } = json<{ id: number; createdAt: string }>(created);
    const day = createdAt.slice(0, 10);
    const r = await run(['prospects', 'list', '--filter', `createdAt=${day}`, '--all', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent[0]).toContain(`filter[createdAt]=${day}..${day}`);
    expect(json<{ id: number }[]>(r).map((p) => p.id)).toContain(id);
  });

  it('a range of bare dates is sent as written, in either filter syntax', async () => {
    const orig = await run(['prospects', 'list', '--filter', 'updatedAt=2024-01-01..2024-02-01', '-o', 'json']);
    expect(orig.sent[0]).toContain('filter[updatedAt]=2024-01-01..2024-02-01');
    const nfs = await run(['prospects', 'list', '--new-filter-syntax', '--filter', 'updatedAt=..2024-02-01', '-o', 'json']);
    expect(nfs.sent[0]).toContain('filter[updatedAt][lte]=2024-02-01');
    expect(nfs.sent[0]).not.toContain('[gte]');
  });

  it('a date-time with a time is sent as given', async () => {
    const r = await run(['prospects', 'list', '--filter', 'updatedAt=2024-01-01T10:00:00..', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent[0]).toContain('filter[updatedAt]=2024-01-01T10:00:00..inf');
  });

  it('unknown filter names still pass through to the server', async () => {
    const r = await run(['prospects', 'list', '--filter', 'noSuchField=1', '-o', 'json']);
    expect(r.sent[0]).toContain('filter[noSuchField]=1');
  });
});

describe('--fields and --columns', () => {
  it('--fields with a near miss: exit 2 naming the field, nothing sent', async () => {
    const r = await run(['prospects', 'list', '--fields', 'firstName,fistName', '-o', 'json']);
    refusedUnsent(r, /^error: --fields: prospect has no field "fistName"\nhint: did you mean firstName\?/m);
  });

  it('--fields on a type the spec shows whole: any unknown name is exit 2', async () => {
    const mark = sb.requests.length;
    const r = await runSvc(['mailboxes', 'list', '--fields', 'email,colour', '-o', 'json'], { env: env() });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^error: --fields: mailbox has no field "colour"/m);
    expect(received(sb, mark, 'mailboxes')).toEqual([]);
  });

  it('--columns with a near miss: exit 2', async () => {
    const r = await run(['prospects', 'list', '--columns', 'id,lastname', '-o', 'csv']);
    refusedUnsent(r, /^error: --columns: prospect has no field "lastname"\nhint: did you mean lastName\?/m);
  });

  it('--columns account.nmae: exit 2 naming the included type', async () => {
    const r = await run(['prospects', 'list', '--columns', 'id,account.nmae', '-o', 'csv']);
    refusedUnsent(r, /^error: --columns account\.nmae: account has no field "nmae"\nhint: did you mean name\?/m);
  });

  it('--columns account.name adds the include it reads (and the sparse fields it needs)', async () => {
    const r = await run(['prospects', 'list', '--columns', 'id,account.name', '--fields', 'firstName', '--limit', '3', '-o', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent[0]).toContain('include=account');
    expect(r.sent[0]).toContain('fields[prospect]=firstName,account');
    const rows = r.stdout.trim().split('\n').slice(1);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).toMatch(/^\d+,\S.*$/);
  });

  it('with -o json the records keep their shape: no include is added, names are still checked', async () => {
    const r = await run(['prospects', 'list', '--columns', 'id,account.name', '--limit', '1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent[0]).not.toContain('include=');
    expect(typeof json<{ account: unknown }[]>(r)[0]!.account).toBe('number');
    const bad = await run(['prospects', 'list', '--columns', 'id,fistName', '-o', 'json']);
    refusedUnsent(bad, /has no field "fistName"/);
  });
});
