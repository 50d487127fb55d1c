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

  it("createdAt=<today> finds the record created today (sent as the day's range)", async () => {
    const created = await svcInProcess(['prospects', 'create', '--attr', 'firstName=Dayfilter', '-o', 'json'], { env: env() });
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
