/**
 * `svc <type> export`: the file appears only when complete (`.part` until then), CSV for Excel
 * (BOM, UTF-8 accents), default columns without the org's unused custom fields, NDJSON, and an
 * export SIGKILLed halfway then resumed holding every id exactly once.
 *
 * The exports that are interrupted (SIGINT, SIGKILL) are the built bin/svc; the runs after them
 * (the resumes and the refused resumes) read what the killed process left and run in process
 * (eight spawns fewer).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, spawnSvc, tempDir } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { call, prospectIds } from '../helpers/bulk.js';
import { CsvParser } from '../../src/bulk/input/csv-parse.js';

let sb: TestSandbox;
let env: () => Record<string, string>;
let config: string;

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 1200, latencyMs: 40 }));
  config = tempDir();
});
afterAll(() => sb.close());

/** One config dir for the file: the schema cached by `schema pull` is seen by later runs. */
const svc = (args: string[]) => svcInProcess(args, { env: { ...env(), SVC_CONFIG_DIR: config }, timeoutMs: 60_000 });

/** The header line of a CSV text, without its BOM. */
const headerOf = (text: string) => text.replace(/^\ufeff/, '').split('\n')[0]!;

function csvRecords(file: string): string[][] {
  const p = new CsvParser();
  return p.push(fs.readFileSync(file, 'utf8'));
}

describe('export to CSV and NDJSON', () => {
  it('CSV for people: BOM, accents in UTF-8, every record once in id order, no .part left', async () => {
    const zoe = await call(sb, 'POST', 'prospects', {
      data: { type: 'prospect', attributes: { firstName: 'Zoë', lastName: 'Ångström', personalNote1: 'line one\nline "two", three' } },
    });
    expect(zoe.status).toBe(201);
    const dir = tempDir('svc-export-');
    const file = path.join(dir, 'prospects.csv');
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'export', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(`${file}.part`)).toBe(false);
    const bytes = fs.readFileSync(file);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.includes(Buffer.from('Zoë,Ångström', 'utf8')) || bytes.includes(Buffer.from('Zoë', 'utf8'))).toBe(true);
    const [header, ...rows] = csvRecords(file);
    expect(header![0]).toBe('id');
    const ids = rows.map((row) => Number(row[0]));
    expect(ids).toEqual(prospectIds(sb));
    const zoeRow = rows.find((row) => Number(row[0]) === Number(zoe.body.data.id))!;
    expect(zoeRow[header!.indexOf('personalNote1')]).toBe('line one\nline "two", three');
    expect(r.stderr).toMatch(
      new RegExp(`exported ${ids.length.toLocaleString('en-US')} prospects to .*prospects.csv \\(UTF-8 with BOM, for Excel\\)`),
    );
    // Pages of 1,000 in id order, counted once at the start.
    const lists = received(sb, mark, 'prospects');
    expect(lists).toHaveLength(Math.ceil(ids.length / 1000));
    expect(lists[0]!.query.parsed).toMatchObject({ sort: 'id', count: 'true', 'page[limit]': '1000' });
    // One record is "1 prospect", not "1 prospects".
    const one = await svc(['prospects', 'export', path.join(dir, 'zoe.ndjson'), '--filter', `id=${zoe.body.data.id}`]);
    expect(one.stderr).toMatch(/^exported 1 prospect to .*zoe\.ndjson$/m);
  });

  // The columns an export writes come from the org's fields, not from its records: the exports of
  // this test read one page of 50 (the whole 1,200 took ~1 CPU-s more; the paging is the test above's).
  const FEW = ['--filter', 'id=1..50'];

  it('columns: all 150 custom fields without a cached schema, only the labelled ones after schema pull, all with --all-columns', async () => {
    const dir = tempDir('svc-export-');
    const before = await svc(['prospects', 'export', path.join(dir, 'a.csv'), '--no-bom', ...FEW]);
    expect(before.code, before.stderr).toBe(0);
    const a = fs.readFileSync(path.join(dir, 'a.csv'), 'utf8');
    expect(a.charCodeAt(0)).not.toBe(0xfeff);
    expect(csvRecords(path.join(dir, 'a.csv'))[0]!.filter((c) => /^custom\d+$/.test(c))).toHaveLength(150);
    expect((await svc(['schema', 'pull'])).code).toBe(0);
    const labelled = Object.keys(JSON.parse(fs.readFileSync(path.join(config, 'schema.default.json'), 'utf8')).types.prospect.customFields);
    expect(labelled.length).toBeGreaterThan(0);
    const after = await svc(['prospects', 'export', path.join(dir, 'b.csv'), ...FEW]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toMatch(new RegExp(`leaving out ${150 - labelled.length} custom field\\(s\\) your org has not labelled`));
    const header = csvRecords(path.join(dir, 'b.csv'))[0]!;
    expect(header.filter((c) => /^custom\d+$/.test(c)).sort()).toEqual([...labelled].sort());
    // list -o csv leaves them out the same way (the header comes from the records it meets).
    const listed = await svc(['prospects', 'list', '-o', 'csv', '--limit', '5']);
    expect(listed.code, listed.stderr).toBe(0);
    // And says so, as export does: 146 columns went without a word between two runs (a trial).
    expect(listed.stderr).toBe(
      `leaving out ${150 - labelled.length} custom field(s) your org has not labelled (--all-columns keeps them)\n`,
    );
    expect(
      listed.stdout
        .split('\n')[0]!
        .split(',')
        .filter((c) => /^custom\d+$/.test(c))
        .sort(),
    ).toEqual([...labelled].sort());
    const listedAll = await svc(['prospects', 'list', '-o', 'csv', '--limit', '5', '--all-columns']);
    expect(
      listedAll.stdout
        .split('\n')[0]!
        .split(',')
        .filter((c) => /^custom\d+$/.test(c)),
    ).toHaveLength(150);
    expect((await svc(['prospects', 'list', '--all-columns', '-o', 'json'])).code).toBe(2);
    const all = await svc(['prospects', 'export', path.join(dir, 'c.csv'), '--all-columns', ...FEW]);
    expect(all.code).toBe(0);
    expect(csvRecords(path.join(dir, 'c.csv'))[0]!.filter((c) => /^custom\d+$/.test(c))).toHaveLength(150);
    const some = await svc(['prospects', 'export', path.join(dir, 'd.csv'), '--columns', 'firstName,emails', '--filter', 'firstName=Zoë']);
    expect(some.code, some.stderr).toBe(0);
    expect(csvRecords(path.join(dir, 'd.csv'))).toEqual([
      ['id', 'firstName', 'emails'],
      [expect.any(String), 'Zoë', ''],
    ]);
  });

  it('NDJSON by file name: one flat record per line', async () => {
    const file = path.join(tempDir('svc-export-'), 'accounts.ndjson');
    const r = await svc(['accounts', 'export', file]);
    expect(r.code, r.stderr).toBe(0);
    const lines = fs
      .readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: number; type: string });
    const listed = await svc(['accounts', 'list', '--all', '-o', 'ndjson']);
    const want = listed.stdout
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: number }).id);
    expect(lines.map((l) => l.id)).toEqual(want.sort((x, y) => x - y));
    expect(lines[0]!.type).toBe('account');
  });

  // The README gives `list --all -o csv` as an export's stdout form: an export left out `type`,
  // which list writes second (a new user's trial). With and without the org schema cached.
  it('CSV columns are those of list --all -o csv, type included, in the same order', async () => {
    const fresh = { ...env() };
    const run = (args: string[], cfg?: Record<string, string>) => (cfg ? svcInProcess(args, { env: cfg, timeoutMs: 60_000 }) : svc(args));
    const dir = tempDir('svc-export-');
    for (const cfg of [fresh, undefined]) {
      for (const [type, filter] of [
        ['accounts', ['--filter', 'id=1..30']],
        ['prospects', FEW],
        ['calls', ['--filter', 'id=1..30']],
      ] as const) {
        const file = path.join(dir, `${type}-${cfg ? 'fresh' : 'schema'}.csv`);
        const ex = await run([type, 'export', file, ...filter], cfg);
        expect(ex.code, ex.stderr).toBe(0);
        const listed = await run([type, 'list', '--all', '-o', 'csv', ...filter], cfg);
        expect(listed.code, listed.stderr).toBe(0);
        const header = headerOf(fs.readFileSync(file, 'utf8'));
        expect(header.startsWith('id,type,'), header.slice(0, 40)).toBe(true);
        expect(header, type).toBe(headerOf(listed.stdout));
      }
    }
    // A type with no record: list's header of an empty listing is an export's too.
    const none = ['--filter', 'id=999999'];
    const ex = await svc(['accounts', 'export', path.join(dir, 'none.csv'), ...none]);
    expect(ex.code, ex.stderr).toBe(0);
    expect(headerOf(fs.readFileSync(path.join(dir, 'none.csv'), 'utf8'))).toBe(
      headerOf((await svc(['accounts', 'list', '--all', '-o', 'csv', ...none])).stdout),
    );
  });

  it('an exported CSV, type column and all, goes back in: update --input and upsert --input --plan read it cleanly', async () => {
    const dir = tempDir('svc-export-');
    const file = path.join(dir, 'accounts.csv');
    expect((await svc(['accounts', 'export', file, '--filter', 'id=1..5'])).code).toBe(0);
    const [header, first, ...more] = csvRecords(file);
    const name = header!.indexOf('name');
    const edited = path.join(dir, 'edited.csv');
    const was = first![name]!;
    fs.writeFileSync(edited, fs.readFileSync(file, 'utf8').replace(`,${was},`, `,${was} Renamed,`));
    const plan = await svc(['accounts', 'upsert', '--input', edited, '--match', 'domain', '--plan']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).not.toMatch(/warning|column|invalid: |[1-9]\d* invalid/);
    expect(plan.stdout).toContain(`  name: ${JSON.stringify(was)} → ${JSON.stringify(`${was} Renamed`)}`);
    expect(plan.stdout).toContain(`bill: 0 creates, 1 update, ${more.length} unchanged (not sent), 0 ambiguous, 0 failed`);
    const run = await svc(['accounts', 'update', '--input', edited]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/warning|column|invalid: |[1-9]\d* invalid/);
    expect(run.stderr).toContain(`accounts update: ${more.length + 1} updated`);
    expect(sb.store.get('account', Number(first![0]))!.attributes['name']).toBe(`${was} Renamed`);
  });

  // The other usage errors (a filter on id, --bom with NDJSON) are checked in-process in
  // test/unit/commands/resource-commands/bulk-usage.test.ts.
  it('usage error: a leftover .part without --resume', async () => {
    const dir = tempDir('svc-export-');
    const mark = sb.requests.length;
    fs.writeFileSync(path.join(dir, 'y.csv.part'), 'id\n1\n');
    const left = await svc(['prospects', 'export', path.join(dir, 'y.csv')]);
    expect(left.code).toBe(2);
    expect(left.stderr).toMatch(/y\.csv\.part exists: an earlier export of .*y\.csv was stopped/);
    expect(left.stderr).toMatch(/add --resume to continue it/);
    expect(received(sb, mark, 'prospects')).toEqual([]);
  });
});

describe('killed and resumed', () => {
  /** A run after the kill, in process, with the killed run's config dir. */
  const after = (args: string[], cfg: string) => svcInProcess(args, { env: { ...env(), SVC_CONFIG_DIR: cfg }, timeoutMs: 60_000 });
  it('Ctrl-C: exit 130, the .part kept, the hint names --resume; the resumed file is whole', async () => {
    const dir = tempDir('svc-export-');
    const file = path.join(dir, 'p.csv');
    const cfg = tempDir();
    const child = spawnSvc(['prospects', 'export', file, '--page-size', '50'], { env: { ...env(), SVC_CONFIG_DIR: cfg } });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const deadline = Date.now() + 20_000;
    while (!(fs.existsSync(`${file}.part`) && fs.readFileSync(`${file}.part`, 'utf8').split('\n').length > 200)) {
      if (Date.now() > deadline) throw new Error('the export never wrote 200 lines');
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGINT');
    const code = await new Promise((r) => child.once('close', r));
    expect(code).toBe(130);
    expect(stderr).toMatch(/error: export interrupted after [\d,]+ record\(s\)/);
    expect(stderr).toMatch(/hint: continue with the same command and --resume \(.*p\.csv\.part is kept\)/);
    expect(fs.existsSync(`${file}.part`)).toBe(true);
    const r = await after(['prospects', 'export', file, '--resume'], cfg);
    expect(r.code, r.stderr).toBe(0);
    expect(
      csvRecords(file)
        .slice(1)
        .map((row) => Number(row[0])),
    ).toEqual(prospectIds(sb));
  });

  // A part file begun by an svc whose exports left out `type`: resumed as it is headed, never
  // with a second layout after its first records, nor refused as "other columns".
  it('a CSV part begun without the type column (an earlier svc) is finished without it', async () => {
    const dir = tempDir('svc-export-');
    const file = path.join(dir, 'old.csv');
    const cfg = tempDir();
    const e = { ...env(), SVC_CONFIG_DIR: cfg };
    // The columns an export wrote before: today's without `type`, given as --columns (the part's
    // record of its export names no columns, so a resume without them is the old export's resume).
    const fresh = await svcInProcess(['prospects', 'list', '--limit', '1', '-o', 'csv'], { env: e });
    const old = headerOf(fresh.stdout)
      .split(',')
      .filter((c) => c !== 'type');
    const stop = new AbortController();
    const begun = runInProcess(['prospects', 'export', file, '--page-size', '50', '--columns', old.join(',')], baseEnv(e), {
      signal: stop.signal,
      timeoutMs: 60_000,
    });
    const deadline = Date.now() + 20_000;
    while (!(fs.existsSync(`${file}.part`) && fs.readFileSync(`${file}.part`, 'utf8').split('\n').length > 120)) {
      if (Date.now() > deadline) throw new Error('the export never wrote 120 lines');
      await new Promise((r) => setTimeout(r, 10));
    }
    stop.abort();
    expect((await begun).code).toBe(130);
    const r = await after(['prospects', 'export', file, '--resume'], cfg);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/resuming .*old\.csv\.part: .*; begun by an earlier svc without the type column, finished without it/);
    const rows = csvRecords(file);
    expect(rows[0]).toEqual(old);
    expect(rows.slice(1).every((row) => row.length === old.length)).toBe(true);
    expect(rows.slice(1).map((row) => Number(row[0]))).toEqual(prospectIds(sb));
  });

  for (const format of ['csv', 'ndjson'] as const) {
    it(`${format}: SIGKILL after some pages, a torn last record, then --resume: every id exactly once`, async () => {
      const dir = tempDir('svc-export-');
      const file = path.join(dir, `p.${format}`);
      const part = `${file}.part`;
      const cfg = tempDir();
      const child = spawnSvc(['prospects', 'export', file, '--page-size', '50'], { env: { ...env(), SVC_CONFIG_DIR: cfg } });
      // Wait until a few pages are on disk, then kill without warning.
      const deadline = Date.now() + 20_000;
      while (!(fs.existsSync(part) && fs.readFileSync(part, 'utf8').split('\n').length > 300)) {
        if (Date.now() > deadline) throw new Error('the export never wrote 300 lines');
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill('SIGKILL');
      await new Promise((r) => child.once('close', r));
      expect(fs.existsSync(file)).toBe(false);
      // A record cut halfway, as a kill during a write would leave it.
      fs.appendFileSync(part, format === 'csv' ? '99999,"cut in a quoted\ncell' : '{"id":99999,"type":"pros');
      const cutAt = fs.readFileSync(part, 'utf8').split('\n').length;
      expect(cutAt).toBeLessThan(prospectIds(sb).length);
      // Resuming with another filter would mix two selections: refused, nothing sent.
      const before = sb.requests.length;
      const other = await after(['prospects', 'export', file, '--resume', '--filter', 'title=CEO'], cfg);
      expect(other.code).toBe(2);
      expect(other.stderr).toMatch(/was written by another export \(prospect, .*, no filter\)/);
      expect(sb.requests.length).toBe(before);
      const r = await after(['prospects', 'export', file, '--page-size', '50', '--resume'], cfg);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/resuming .*\.part: [\d,]+ record\(s\) already written, continuing after id \d+/);
      expect(fs.existsSync(part)).toBe(false);
      expect(fs.existsSync(`${part}.json`)).toBe(false);
      const ids =
        format === 'csv'
          ? csvRecords(file)
              .slice(1)
              .map((row) => Number(row[0]))
          : fs
              .readFileSync(file, 'utf8')
              .trimEnd()
              .split('\n')
              .map((l) => (JSON.parse(l) as { id: number }).id);
      expect(ids).toEqual(prospectIds(sb));
      expect(new Set(ids).size).toBe(ids.length);
      if (format === 'csv') expect(fs.readFileSync(file, 'utf8').match(/^\ufeff?id,/gm)).toHaveLength(1);
      // Resuming with other columns (other options, or the org schema cached meanwhile) would mix two layouts: refused.
      if (format === 'csv') {
        fs.writeFileSync(part, fs.readFileSync(file, 'utf8').split('\n').slice(0, 3).join('\n') + '\n');
        fs.rmSync(file);
        const mixed = await after(['prospects', 'export', file, '--resume', '--columns', 'firstName'], cfg);
        expect(mixed.code).toBe(2);
        expect(mixed.stderr).toMatch(/has other columns than this export would write/);
        fs.rmSync(part);
        fs.writeFileSync(file, 'done');
      }
      // A second --resume finds the file complete and sends nothing.
      const mark = sb.requests.length;
      const again = await after(['prospects', 'export', file, '--resume'], cfg);
      expect(again.code).toBe(0);
      expect(again.stderr).toMatch(/is complete \(no .*\.part to resume\): nothing to do/);
      expect(sb.requests.length).toBe(mark);
    });
  }
});
