/**
 * `upsert --match` against the sandbox (which, like the API, matches filters exactly), run
 * in-process over HTTP: e-mail addresses matched ignoring case for real (a stored
 * `Mia.Case@Corp.test` is found for `mia.case@corp.test`, and `dup@…`/`DUP@…` are ambiguous), the
 * plan says how each row matched, and rows that contradict themselves are refused: an `id` naming
 * another record, two addresses of two prospects. Matching by `emails` keeps the record's list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputFile, ndjson, newSequence, stateProspects } from '../helpers/bulk.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: () => Record<string, string>;
beforeAll(async () => {
  // The scenarios make their own records: 200 prospects (2,607 before, seeding most of the
  // file's CPU for nothing a test used).
  ({ sb, env } = await sandboxWithEnv({ seed: 200 }));
});
afterAll(() => sb.close());

const svc = (args: string[]) => runInProcess(args, baseEnv(env()), { timeoutMs: 30_000 });
type Line = { row: number; status: string; id: number | null; error: string | null };

/** Prospects holding an address, in any letter case. */
function holders(email: string): number[] {
  const out: number[] = [];
  for (const [id, p] of sb.store.table('prospect')) {
    const list = p.attributes['emails'];
    if (Array.isArray(list) && list.some((e) => String(e).toLowerCase() === email.toLowerCase())) out.push(id);
  }
  return out;
}
function seed(attributes: Record<string, unknown>): number {
  sb.store.insert('prospect', attributes, {}, { silent: true });
  return holders((attributes['emails'] as string[])[0]!).at(-1)!;
}
const attrs = (id: number) => sb.store.get('prospect', id)!.attributes;

describe('e-mail addresses matched ignoring case', () => {
  it('a stored Mia.Case@Corp.test is updated for mia.case@corp.test, not duplicated; the plan says how it matched', async () => {
    const id = seed({ firstName: 'Mia', lastName: 'Case', emails: ['Mia.Case@Corp.test'], title: 'Old' });
    const file = inputFile('case.csv', 'emails,title\nmia.case@corp.test,New\nnew.one@corp.test,Fresh\n');
    const plan = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--plan']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      `row 1: update prospect ${id} (emails mia.case@corp.test, matched ignoring case (stored "Mia.Case@Corp.test"))`,
    );
    // A create shows the values it sends, as an update shows its changes (a trial: a number read
    // wrongly from a spreadsheet showed only in -o json).
    expect(plan.stdout).toContain(
      'row 2: create (emails new.one@corp.test: no prospect has it, ignoring case)\n  emails: ["new.one@corp.test"]\n  title: "Fresh"\n',
    );
    const json = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--plan', '-o', 'json']);
    const rows = (JSON.parse(json.stdout) as { rows: { row: number; matched: string }[] }).rows;
    expect(rows.map((r) => r.matched)).toEqual(['ignoring case (stored "Mia.Case@Corp.test")', 'none']);

    const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--report', `${file}.r`]);
    expect(r.code, r.stderr).toBe(0);
    expect(holders('mia.case@corp.test')).toEqual([id]);
    expect(attrs(id)['title']).toBe('New');
    // The stored spelling is kept: the address is the same one.
    expect(attrs(id)['emails']).toEqual(['Mia.Case@Corp.test']);
    expect(ndjson<Line>(`${file}.r`).find((l) => l.row === 1)).toMatchObject({ status: 'updated', id });
  });

  it('dup@corp.test and DUP@corp.test on two prospects: ambiguous, left alone, nothing created', async () => {
    const a = seed({ firstName: 'Dup', lastName: 'Lower', emails: ['dup@corp.test'] });
    const b = seed({ firstName: 'Dup', lastName: 'Upper', emails: ['DUP@corp.test'] });
    const file = inputFile('dup.csv', 'emails,title\nDup@Corp.test,Boss\n');
    const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--report', `${file}.r`]);
    expect(r.code).toBe(5);
    const line = ndjson<Line>(`${file}.r`)[0]!;
    expect(line.status).toBe('failed');
    expect(line.error).toMatch(new RegExp(`^ambiguous: 2 prospects have emails Dup@Corp.test \\(ids ${a}, ${b}\\)`));
    expect(holders('dup@corp.test').sort()).toEqual([a, b].sort());
    expect(attrs(a)['title']).toBeUndefined();
  });

  it('two prospects with one address: a row whose id names one of them updates that one (an export read back, a trial)', async () => {
    const a = seed({ firstName: 'Twin', lastName: 'A', emails: ['twin@corp.test'] });
    const b = seed({ firstName: 'Twin', lastName: 'B', emails: ['TWIN@corp.test'] });
    const file = inputFile('twin.csv', `id,emails,title\n${b},twin@corp.test,Boss\n`);
    const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--report', `${file}.r`]);
    expect(r.code, r.stderr).toBe(0);
    expect([attrs(a)['title'], attrs(b)['title']]).toEqual([undefined, 'Boss']);
  });

  it("the row's id does not take an address another prospect alone holds (a review)", async () => {
    const a = seed({ firstName: 'Sh', lastName: 'A', emails: ['sh@corp.test'] });
    const b = seed({ firstName: 'Sh', lastName: 'B', emails: ['sh@corp.test', 'bonly@corp.test'] });
    const file = inputFile('sh.csv', `id,emails,title\n${a},sh@corp.test;bonly@corp.test,Z\n`);
    const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--report', `${file}.r`]);
    expect(r.code).toBe(5);
    expect(ndjson<Line>(`${file}.r`)[0]!.error).toMatch(/^contradiction: the row's emails belong to different prospects/);
    expect([attrs(a)['emails'], attrs(b)['emails']]).toEqual([['sh@corp.test'], ['sh@corp.test', 'bonly@corp.test']]);
    // The same row as B's own export (id B, both of B's addresses) updates B (a second review).
    const own = inputFile('sh-own.csv', `id,emails,title\n${b},sh@corp.test;bonly@corp.test,Own\n`);
    const o = await svc(['prospects', 'upsert', '--input', own, '--match', 'email', '--report', `${own}.r`]);
    expect(o.code, o.stderr).toBe(0);
    expect([attrs(a)['title'], attrs(b)['title']]).toEqual([undefined, 'Own']);
  });

  it('enroll --by email finds a prospect stored in other letter case', async () => {
    const id = seed({ firstName: 'Enrol', lastName: 'Case', emails: ['Enrol.Case@Corp.test'] });
    const seq = await newSequence(sb);
    const file = inputFile('enrol.csv', 'email\nenrol.case@corp.test\n');
    const r = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--by', 'email', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(stateProspects(sb, seq)).toEqual([id]);
  });
});

describe('rows that contradict themselves are refused', () => {
  it("a row's id that is not the record of its address: refused, neither record changed", async () => {
    const a = seed({ firstName: 'Id', lastName: 'A', emails: ['id.a@corp.test'], title: 'A' });
    const b = seed({ firstName: 'Id', lastName: 'B', emails: ['id.b@corp.test'], title: 'B' });
    const file = inputFile('id.csv', `id,emails,title\n${b},id.a@corp.test,Changed\n${a},id.a@corp.test,Mine\n`);
    const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--report', `${file}.r`]);
    expect(r.code).toBe(5);
    const lines = ndjson<Line>(`${file}.r`).sort((x, y) => x.row - y.row);
    expect(lines[0]!.status).toBe('failed');
    expect(lines[0]!.error).toBe(
      `contradiction: the row's id ${b} is not the prospect that has emails id.a@corp.test (id ${a}; ids of another org? --ignore-columns id matches by emails alone); left alone`,
    );
    expect(attrs(a)['title']).toBe('A');
    expect(attrs(b)['title']).toBe('B');
    // Ids of another org: left out, the rows match by their address alone.
    const ok = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--ignore-columns', 'id', '--journal', `${file}.j2`]);
    expect(ok.stderr).toMatch(/duplicate: row 1 has the same emails \(id\.a@corp\.test\)/);
    expect(attrs(a)['title']).toBe('Changed');
    expect(attrs(b)['title']).toBe('B');
  });

  it("a row's id with an address no prospect has: refused, not created", async () => {
    const a = seed({ firstName: 'Id', lastName: 'C', emails: ['id.c@corp.test'] });
    const file = inputFile('id2.csv', `id,emails,title\n${a},nobody.yet@corp.test,X\n`);
    const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--report', `${file}.r`]);
    expect(r.code).toBe(5);
    expect(ndjson<Line>(`${file}.r`)[0]!.error).toMatch(/^contradiction: the row's id \d+ but no prospect has emails nobody.yet@corp.test/);
    expect(holders('nobody.yet@corp.test')).toEqual([]);
  });

  it("two addresses of two prospects: refused, nobody's address moves", async () => {
    const a = seed({ firstName: 'Two', lastName: 'A', emails: ['two.a@corp.test'] });
    const b = seed({ firstName: 'Two', lastName: 'B', emails: ['two.b@corp.test'] });
    const file = inputFile('two.ndjson', `${JSON.stringify({ emails: ['two.a@corp.test', 'Two.B@corp.test'], title: 'T' })}\n`);
    const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'emails', '--report', `${file}.r`]);
    expect(r.code).toBe(5);
    expect(ndjson<Line>(`${file}.r`)[0]!.error).toBe(
      `contradiction: the row's emails belong to different prospects: two.a@corp.test (id ${a}); Two.B@corp.test (id ${b}); left alone`,
    );
    expect(attrs(a)['emails']).toEqual(['two.a@corp.test']);
    expect(attrs(b)['emails']).toEqual(['two.b@corp.test']);
  });
});

describe('--match emails keeps the list', () => {
  it("the record's other addresses stay; a new address of the row is added", async () => {
    const id = seed({ firstName: 'List', lastName: 'Keep', emails: ['list.keep@corp.test', 'second@corp.test'], title: 'Old' });
    const file = inputFile('keep.ndjson', `${JSON.stringify({ emails: ['List.Keep@corp.test'], title: 'New' })}\n`);
    const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'emails']);
    expect(r.code, r.stderr).toBe(0);
    expect(attrs(id)).toMatchObject({ title: 'New', emails: ['list.keep@corp.test', 'second@corp.test'] });
    const more = inputFile('more.ndjson', `${JSON.stringify({ emails: ['list.keep@corp.test', 'third@corp.test'] })}\n`);
    const r2 = await svc(['prospects', 'upsert', '--input', more, '--match', 'emails']);
    expect(r2.code, r2.stderr).toBe(0);
    expect(attrs(id)['emails']).toEqual(['list.keep@corp.test', 'second@corp.test', 'third@corp.test']);
  });
});

describe('names matched ignoring case and outer spaces', () => {
  it('beside a case variant an older import made, the name as written is the match, not an ambiguity (a review)', async () => {
    for (const name of ['ATLAS EXACT CO', 'Atlas Exact Co']) sb.store.insert('account', { name, named: true }, {}, { silent: true });
    const exact = [...sb.store.table('account').values()].find((a) => a.attributes['name'] === 'Atlas Exact Co')!.id;
    const file = inputFile('exact.csv', 'name,industry\nAtlas Exact Co,Exact\n');
    const r = await svc(['accounts', 'upsert', '--input', file, '--match', 'name', '--report', `${file}.r`]);
    expect(r.code, r.stderr).toBe(0);
    expect(sb.store.get('account', Number(exact))!.attributes['industry']).toBe('Exact');
  });

  it('accounts upsert --match name finds ATLAS SYSTEMS and "blue foods " in Atlas Systems and Blue Foods, and keeps their spelling', async () => {
    const id = (name: string) => {
      sb.store.insert(
        'account',
        { name, named: true, domain: `${name.toLowerCase().replace(/\W+/g, '-')}.match.test` },
        {},
        { silent: true },
      );
      return [...sb.store.table('account').values()].filter((a) => a.attributes['name'] === name).at(-1)!.id;
    };
    const atlas = id('Atlas Match Systems');
    const blue = id('Blue Match Foods');
    const before = sb.store.table('account').size;
    const file = inputFile('acc.csv', 'name;industry\r\nATLAS MATCH SYSTEMS;Tech\r\nblue match foods ;Food\r\n');
    const plan = await svc(['accounts', 'upsert', '--input', file, '--match', 'name', '--plan']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      `row 1: update account ${atlas} (name ATLAS MATCH SYSTEMS, matched ignoring case (stored "Atlas Match Systems"))`,
    );
    const r = await svc(['accounts', 'upsert', '--input', file, '--match', 'name', '--report', `${file}.r`]);
    expect(r.code, r.stderr).toBe(0);
    expect(sb.store.table('account').size).toBe(before);
    const acc = (n: number | string) => sb.store.get('account', Number(n))!.attributes;
    expect([acc(atlas)['name'], acc(atlas)['industry'], acc(blue)['name'], acc(blue)['industry']]).toEqual([
      'Atlas Match Systems',
      'Tech',
      'Blue Match Foods',
      'Food',
    ]);
  });
});
