/**
 * Usage errors of the bulk runs, in-process: export's options, upsert's --match, and the options
 * of --input runs (--max-failures, --failed, --settle, …) are refused with exit 2 and one error
 * before anything is sent; --dry-run prints each request instead. (The e2e tests keep the
 * refusals that need the org schema, `--input -`, and export's leftover .part, through the built
 * binary.)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputFile } from '../../../helpers/bulk.js';
import { tempDir } from '../../../helpers/run-svc.js';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

describe('export', () => {
  it('usage errors: an extension it does not write, --bom with NDJSON', async () => {
    const dir = tempDir('svc-export-');
    for (const name of ['x.xlsx', 'x.json']) {
      const r = await server.run(['prospects', 'export', path.join(dir, name)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/export writes CSV \(\.csv\) or NDJSON \(\.ndjson, \.jsonl\), not \.(xlsx|json)\nhint: name the file \.csv/);
    }
    expect((await server.run(['prospects', 'export', path.join(dir, 'z.ndjson'), '--bom'])).code).toBe(2);
    expect(server.received).toEqual([]);
  });
});

describe('upsert and update --match', () => {
  it('refuses a --match that is not a filterable attribute, sending nothing (exit 2)', async () => {
    const file = inputFile('p.csv', 'emails,title\na@b.test,X\n');
    const r = await server.run(['prospects', 'upsert', '--input', file, '--match', 'tittle']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --match tittle: not a filterable attribute of prospect/m);
    expect(r.sent).toHaveLength(0);
    const none = await server.run(['prospects', 'upsert', '--input', file]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give --match ATTR');
    expect(none.sent).toHaveLength(0);
  });

  it('upsert --match id cannot create: a usage error', async () => {
    const file = inputFile('byid.csv', 'id,description\n1,same\n999999,x\n');
    const up = await server.run(['accounts', 'upsert', '--input', file, '--match', 'id']);
    expect(up.code).toBe(2);
    expect(up.stderr).toContain('--match id cannot create a missing record');
    expect(up.sent).toHaveLength(0);
  });

  it('upsert exists only for types that allow both create and update', async () => {
    const r = await server.run(['prospects', 'upsert', '--help']);
    expect(r.stdout).toContain('--match <attr>');
  });
});

describe('--input runs', () => {
  it('--input of a pipe (/dev/stdin, <(cmd), a FIFO) is refused as `-` is: exit 2, naming it; nothing sent', async () => {
    // It was "cannot read: ESPIPE", exit 1 (a trial).
    const fifo = path.join(tempDir(), 'rows.fifo');
    execFileSync('mkfifo', [fifo]);
    // /dev/stdin too, whatever it is redirected from (a file: its journal went into /dev, a review).
    for (const [input, args] of [
      [fifo, ['prospects', 'create', '--input', fifo]],
      [fifo, ['enroll', '--sequence', '1', '--mailbox', '1', '--input', fifo]],
      ['/dev/stdin', ['prospects', 'create', '--input', '/dev/stdin']],
    ] as const) {
      const r = await server.run([...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(
        `error: --input ${input}: is ${input === fifo ? 'a pipe or a device' : 'stdin or a file descriptor'}, not a file: bulk input is read from a file (a rerun resumes from the same file)\nhint: save it to a file first, e.g. \`… > rows.csv\`, then pass --input rows.csv\n`,
      );
      expect(r.sent).toEqual([]);
    }
  });

  it('a bad --max-failures is a usage error', async () => {
    const file = inputFile('mix.csv', 'firstName,emails,account.id\nQ0,q0@mix.test,1\n');
    const bad = await server.run(['prospects', 'create', '--input', file, '--max-failures', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--max-failures many: expected a whole number/);
    expect(bad.sent).toHaveLength(0);
  });

  it('--failed needs --input, and is not the input itself', async () => {
    const file = inputFile('f.ndjson', `${JSON.stringify({ firstName: 'N1', emails: ['n1@nd-fail.test'], account: 999999 })}\n`);
    const same = await server.run(['prospects', 'create', '--input', file, '--failed', file]);
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(
      /^error: --failed .*f\.ndjson: is the same file as --input .*f\.ndjson; the run would write into its input$/m,
    );
    const noInput = await server.run(['prospects', 'create', '--attr', 'firstName=X', '--failed', `${file}.failed.ndjson`]);
    expect(noInput.code).toBe(2);
    expect(server.received).toEqual([]);
  });
});

describe('no file of a run is another: an output is never an input or another output (exit 2, nothing sent, nothing changed)', () => {
  const text = 'firstName,emails\nAda,ada@files.test\n';
  it.each([
    [
      '--report naming the input',
      (f: string) => ['--report', f],
      /^error: --report .*in\.csv: is the same file as --input .*in\.csv; the run would write into its input$/m,
    ],
    ['--journal naming the input', (f: string) => ['--journal', f], /^error: --journal .*in\.csv: is the same file as --input/m],
    [
      '--failed naming the default journal',
      (f: string) => ['--failed', `${f}.journal.ndjson`],
      /^error: --failed .*in\.csv\.journal\.ndjson: is the same file as --journal .*; the run would write both into one file$/m,
    ],
    [
      '--report naming --journal',
      (f: string) => ['--journal', `${f}.j`, '--report', `${f}.j`],
      /^error: --report .*in\.csv\.j: is the same file as --journal/m,
    ],
    [
      "--report naming the journal's lock",
      (f: string) => ['--report', `${f}.journal.ndjson.lock`],
      /^error: --report .*in\.csv\.journal\.ndjson\.lock: is the same file as the journal's lock /m,
    ],
    [
      '--report naming --failed',
      (f: string) => ['--failed', `${f}.out`, '--report', `${f}.out`],
      /^error: --failed .*: is the same file as --report .*; the run would write both into one file$/m,
    ],
    [
      '--report through a symlink to the input',
      (f: string) => ['--report', link(f, 'symlink')],
      /^error: --report .*alias: is the same file as --input/m,
    ],
    [
      '--report a hard link of the input',
      (f: string) => ['--report', link(f, 'hard')],
      /^error: --report .*alias: is the same file as --input/m,
    ],
    [
      '--report a path through a symlinked directory',
      (f: string) => ['--report', path.join(linkDir(f), 'in.csv')],
      /^error: --report .*in\.csv: is the same file as --input/m,
    ],
  ])('%s', async (_, extra, error) => {
    const file = inputFile('in.csv', text);
    // The journal exists already (an earlier run): a truncating --failed would lose it.
    fs.writeFileSync(`${file}.journal.ndjson`, '{"owner":{"api":"x","command":"prospects create"}}\n');
    const journalBefore = fs.readFileSync(`${file}.journal.ndjson`, 'utf8');
    const r = await server.run(['prospects', 'create', '--input', file, ...extra(file)]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(error);
    expect(r.sent).toHaveLength(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(fs.readFileSync(`${file}.journal.ndjson`, 'utf8')).toBe(journalBefore);
  });

  it('enroll and upsert are held to it too', async () => {
    const file = inputFile('ids.csv', 'id\n1\n');
    const enroll = await server.run(['enroll', '--sequence', '1', '--mailbox', '1', '--input', file, '--report', file]);
    expect(enroll.code).toBe(2);
    expect(enroll.stderr).toMatch(/--report .*ids\.csv: is the same file as --input/);
    const upsert = await server.run(['prospects', 'upsert', '--input', file, '--match', 'email', '--journal', file]);
    expect(upsert.code).toBe(2);
    expect(upsert.stderr).toMatch(/--journal .*ids\.csv: is the same file as --input/);
    expect([...enroll.sent, ...upsert.sent]).toHaveLength(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('id\n1\n');
  });
});

/** Another name of `file`: a symlink or a hard link beside it. */
function link(file: string, kind: 'symlink' | 'hard'): string {
  const alias = path.join(path.dirname(file), 'alias');
  if (kind === 'symlink') fs.symlinkSync(file, alias);
  else fs.linkSync(file, alias);
  return alias;
}

/** A symlink to the directory of `file`. */
function linkDir(file: string): string {
  const d = path.join(tempDir('svc-linkdir-'), 'dir');
  fs.symlinkSync(path.dirname(file), d);
  return d;
}

describe('create|update|delete --input: usage errors send nothing (exit 2)', () => {
  const file = () => inputFile('u.csv', 'id,title\n1,x\n');
  it.each([
    [() => ['prospects', 'update', '1', '--input', file()], /give either a record id or --input, not both/],
    [() => ['prospects', 'update', '--attr', 'title=x'], /prospects update: give the record id, or --input FILE/],
    [() => ['prospects', 'delete'], /prospects delete: give the record id, or --input FILE/],
    [() => ['prospects', 'create', '--input', file(), '--attr', 'title=x'], /--input cannot be combined with --attr/],
    [() => ['prospects', 'create', '--attr', 'firstName=x', '--concurrency', '2'], /--concurrency works only with --input FILE/],
    [
      () => ['prospects', 'update', '--input', '/nonexistent.csv'],
      /^error: --input \/nonexistent.csv: no such file \(looked for \/nonexistent.csv\); check the path, or pass the file the rows are in$/m,
    ],
    [
      () => ['prospects', 'upsert', '--input', 'missing.csv', '--match', 'email'],
      /^error: --input missing.csv: no such file \(looked for \/.+\/missing.csv\); check the path, or pass the file the rows are in$/m,
    ],
    [() => ['prospects', 'create', '--input', file(), '--concurrency', '99'], /expected a whole number from 1 to 32/],
    [() => ['calls', 'update', '--input', file()], /calls has no operation "update": it offers list, export, get, create, delete/],
    [() => ['prospects', 'create', '--input', file(), '--settle', 'soon'], /--settle soon: expected seconds from 0 to 3600 \(default 30\)/],
    [() => ['prospects', 'update', '--input', file(), '--settle', '7200'], /--settle 7200: expected seconds from 0 to 3600/],
    [() => ['prospects', 'create', '--attr', 'firstName=x', '--skip-failed'], /--skip-failed works only with --input FILE/],
    [() => ['prospects', 'create', '--attr', 'firstName=x', '--settle', '5'], /--settle works only with --input FILE/],
    [() => ['enroll', '--sequence', '1', '--mailbox', '1', '--prospect', '3', '--settle', '1e3'], /--settle 1e3: expected seconds/],
  ])('%#', async (args, message) => {
    const r = await server.run(args());
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.sent).toEqual([]);
  });

  it('--dry-run prints each request and sends nothing', async () => {
    const file = inputFile('dry.csv', 'firstName,emails\nDry,dry@dry.test\nBad,\n');
    const r = await server.run(['prospects', 'create', '--input', file, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent).toEqual([]);
    const plan = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(plan[0]).toEqual({
      row: 1,
      method: 'POST',
      url: `${server.baseUrl}/prospects`,
      body: { data: { type: 'prospect', attributes: { firstName: 'Dry', emails: ['dry@dry.test'] } } },
    });
    expect(plan[1]).toMatchObject({ row: 2, method: 'POST' });
    expect(r.stderr).toMatch(/dry run: prospects create: 2 rows: 2 to create/);
  });
});
