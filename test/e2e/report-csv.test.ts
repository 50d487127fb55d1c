/**
 * Reports and `svc sql` as CSV for a spreadsheet (a trial in Berlin, German Excel): `--bom`
 * starts the output with a UTF-8 byte order mark as `list --bom` does (Excel garbled the umlauts
 * without one) and is refused with any other output; `report mailings --by sequence` gives the
 * sequence's id and name in two columns, not `Name (2)` in one cell (JSON keeps its `group` and
 * gains the two); `report prospect` names the prospect's opt-out flag and its sequence states'
 * opt-out counts apart (one `optedOut` column held both). In process, against the sandbox.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  const made = await sandboxWithEnv();
  sb = made.sb;
  env = made.env();
  // A name with umlauts, for the BOM to matter.
  const r = await svcInProcess(['sequences', 'update', '2', '--attr', 'name=Größere Kunden'], { env });
  expect(r.code, r.stderr).toBe(0);
});
afterAll(async () => {
  await sb?.close();
});

const svc = (args: string[]) => svcInProcess(args, { env });
/** A CSV's lines (no quoted line breaks in these). */
const lines = (csv: string) => csv.trimEnd().split('\n');

describe('--bom', () => {
  it('report -o csv --bom starts with a UTF-8 BOM, then the header; without it none', async () => {
    const r = await svc(['report', 'sequences', '-o', 'csv', '--bom']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith('\ufeffid,name,')).toBe(true);
    expect(r.stdout).toContain('Größere Kunden');
    const plain = await svc(['report', 'sequences', '-o', 'csv']);
    expect(plain.stdout.startsWith('id,name,')).toBe(true);
  });

  it('sql -o csv --bom starts with a UTF-8 BOM; --bom with -o json is refused before anything is read', async () => {
    const db = path.join(tempDir(), 'm.sqlite');
    expect((await svc(['sync', 'sequences', '--db', db])).code).toBe(0);
    const r = await svc(['sql', '--db', db, '-o', 'csv', '--bom', 'select id, name from sequences where id = 2']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('\ufeffid,name\n2,Größere Kunden\n');
    for (const args of [
      ['sql', '--db', db, '-o', 'json', '--bom', 'select 1'],
      ['report', 'sequences', '-o', 'json', '--bom'],
    ]) {
      const no = await svc(args);
      expect(no.code).toBe(2);
      expect(no.stderr.split('\n')[0]).toBe('error: --bom is for CSV output (-o csv)');
      expect(no.stdout).toBe('');
    }
  });
});

describe('report CSV columns', () => {
  it('mailings --by sequence: the id and the name in two columns; JSON keeps group and has both', async () => {
    const r = await svc(['report', 'mailings', '--by', 'sequence', '-o', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    const [header, ...rows] = lines(r.stdout);
    const cols = header!.split(',');
    expect(cols.slice(0, 2)).toEqual(['sequence', 'sequenceName']);
    expect(cols).not.toContain('group');
    expect(rows.some((l) => l.startsWith('2,Größere Kunden,'))).toBe(true);
    // No cell of name and id together.
    expect(r.stdout).not.toMatch(/\(\d+\)/);
    const j = await svc(['report', 'mailings', '--by', 'sequence', '-o', 'json']);
    const two = (JSON.parse(j.stdout) as Record<string, unknown>[]).find((x) => x['sequence'] === 2);
    expect(two).toMatchObject({ group: 'Größere Kunden (2)', sequence: 2, sequenceName: 'Größere Kunden' });
  });

  it('prospect: the flag is optedOut, the states’ count optOuts, in CSV and JSON', async () => {
    const r = await svc(['report', 'prospect', '1', '-o', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    const [header, ...rows] = lines(r.stdout);
    const cols = header!.split(',');
    expect(cols.filter((c) => c === 'optedOut')).toHaveLength(1);
    const cell = (row: string, name: string) => row.split(',')[cols.indexOf(name)];
    const prospect = rows.find((l) => cell(l, 'kind') === 'prospect')!;
    expect(['true', 'false']).toContain(cell(prospect, 'optedOut'));
    const states = rows.filter((l) => cell(l, 'kind') === 'sequenceState');
    expect(states.length).toBeGreaterThan(0);
    for (const s of states) {
      expect(cell(s, 'optedOut')).toBe('');
      expect(cell(s, 'optOuts')).toMatch(/^\d+$/);
    }
    const j = JSON.parse((await svc(['report', 'prospect', '1', '-o', 'json'])).stdout) as Record<string, unknown>[];
    for (const s of j.filter((x) => x['kind'] === 'sequenceState')) {
      expect(s).not.toHaveProperty('optedOut');
      expect(typeof s['optOuts']).toBe('number');
    }
  });
});
