/**
 * `svc <resource> list|get` against a real sandbox: every filter form as the server received it,
 * sort/include/fields, limits across pages, output formats, and usage errors that send nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../helpers/csv.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { json } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: () => Record<string, string>;

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 180 }));
});
afterAll(() => sb.close());

async function queries(args: string[]): Promise<string[]> {
  const mark = sb.requests.length;
  const r = await svcInProcess(args, { env: { ...env(), TZ: 'UTC' } });
  expect(r.code, r.stderr).toBe(0);
  return received(sb, mark, 'prospects').map((q) => decodeURIComponent(q.query.raw));
}

describe('filters as the server received them', () => {
  it.each([
    [['title=CEO'], 'filter[title]=CEO'],
    [['title=CEO,CTO'], 'filter[title]=CEO,CTO'],
    // Days in the machine's zone (TZ=UTC here: the suite's is America/Los_Angeles).
    [['updatedAt=2024-01-01..2030-02-01'], 'filter[updatedAt]=2024-01-01T00:00:00Z..2030-02-01T23:59:59Z'],
    [['updatedAt=2024-01-01..'], 'filter[updatedAt]=2024-01-01T00:00:00Z..inf'],
    [['updatedAt=..2030-01-01'], 'filter[updatedAt]=neginf..2030-01-01T23:59:59Z'],
    [['updatedAt=2024-01-01T10:00:00..'], 'filter[updatedAt]=2024-01-01T10:00:00..inf'],
    [['account.id=5'], 'filter[account][id]=5'],
    [['title=CEO', 'firstName=Ada'], 'filter[title]=CEO&filter[firstName]=Ada'],
  ])('%j', async (filters, sent) => {
    const args = ['prospects', 'list', '-o', 'json', ...filters.flatMap((f) => ['--filter', f])];
    const [q] = await queries(args);
    expect(q).toContain(sent);
  });

  it('new syntax: lists, ranges and escaped commas', async () => {
    const [q] = await queries([
      'prospects',
      'list',
      '-o',
      'json',
      '--new-filter-syntax',
      '--filter',
      'title=CEO,VP\\, Sales',
      '--filter',
      'updatedAt=2024-01-01..',
    ]);
    expect(q).toContain('newFilterSyntax=true');
    expect(q).toContain('filter[title][]=CEO&filter[title][]=VP, Sales');
    expect(q).toContain('filter[updatedAt][gte]=2024-01-01T00:00:00Z');
  });

  it('filtered results really match', async () => {
    const r = await svcInProcess(['prospects', 'list', '--filter', 'title=CEO', '-o', 'json', '--all'], { env: env() });
    const rows = json<{ title: string }[]>(r);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((p) => p.title === 'CEO')).toBe(true);
  });

  it('relationship-attribute filter is sent with a deprecation warning', async () => {
    const mark = sb.requests.length;
    const r = await svcInProcess(['prospects', 'list', '--filter', 'account.name=Nobody', '-o', 'json'], { env: env() });
    expect(r.stderr).toMatch(/warning: filtering by a relationship attribute \(account\.name\) is deprecated/);
    expect(decodeURIComponent(received(sb, mark, 'prospects')[0]!.query.raw)).toContain('filter[account][name]=Nobody');
  });
});

describe('sort, include, fields', () => {
  it('sends multi-key sort and returns records in that order', async () => {
    const mark = sb.requests.length;
    const r = await svcInProcess(['prospects', 'list', '--sort', '-lastName,firstName', '--limit', '30', '-o', 'json'], { env: env() });
    expect(decodeURIComponent(received(sb, mark, 'prospects')[0]!.query.raw)).toContain('sort=-lastName,firstName');
    const names = json<{ lastName: string }[]>(r).map((p) => p.lastName);
    expect(names).toEqual([...names].sort((a, b) => b.localeCompare(a)));
  });

  it('sorting by a relationship attribute warns', async () => {
    const r = await svcInProcess(['prospects', 'list', '--sort', 'account.name', '--limit', '1', '-o', 'json'], { env: env() });
    expect(r.stderr).toMatch(/deprecated/);
  });

  it('include replaces ids by records; fields trims attributes', async () => {
    const r = await svcInProcess(
      [
        'prospects',
        'list',
        '--include',
        'account',
        // The relationship is one of the fields: a sparse fieldset without it drops it, and there
        // would be no account to check (the test passed with include never resolved).
        '--fields',
        'firstName,title,account',
        '--fields',
        'account=name',
        '--limit',
        '5',
        '-o',
        'json',
        '--filter',
        'title=CEO',
      ],
      { env: env() },
    );
    const rows = json<Record<string, unknown>[]>(r);
    expect(rows.length).toBeGreaterThan(0);
    for (const p of rows) {
      expect(Object.keys(p).filter((k) => !['id', 'type', 'account', 'firstName', 'title'].includes(k))).toEqual([]);
      // Every CEO of seed 180 has an account: each is the included record, trimmed to its name.
      expect(p.account).toEqual({ id: expect.any(Number), type: 'account', name: expect.any(String) });
    }
  });

  it('get with include prints one object', async () => {
    const r = await svcInProcess(['prospects', 'get', '1', '--include', 'account', '-o', 'json'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const p = json<{ id: number; type: string }>(r);
    expect(p).toMatchObject({ id: 1, type: 'prospect' });
  });

  it('--fields without the relationship --include follows keeps it: the included records are printed', async () => {
    // A trial: `sequence-states get 2 --include sequence,prospect --fields state --fields
    // sequence=name --fields prospect=firstName` printed only the state, the records thrown away.
    const mark = sb.requests.length;
    const r = await svcInProcess(
      [
        'sequence-states',
        'get',
        '2',
        '--include',
        'sequence,prospect',
        '--fields',
        'state',
        '--fields',
        'sequence=name',
        '--fields',
        'prospect=firstName',
        '-o',
        'json',
      ],
      { env: env() },
    );
    expect(r.code, r.stderr).toBe(0);
    const sent = decodeURIComponent(received(sb, mark, 'sequenceStates/2')[0]!.query.raw);
    expect(sent).toContain('fields[sequenceState]=state,sequence,prospect');
    const s = json<Record<string, unknown>>(r);
    expect(s).toMatchObject({ id: 2, state: expect.any(String) });
    expect(s.sequence).toEqual({ id: expect.any(Number), type: 'sequence', name: expect.any(String) });
    expect(s.prospect).toEqual({ id: expect.any(Number), type: 'prospect', firstName: expect.any(String) });
  });

  it('a column two relationships deep includes the path and prints the value', async () => {
    // A trial: `tasks list --columns id,subject,prospect.account.name` included only `prospect`
    // and printed empty cells (`--json` printed null).
    const tasks = json<{ id: number; prospect: { account: { name: string } | null } | null }[]>(
      await svcInProcess(['tasks', 'list', '--limit', '5', '--include', 'prospect.account', '-o', 'json'], { env: env() }),
    );
    const named = tasks.filter((t) => t.prospect?.account?.name);
    expect(named.length).toBeGreaterThan(0);
    const csv = await svcInProcess(['tasks', 'list', '--limit', '5', '--columns', 'id,prospect.account.name', '-o', 'csv'], { env: env() });
    expect(csv.code, csv.stderr).toBe(0);
    const rows = parseCsv(csv.stdout);
    expect(rows[0]).toEqual(['id', 'prospect.account.name']);
    for (const t of named) expect(rows).toContainEqual([String(t.id), t.prospect!.account!.name]);
    const asJson = json<Record<string, unknown>[]>(
      await svcInProcess(['tasks', 'list', '--limit', '5', '--json', 'id,prospect.account.name'], { env: env() }),
    );
    for (const t of named) expect(asJson).toContainEqual({ id: t.id, 'prospect.account.name': t.prospect!.account!.name });
  });

  it('svc api nests along the include path as list does; a path back to the primary records finds them', async () => {
    // A review: `svc api` printed the account as an id where list nested it, and a nested list
    // held a primary record as a bare id among records (`"prospects":[1,{…}]`).
    const listed = await svcInProcess(['tasks', 'list', '--limit', '3', '--include', 'prospect.account', '-o', 'ndjson'], { env: env() });
    const viaApi = await svcInProcess(['api', 'GET', '/tasks?page[limit]=3&include=prospect.account', '-o', 'ndjson'], { env: env() });
    expect(viaApi.code, viaApi.stderr).toBe(0);
    expect(viaApi.stdout).toBe(listed.stdout);
    const rows = json<{ id: number; account: { prospects: unknown[] } | null }[]>(
      await svcInProcess(
        [
          'prospects',
          'list',
          '--limit',
          '20',
          '--include',
          'account.prospects',
          '--fields',
          'firstName,account',
          '--fields',
          'account=name,prospects',
          '-o',
          'json',
        ],
        { env: env() },
      ),
    );
    const lists = rows.flatMap((p) => (p.account ? [p.account.prospects] : []));
    expect(lists.some((l) => l.length > 1)).toBe(true);
    for (const l of lists) for (const p of l) expect(p).toMatchObject({ type: 'prospect', id: expect.any(Number) });
  });

  it('a mistyped include is named as the include, with --fields too', async () => {
    const r = await svcInProcess(['prospects', 'list', '--include', 'acount', '--fields', 'firstName', '-o', 'json'], { env: env() });
    // As without --fields: the service refuses the include, and svc names the near miss.
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--include acount: did you mean "account"\?/);
    expect(r.stderr).not.toMatch(/--fields/);
  });

  it('contactHistogram is only asked for through --fields', async () => {
    const plain = json<Record<string, unknown>>(await svcInProcess(['prospects', 'get', '1', '-o', 'json'], { env: env() }));
    expect('contactHistogram' in plain).toBe(false);
    const asked = json<Record<string, unknown>>(
      await svcInProcess(['prospects', 'get', '1', '--fields', 'contactHistogram,firstName', '-o', 'json'], { env: env() }),
    );
    expect(Array.isArray(asked.contactHistogram)).toBe(true);
  });
});

describe('limits and pages', () => {
  it('--limit across page boundaries asks for exactly what is needed', async () => {
    const qs = await queries(['prospects', 'list', '--limit', '120', '--page-size', '50', '-o', 'ndjson']);
    expect(qs).toHaveLength(3);
    expect(qs[0]).toContain('page[limit]=50');
    expect(qs[2]).toContain('page[limit]=20');
    expect(qs[2]).toContain('page[offset]=100');
  });

  it('default is one page of 50; --limit chooses the page size', async () => {
    expect(await queries(['prospects', 'list', '-o', 'json'])).toEqual([expect.stringContaining('page[limit]=50')]);
    expect(await queries(['prospects', 'list', '--limit', '7', '-o', 'json'])).toEqual([expect.stringContaining('page[limit]=7')]);
  });

  it('--all returns every record with pages of up to 1,000', async () => {
    const mark = sb.requests.length;
    const r = await svcInProcess(['prospects', 'list', '--all', '-o', 'ndjson'], { env: env() });
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(180);
    expect(new Set(lines.map((l) => JSON.parse(l).id)).size).toBe(180);
    expect(received(sb, mark, 'prospects')).toHaveLength(1);
  });

  it('--count reports meta.count', async () => {
    const r = await svcInProcess(['prospects', 'list', '--count', '--limit', '1', '-o', 'json'], { env: env() });
    expect(r.stderr).toMatch(/count: 180/);
    const only = await svcInProcess(['prospects', 'list', '--count', '--limit', '0', '-o', 'json'], { env: env() });
    expect(json(only)).toEqual({ count: 180, count_truncated: false });
    // -o csv is a CSV of one row (it printed the JSON, a trial).
    const csv = await svcInProcess(['prospects', 'list', '--count', '--limit', '0', '-o', 'csv'], { env: env() });
    expect(csv.stdout).toBe('count,count_truncated\n180,false\n');
  });
});

describe('output formats', () => {
  it('json is an array of flat records', async () => {
    const rows = json<Record<string, unknown>[]>(await svcInProcess(['prospects', 'list', '--limit', '3', '-o', 'json'], { env: env() }));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ id: expect.any(Number), type: 'prospect' });
    expect(typeof rows[0]!.account === 'number' || rows[0]!.account === null).toBe(true);
  });

  it('ndjson is one record per line', async () => {
    const r = await svcInProcess(['prospects', 'list', '--limit', '3', '-o', 'ndjson'], { env: env() });
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).type),
    ).toEqual(['prospect', 'prospect', 'prospect']);
  });

  it('csv has a header and joins lists with ;', async () => {
    const r = await svcInProcess(['prospects', 'list', '--limit', '3', '-o', 'csv', '--columns', 'id,firstName,emails'], { env: env() });
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('id,firstName,emails');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^\d+,[^,]*,/);
  });

  it('raw is the server document', async () => {
    const r = await svcInProcess(['prospects', 'list', '--limit', '2', '-o', 'raw'], { env: env() });
    const doc = JSON.parse(r.stdout.trim());
    expect(doc.data[0]).toMatchObject({ type: 'prospect', attributes: expect.any(Object) });
    expect(doc.links).toBeDefined();
  });

  it('table shows the default columns, no colour when not a TTY', async () => {
    const r = await svcInProcess(['prospects', 'list', '--limit', '3', '-o', 'table'], { env: env() });
    expect(r.stdout.split('\n')[1]).toMatch(/id.*firstName.*lastName.*title/);
    expect(r.stdout).not.toMatch(/\x1b\[/);
    const g = await svcInProcess(['prospects', 'get', '1', '-o', 'table'], { env: env() });
    expect(g.stdout).toMatch(/^id\s+1$/m);
  });

  // `list` reads each page into memory used again two pages later (page-buffers.ts); a writer
  // that read a record after its page was done would fail the command with an internal error.
  it('every format and shape lists all records over pages whose memory is reused', async () => {
    const all = ['prospects', 'list', '--all', '--page-size', '60', '--include', 'account'];
    const lines = (await svcInProcess([...all, '-o', 'ndjson'], { env: env() })).stdout.trim().split('\n');
    const ids = lines.map((l) => (JSON.parse(l) as { id: number }).id);
    expect(ids).toHaveLength(180);
    expect(new Set(ids).size).toBe(180);
    const runs: [string[], (stdout: string) => void][] = [
      [['-o', 'json'], (o) => expect((JSON.parse(o) as { id: number }[]).map((r) => r.id)).toEqual(ids)],
      [['-o', 'csv'], (o) => expect(parseCsv(o).map((row) => Number(row[0]))).toEqual([Number.NaN, ...ids])],
      [['-o', 'table', '--columns', 'id,firstName'], (o) => expect(o).toMatch(new RegExp(`\\b${ids.at(-1)}\\b`))],
      [['-o', 'json', '--query', 'length(@)'], (o) => expect(o.trim()).toBe('180')],
      [['-o', 'ndjson', '--fields', 'firstName'], (o) => expect(o.trim().split('\n')).toHaveLength(180)],
    ];
    for (const [args, check] of runs) {
      const r = await svcInProcess([...all, ...args], { env: env() });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toBe('');
      check(r.stdout);
    }
  });

  it('default output is json when stdout is not a TTY', async () => {
    const r = await svcInProcess(['prospects', 'list', '--limit', '1'], { env: env() });
    expect(Array.isArray(json(r))).toBe(true);
  });
});

describe('server errors → exit codes', () => {
  it('404 → exit 1 with the error id', async () => {
    const r = await svcInProcess(['prospects', 'get', '999999'], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/resourceNotFound/);
  });

  it('401 with a bad token → exit 3', async () => {
    const r = await svcInProcess(['prospects', 'list'], { env: { ...env(), SVC_TOKEN: 'nope' } });
    expect(r.code).toBe(3);
  });

  it('403 for a token without the read scope → exit 4 naming the scope', async () => {
    const token = sb.issueToken({ scopes: ['prospects.write'] });
    const r = await svcInProcess(['prospects', 'list'], { env: { ...env(), SVC_TOKEN: token } });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/unauthorizedOauthScope/);
    expect(r.stderr).toMatch(/prospects\.read/);
    expect(r.stderr).not.toContain(token);
  });

  it('offset past 10,000 never sent: 422 only from a raw request', async () => {
    const r = await svcInProcess(['api', 'GET', '/prospects?page[offset]=10001'], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/page\[offset\]/);
  });
});

describe('date-times in a table', () => {
  it('are marked Z (the API writes UTC without a zone); json and csv keep the API text', async () => {
    // A person in Tokyo read a table's 2026-06-17T07:01:45 as local time (filters and reports
    // count days in the local zone): the table alone says which zone a time is in.
    const args = ['prospects', 'list', '--limit', '3', '--columns', 'id,createdAt'];
    const asJson = JSON.parse((await svcInProcess([...args, '-o', 'json'], { env: env() })).stdout) as { createdAt: string }[];
    expect(asJson[0]!.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const table = (await svcInProcess([...args, '-o', 'table'], { env: env() })).stdout;
    for (const r of asJson) expect(table).toContain(` ${r.createdAt}Z `);
    const csv = (await svcInProcess([...args, '-o', 'csv'], { env: env() })).stdout;
    expect(csv).toContain(`,${asJson[0]!.createdAt}\n`);
    const one = await svcInProcess(['prospects', 'get', '1', '-o', 'table'], { env: env() });
    expect(one.stdout).toMatch(/^createdAt +\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/m);
  });
});
