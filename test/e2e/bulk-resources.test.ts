/**
 * `svc <resource> create|update|delete --input` against the sandbox: CSV, NDJSON and JSON
 * inputs, the round trip of list output, invalid rows (reported and skipped, or --strict),
 * report and journal, reruns, --shard, and a usage error that sends nothing.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { runSvc } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { inputFile, ndjson } from '../helpers/bulk.js';

let sb: TestSandbox;
let env: () => Record<string, string>;

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 30 }));
});
afterAll(() => sb.close());

const svc = (args: string[], input?: string) => svcInProcess(args, { env: env(), input });
type Line = { row: number; status: string; id: number | null; error: string | null; field?: string; reason?: string };

/** Prospects in the store whose first address ends with a marker. */
function prospectsMarked(marker: string) {
  return [...sb.store.table('prospect').values()].filter((p) =>
    String((p.attributes['emails'] as string[] | undefined)?.[0] ?? '').endsWith(marker),
  );
}

describe('create --input', () => {
  it('CSV: typed cells, ;-lists, account.id column, quoted commas; report with ids; exit 0', async () => {
    const file = inputFile(
      'new.csv',
      'firstName,lastName,emails,title,score,optedOut,account.id\n' +
        'Ada,Lovelace,ada@csv.test;ada2@csv.test,"CEO, Founder",4.5,false,1\n' +
        'Grace,Hopper,grace@csv.test,CTO,,true,2\n',
    );
    const report = `${file}.report.ndjson`;
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'create', '--input', file, '--report', report]);
    expect(r.code, r.stderr).toBe(0);
    const made = prospectsMarked('@csv.test').sort((a, b) => a.id - b.id);
    expect(made).toHaveLength(2);
    expect(made[0]!.attributes).toMatchObject({
      firstName: 'Ada',
      emails: ['ada@csv.test', 'ada2@csv.test'],
      title: 'CEO, Founder',
      score: 4.5,
      optedOut: false,
    });
    expect(made[0]!.rels['account']).toEqual({ type: 'account', id: 1 });
    expect(made[1]!.attributes).toMatchObject({ firstName: 'Grace', optedOut: true });
    expect(made[1]!.attributes['score']).toBeUndefined();
    const posts = received(sb, mark, 'prospects').filter((q) => q.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[0]!.headers['content-type']).toBe('application/vnd.api+json');
    const lines = ndjson<Line>(report).sort((a, b) => a.row - b.row);
    expect(lines.map((l) => [l.row, l.status, l.error])).toEqual([
      [1, 'created', null],
      [2, 'created', null],
    ]);
    expect(lines.map((l) => l.id).sort()).toEqual(made.map((m) => m.id).sort());
    expect(r.stderr).toMatch(/prospects create: 2 created \(2 of 2 rows/);
  });

  it('NDJSON and a JSON array: the same records', async () => {
    const recs = [
      { firstName: 'Nd', emails: ['nd1@nd.test'], account: 3 },
      { firstName: 'Nd2', emails: ['nd2@nd.test'], account: { id: 4, type: 'account', name: 'included record' } },
    ];
    const nd = inputFile('a.ndjson', recs.map((x) => JSON.stringify(x)).join('\n') + '\n');
    expect((await svc(['prospects', 'create', '--input', nd])).code).toBe(0);
    const js = inputFile(
      'a.json',
      JSON.stringify(
        recs.map((x) => ({ ...x, emails: x.emails.map((e) => e.replace('nd.test', 'js.test')) })),
        null,
        2,
      ),
    );
    expect((await svc(['prospects', 'create', '--input', js])).code).toBe(0);
    expect(prospectsMarked('@nd.test').map((p) => p.rels['account'])).toEqual([
      { type: 'account', id: 3 },
      { type: 'account', id: 4 },
    ]);
    expect(prospectsMarked('@js.test')).toHaveLength(2);
  });

  it('invalid rows are reported with row, field and reason and skipped (exit 5); --strict sends nothing (exit 2)', async () => {
    const file = inputFile(
      'bad.csv',
      'firstName,emails,score,title\nOk1,ok1@bad.test,1,\nBad,bad@bad.test,high,\nLong,long@bad.test,2,' +
        'x'.repeat(256) +
        '\nOk2,ok2@bad.test,3,\n',
    );
    const mark = sb.requests.length;
    const strict = await svc(['prospects', 'create', '--input', file, '--strict']);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(/row 2: score: expected a number, got "high"/);
    expect(strict.stderr).toMatch(/row 3: title: longer than 255 characters \(256\)/);
    expect(strict.stderr).toMatch(/2 of 4 rows .* are invalid; nothing was sent \(--strict\)/);
    expect(sb.requests.length).toBe(mark);
    expect(fs.existsSync(`${file}.journal.ndjson`)).toBe(false);

    const report = `${file}.r.ndjson`;
    const r = await svc(['prospects', 'create', '--input', file, '--report', report]);
    expect(r.code).toBe(5);
    expect(
      prospectsMarked('@bad.test')
        .map((p) => p.attributes['firstName'])
        .sort(),
    ).toEqual(['Ok1', 'Ok2']);
    const lines = ndjson<Line>(report).sort((a, b) => a.row - b.row);
    expect(lines[1]).toEqual({
      row: 2,
      status: 'failed',
      id: null,
      error: 'invalid: score: expected a number, got "high"',
      field: 'score',
    });
    expect(lines[2]).toMatchObject({ row: 3, status: 'failed', field: 'title' });
    expect(r.stderr).toMatch(/2 created, 2 failed/);
    expect(r.stderr).toMatch(/error: 2 of 4 rows failed/);
  });

  it('a rerun skips what the journal records and creates nothing twice', async () => {
    const file = inputFile(
      'twice.ndjson',
      [1, 2, 3].map((i) => JSON.stringify({ firstName: `T${i}`, emails: [`t${i}@twice.test`] })).join('\n'),
    );
    expect((await svc(['prospects', 'create', '--input', file])).code).toBe(0);
    const journal = ndjson<{ key: string; row: number; status: string; id?: number }>(`${file}.journal.ndjson`);
    expect(
      journal
        .filter((j) => j.status === 'created')
        .map((j) => j.row)
        .sort(),
    ).toEqual([1, 2, 3]);
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'create', '--input', file, '--report', '-']);
    expect(r.code).toBe(0);
    expect(received(sb, mark, 'prospects')).toHaveLength(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    expect(
      lines.every((l) => l.status === 'skipped' && typeof l.id === 'number' && l.reason === 'created by an earlier run (journal)'),
    ).toBe(true);
    expect(prospectsMarked('@twice.test')).toHaveLength(3);
  });

  it('--shard: three machines create every row exactly once', async () => {
    const file = inputFile(
      'shard.ndjson',
      Array.from({ length: 10 }, (_, i) => JSON.stringify({ firstName: `S${i}`, emails: [`s${i}@shard.test`] })).join('\n'),
    );
    for (const s of ['1/3', '2/3', '3/3']) {
      const r = await svc(['prospects', 'create', '--input', file, '--shard', s, '--journal', `${file}.${s[0]}.journal`]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`shard ${s[0]}/3`));
    }
    const names = prospectsMarked('@shard.test').map((p) => p.attributes['firstName']);
    expect(names.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `S${i}`).sort());
  });
});

describe('update and delete --input', () => {
  it('list -o ndjson output, edited, goes back through update (read-only fields dropped)', async () => {
    const list = await svc(['prospects', 'list', '--limit', '3', '-o', 'ndjson']);
    expect(list.code).toBe(0);
    const edited = list.stdout
      .trim()
      .split('\n')
      .map((l) => ({ ...JSON.parse(l), title: 'Bulk Edited' }));
    const file = inputFile('edit.ndjson', edited.map((e) => JSON.stringify(e)).join('\n'));
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'update', '--input', file]);
    expect(r.code, r.stderr).toBe(0);
    for (const e of edited) expect(sb.store.get('prospect', e.id)!.attributes['title']).toBe('Bulk Edited');
    const patches = received(sb, mark, 'prospects').filter((q) => q.method === 'PATCH');
    expect(patches.map((p) => p.path).sort()).toEqual(edited.map((e) => `/api/v2/prospects/${e.id}`).sort());
    const body = JSON.parse(patches[0]!.body);
    expect(typeof body.data.id).toBe('number');
    for (const ro of ['name', 'createdAt', 'updatedAt', 'engagedScore']) expect(body.data.attributes).not.toHaveProperty(ro);
    expect(r.stderr).toMatch(/3 updated/);
  });

  it('delete: a header-less file of ids with --yes; a missing record fails its row; no --yes off a terminal is refused', async () => {
    const ids = prospectsMarked('@twice.test').map((p) => p.id);
    const file = inputFile('ids.csv', [...ids, 999999].join('\n') + '\n');
    const refused = await svc(['prospects', 'delete', '--input', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refusing to delete 4 prospects without --yes/);
    const report = `${file}.r`;
    const r = await svc(['prospects', 'delete', '--input', file, '--yes', '--report', report]);
    expect(r.code).toBe(5);
    expect(prospectsMarked('@twice.test')).toHaveLength(0);
    const lines = ndjson<Line>(report).sort((a, b) => a.row - b.row);
    expect(lines.slice(0, 3).every((l) => l.status === 'deleted')).toBe(true);
    expect(lines[3]).toMatchObject({ row: 4, status: 'failed', id: 999999 });
    expect(lines[3]!.error).toMatch(/HTTP 404/);
  });

  it('--report -: a row refused before sending keeps the id it names (NDJSON and CSV); one with no valid id has null', async () => {
    // A script selecting failed rows by .id got null for rows refused by the checks (a trial).
    const [a, b, c] = [...sb.store.table('prospect').keys()];
    const rows = [
      `{"id":${a},"title":"Kept"}`,
      `{"id":${b},"emails":"not-a-list"}`,
      '{"id":"abc","title":"x"}',
      `{"id":"${c}","score":"high"}`,
    ];
    const file = inputFile('refused.ndjson', rows.join('\n') + '\n');
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'update', '--input', file, '--report', '-']);
    expect(r.code, r.stderr).toBe(5);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    expect(lines.sort((x, y) => x.row - y.row).map((l) => [l.row, l.status, l.id, l.field])).toEqual([
      [1, 'updated', a, undefined],
      [2, 'failed', b, 'emails'],
      [3, 'failed', null, 'id'],
      [4, 'failed', c, 'score'],
    ]);
    expect(
      received(sb, mark, 'prospects')
        .filter((q) => q.method === 'PATCH')
        .map((q) => q.path),
    ).toEqual([`/api/v2/prospects/${a}`]);
    const csv = inputFile('refused.csv', `id,score\n${b},notnum\n`);
    const fromCsv = await svc(['prospects', 'update', '--input', csv, '--report', '-']);
    expect(fromCsv.code).toBe(5);
    expect(JSON.parse(fromCsv.stdout)).toMatchObject({ row: 1, status: 'failed', id: b, field: 'score' });
  });
});

// The other usage errors, and --dry-run, are checked in-process in
// test/unit/commands/resource-commands/bulk-usage.test.ts; `--input -` stays here (stdin of the real process).
describe('usage errors send nothing (exit 2)', () => {
  it('--input -: bulk input is read from a file, not stdin', async () => {
    const mark = sb.requests.length;
    const r = await runSvc(['prospects', 'create', '--input', '-'], { env: env() });
    expect(r.stderr).toMatch(/--input -: bulk input is read from a file, not stdin/);
    expect(r.code).toBe(2);
    expect(sb.requests.length).toBe(mark);
  });
});
