/**
 * Side files never follow a planted symlink: the owner-only writer's temporary files have
 * unpredictable names and are created exclusively; a journal that is a symlink is refused; an
 * export's `<file>.part.json` and `<file>.part` are never written through one. Another user's
 * file the link points at is left as it was. The exports run in this process (`svcInProcess`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JournalWriter, readJournal } from '../../src/bulk/run/journal.js';
import { writeFileAtomic, writePrivateFileSync } from '../../src/private-file.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

/** Someone else's readable file, which a planted link points at. */
function victim(): string {
  const f = path.join(tempDir('svc-victim-'), 'theirs.txt');
  fs.writeFileSync(f, 'theirs\n', { mode: 0o644 });
  return f;
}

describe('the owner-only writer', () => {
  it('ignores links planted at the temporary names it used to use, and leaves no temporary file', () => {
    const dir = tempDir();
    const file = path.join(dir, 'copy.json.key');
    const target = victim();
    // The names of the old writer: `<file>.<pid>.tmp`, for this pid and its neighbours.
    for (let d = -3; d <= 3; d++) fs.symlinkSync(target, `${file}.${process.pid + d}.tmp`);
    writePrivateFileSync(file, 'secret key');
    expect(fs.readFileSync(target, 'utf8')).toBe('theirs\n');
    expect(fs.lstatSync(file).isFile()).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('secret key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir).filter((n) => !n.endsWith('.tmp') || !fs.lstatSync(path.join(dir, n)).isSymbolicLink())).toEqual([
      'copy.json.key',
    ]);
  });

  it('replaces a link at the file itself instead of writing through it', () => {
    const dir = tempDir();
    const file = path.join(dir, 'state.json');
    const target = victim();
    fs.symlinkSync(target, file);
    writePrivateFileSync(file, '{}');
    expect(fs.readFileSync(target, 'utf8')).toBe('theirs\n');
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(false);
  });
});

describe('the journal', () => {
  it('a journal that is a symlink is neither read nor written', async () => {
    const dir = tempDir();
    const target = victim();
    const journal = path.join(dir, 'in.csv.journal.ndjson');
    fs.symlinkSync(target, journal);
    expect(() => new JournalWriter(journal).open()).toThrow(
      /--journal .*: cannot write the journal \(a symbolic link: name the file itself\)/,
    );
    await expect(readJournal(journal)).rejects.toThrow(/a symbolic link: name the file itself/);
    expect(fs.readFileSync(target, 'utf8')).toBe('theirs\n');
    expect(fs.existsSync(`${journal}.lock`)).toBe(false);
  });
});

describe('an export', () => {
  let sb: TestSandbox;
  let env: () => Record<string, string>;
  beforeAll(async () => {
    ({ sb, env } = await sandboxWithEnv({ seed: 30 }));
  });
  afterAll(() => sb.close());

  it('<file>.part.json planted as a link: replaced, the linked file untouched', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'p.csv');
    const target = victim();
    fs.symlinkSync(target, `${out}.part.json`);
    const r = await svcInProcess(['prospects', 'export', out], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(target, 'utf8')).toBe('theirs\n');
    expect(fs.readFileSync(out, 'utf8')).toMatch(/^\ufeffid,/);
  });

  it('<file>.part planted as a link (dangling, to a file it would create): refused, nothing created', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'p.csv');
    const elsewhere = path.join(tempDir('svc-victim-'), 'made-through-the-link.csv');
    fs.symlinkSync(elsewhere, `${out}.part`);
    const r = await svcInProcess(['prospects', 'export', out], { env: env() });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^error: .*p\.csv\.part: is a symbolic link; svc writes an export's part file itself, never through a link$/m);
    expect(fs.existsSync(elsewhere)).toBe(false);
    expect(fs.existsSync(out)).toBe(false);
  });
});

/**
 * A write renamed into place replaced whatever was at the name: run as root (a container, a CI
 * job), `svc dedupe prospects --plan /dev/null` left a regular file of 0600 where the system's
 * /dev/null had been, and every later `> /dev/null` wrote into it (a trial). A pipe stands in for
 * the device here (mkfifo needs no root); nothing is written there, nor is it replaced.
 */
describe('a device or pipe at the name', () => {
  const fifo = () => {
    const f = path.join(tempDir('svc-fifo-'), 'plan.json');
    execFileSync('mkfifo', [f]);
    return f;
  };
  const stillFifo = (f: string) => expect(fs.lstatSync(f).isFIFO()).toBe(true);

  it('the owner-only writer refuses it, sync and async, and leaves no temporary file', async () => {
    const f = fifo();
    expect(() => writePrivateFileSync(f, 'x')).toThrow(/plan\.json is a pipe, not a file/);
    await expect(writeFileAtomic(f, 'x')).rejects.toThrow(/plan\.json is a pipe, not a file/);
    stillFifo(f);
    expect(fs.readdirSync(path.dirname(f))).toEqual(['plan.json']);
  });

  it('dedupe --plan, sync --db and sql --db refuse it (exit 2) and leave it as it was', async () => {
    const { sb, env } = await sandboxWithEnv({ seed: 10 });
    try {
      const e = env();
      const plan = fifo();
      const dedupe = await svcInProcess(['dedupe', 'prospects', '--plan', plan], { env: e });
      expect(dedupe.code, dedupe.stderr).toBe(2);
      expect(dedupe.stderr).toMatch(
        /^error: --plan .*plan\.json: is a pipe, not a file: the plan is written beside it and renamed into place$/m,
      );
      stillFifo(plan);
      const db = fifo();
      const mark = sb.requests.length;
      const sync = await svcInProcess(['sync', '--db', db, 'users'], { env: e });
      expect(sync.code, sync.stderr).toBe(2);
      expect(sync.stderr).toMatch(/^error: the mirror .*plan\.json is a pipe, not a file$/m);
      // Refused before the org's identity is read: nothing sent.
      expect(sb.requests.length).toBe(mark);
      const sql = await svcInProcess(['sql', '--db', db, 'select 1'], { env: e });
      expect(sql.code, sql.stderr).toBe(2);
      expect(sql.stderr).toMatch(/^error: the mirror .*plan\.json is a pipe, not a file$/m);
      stillFifo(db);
    } finally {
      await sb.close();
    }
  });
});
