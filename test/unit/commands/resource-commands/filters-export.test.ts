/**
 * Filters refused before sending when they cannot mean what they say (a reversed range, a word
 * on a number, a value an enum or a boolean does not have), values sent as the API writes them
 * (an enum's case, `yes` for true), `export` taking the filters on id that `list` takes, `--format` naming what a
 * file of another extension gets, and the `svc schema pull` tip of export said once per
 * profile: in-process against a real sandbox over HTTP.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../../../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../../../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../../../helpers/sandbox.js';

let sb: TestSandbox;
let sbEnv: () => Record<string, string>;

beforeAll(async () => {
  ({ sb, env: sbEnv } = await sandboxWithEnv());
});
afterAll(async () => {
  await sb?.close();
});

describe('filters that cannot mean what they say', () => {
  it.each([
    ['updatedAt=yesterday..2025-01-01', /the range starts \(\d{4}-\d\d-\d\d\) after it ends \(2025-01-01\), so it matches nothing/],
    [
      'engagedScore=9..2',
      /the range starts \(9\) after it ends \(2\), so it matches nothing\nhint: write the earlier bound first: --filter 'engagedScore=2\.\.9'/,
    ],
    ['engagedScore=abc', /"abc" is not a number \(engagedScore is a number\)/],
  ])('%s is a usage error; nothing is sent', async (filter, message) => {
    const mark = sb.requests.length;
    const r = await runInProcess(['prospects', 'list', '--filter', filter], baseEnv(sbEnv()));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(received(sb, mark, 'prospects')).toEqual([]);
  });

  it.each([
    [
      'sequence-states',
      'state=actve',
      /^error: filter "state=actve": "actve" is not a value of state, which is one of: pending, active, .*\nhint: did you mean active\? --filter 'state=active'\n$/,
    ],
    ['sequence-states', 'state=active,zzz', /^error: filter "state=active,zzz": "zzz" is not a value of state, which is one of: /],
    ['accounts', 'named=maybe', /^error: filter "named=maybe": "maybe" is not true or false \(named is a boolean\)\n/],
    [
      'prospects',
      'id=9..2',
      /^error: filter "id=9\.\.2": the range starts \(9\) after it ends \(2\), so it matches nothing\nhint: write the earlier bound first: --filter 'id=2\.\.9'/,
    ],
    [
      'prospects',
      'account.id=4..2',
      /the range starts \(4\) after it ends \(2\), so it matches nothing\nhint: write the earlier bound first: --filter 'account\.id=2\.\.4'/,
    ],
  ])('%s %s is a usage error; nothing is sent (it listed nothing, exit 0: a trial)', async (command, filter, message) => {
    const mark = sb.requests.length;
    const r = await runInProcess([command, 'list', '--filter', filter], baseEnv(sbEnv()));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(sb.requests.slice(mark)).toEqual([]);
  });

  it.each([
    ['sequence-states', 'state=Active', 'state=active', 'filter[state]=active'],
    ['sequence-states', 'state=ACTIVE,Paused', 'state=active,paused', 'filter[state]=active,paused'],
    ['call-dispositions', 'outcome=answered', 'outcome=Answered', 'filter[outcome]=Answered'],
    ['accounts', 'named=yes', 'named=true', 'filter[named]=true'],
    ['accounts', 'named=0', 'named=false', 'filter[named]=false'],
  ])('%s %s is sent as the API writes it, and lists what %s lists', async (command, given, written, sent) => {
    const list = async (filter: string) => {
      const mark = sb.requests.length;
      const r = await runInProcess([command, 'list', '--filter', filter, '--all', '-o', 'json'], baseEnv(sbEnv()));
      expect(r.code, r.stderr).toBe(0);
      return { ids: (JSON.parse(r.stdout) as { id: number }[]).map((x) => x.id), query: received(sb, mark)[0]!.query.raw };
    };
    const [a, b] = [await list(given), await list(written)];
    expect(decodeURIComponent(a.query)).toContain(sent);
    expect(a.ids).toEqual(b.ids);
    // The sandbox holds such records: an empty list would prove nothing.
    if (!given.startsWith('named=0')) expect(a.ids.length).toBeGreaterThan(0);
  });

  it('hours and minutes back, as events tail --since reads them, are sent as that UTC date-time (2h.. was exit 2: a trial)', async () => {
    for (const [span, ms] of [
      ['2h', 2 * 3_600_000],
      ['30m', 30 * 60_000],
    ] as const) {
      const mark = sb.requests.length;
      const before = Date.now();
      const r = await runInProcess(
        ['prospects', 'list', '--filter', `updatedAt=${span}..`, '--limit', '1', '-o', 'json'],
        baseEnv(sbEnv()),
      );
      expect(r.code, r.stderr).toBe(0);
      const sent = /filter\[updatedAt\]=(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.\.inf(?:&|$)/.exec(
        decodeURIComponent(received(sb, mark, 'prospects')[0]!.query.raw),
      );
      expect(sent, span).not.toBeNull();
      const at = Date.parse(`${sent![1]}Z`);
      expect(at).toBeGreaterThanOrEqual(Math.floor((before - ms) / 1000) * 1000);
      expect(at).toBeLessThanOrEqual(Date.now() - ms);
    }
  });

  it('a range the right way round still lists', async () => {
    const r = await runInProcess(
      ['prospects', 'list', '--filter', 'updatedAt=2025-01-01..today', '--limit', '1', '-o', 'json'],
      baseEnv(sbEnv()),
    );
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('export', () => {
  it('refuses a filter on a field the type does not have, as list does; no file, nothing sent', async () => {
    const env = baseEnv({ ...sbEnv(), SVC_CONFIG_DIR: tempDir() });
    const file = path.join(tempDir(), 'titel.csv');
    const mark = sb.requests.length;
    const r = await runInProcess(['prospects', 'export', file, '--filter', 'titel=CEO'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --filter: prospect has no field "titel"\nhint: did you mean title\?/m);
    expect(received(sb, mark, 'prospects')).toEqual([]);
    expect(fs.existsSync(file) || fs.existsSync(`${file}.part`)).toBe(false);
  });

  it('takes a filter on id as list does: a range and a list', async () => {
    const env = baseEnv(sbEnv());
    const dir = tempDir('svc-export-');
    const range = path.join(dir, 'r.ndjson');
    const r = await runInProcess(['prospects', 'export', range, '--filter', 'id=3..6'], env);
    expect(r.code, r.stderr).toBe(0);
    const ids = (f: string) =>
      fs
        .readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: number }).id);
    expect(ids(range)).toEqual([3, 4, 5, 6]);
    const list = path.join(dir, 'l.ndjson');
    const l = await runInProcess(['prospects', 'export', list, '--filter', 'id=9,2,4'], env);
    expect(l.code, l.stderr).toBe(0);
    expect(ids(list)).toEqual([2, 4, 9]);
  });

  it('refuses `-` (stdout to a Unix user) naming the listing that writes there; no file named `-`, nothing sent', async () => {
    const mark = sb.requests.length;
    const r = await runInProcess(['prospects', 'export', '-'], baseEnv(sbEnv()));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: export writes a file (renamed when complete; --resume continues it), not stdout\nhint: for stdout: svc prospects list --all -o csv (or -o ndjson)\n',
    );
    expect(fs.existsSync('-') || fs.existsSync('-.part')).toBe(false);
    expect(received(sb, mark)).toEqual([]);
  });

  it('refuses a target that is no plain file (a FIFO, a symbolic link), leaving it as it is; nothing sent', async () => {
    // Renamed into place, the export replaced a device, a FIFO or a link with a file, exit 0 (a
    // trial, as root: /dev/full).
    const dir = tempDir();
    const fifo = path.join(dir, 'fifo.csv');
    execFileSync('mkfifo', [fifo]);
    const link = path.join(dir, 'latest.csv');
    fs.symlinkSync(path.join(dir, 'real.csv'), link);
    const mark = sb.requests.length;
    const viaFifo = await runInProcess(['prospects', 'export', fifo], baseEnv(sbEnv()));
    expect(viaFifo.code).toBe(2);
    expect(viaFifo.stderr).toBe(
      `error: export ${fifo}: is a pipe (FIFO), not a file: an export is written beside it and renamed into place\nhint: give a file path; for a pipe or stdout: svc prospects list --all -o csv (or -o ndjson)\n`,
    );
    const viaLink = await runInProcess(['prospects', 'export', link], baseEnv(sbEnv()));
    expect(viaLink.code).toBe(2);
    expect(viaLink.stderr).toContain(`export ${link}: is a symbolic link, not a file`);
    expect(viaLink.stderr).toContain('hint: give the path the link points to');
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readdirSync(dir).sort()).toEqual(['fifo.csv', 'latest.csv']);
    expect(received(sb, mark)).toEqual([]);
  });

  it('--columns naming id twice: one id column, first, in the header as in the rows', async () => {
    // The header kept the second `id` and the rows did not: 4 names over 3 values (a review).
    const file = path.join(tempDir(), 'ids.csv');
    const r = await runInProcess(
      ['prospects', 'export', file, '--filter', 'id=1', '--columns', 'ID,createdAt,id', '--no-bom'],
      baseEnv(sbEnv()),
    );
    expect(r.code, r.stderr).toBe(0);
    const [head, row] = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(head).toBe('ID,createdAt');
    expect(row).toMatch(/^1,\d{4}-\d\d-\d\dT[\d:]+Z?$/);
  });

  it('--dry-run says an export is read and written as usual (it wrote the file without a word)', async () => {
    const file = path.join(tempDir(), 'dry.csv');
    const r = await runInProcess(['prospects', 'export', file, '--filter', 'id=1', '--dry-run'], baseEnv(sbEnv()));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'warning: --dry-run prints the requests of writes and get; an export reads the org and writes its file as usual',
    );
  });

  it('--format writes that format under any name', async () => {
    const file = path.join(tempDir('svc-export-'), 'out.json');
    const r = await runInProcess(['prospects', 'export', file, '--format', 'ndjson', '--filter', 'id=1'], baseEnv(sbEnv()));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, 'utf8').trim())).toMatchObject({ id: 1 });
  });

  it('says the `svc schema pull` tip once per profile', async () => {
    const env = baseEnv(sbEnv());
    const dir = tempDir('svc-export-');
    const tip = /tip: after `svc schema pull`/;
    const first = await runInProcess(['prospects', 'export', path.join(dir, 'a.csv')], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(tip);
    const second = await runInProcess(['prospects', 'export', path.join(dir, 'b.csv')], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(tip);
    const other = await runInProcess(['--profile', 'other', 'prospects', 'export', path.join(dir, 'c.csv')], env);
    // Named as that profile's pull (runtime/svc-again.ts): a plain one pulled the default profile.
    expect(other.stderr).toMatch(/tip: after `svc --profile other schema pull`/);
  });
});
