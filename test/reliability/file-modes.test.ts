/**
 * Every file svc writes that holds the org's data is readable by its owner alone, whatever the
 * umask: an export, a bulk run's --report and --failed files, a report's --html page (next to the
 * dedupe plan, the journals and the mirror, which already were). They were created 0644 (0666 for
 * the HTML page), readable by every user of the machine. Run in this process against an
 * in-process sandbox, under a umask that takes nothing away (000).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: Record<string, string>;
let dir: string;
let umask: number;
beforeAll(async () => {
  let mk: () => Record<string, string>;
  ({ sb, env: mk } = await sandboxWithEnv({ seed: 20 }));
  env = mk();
  dir = tempDir('svc-modes-');
  umask = process.umask(0);
});
afterAll(async () => {
  process.umask(umask);
  await sb.close();
});

const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

describe('files holding the org data are owner-only', () => {
  it('an export, in each format', async () => {
    for (const name of ['p.csv', 'p.ndjson']) {
      const file = path.join(dir, name);
      const r = await svcInProcess(['prospects', 'export', file], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(fs.readFileSync(file, 'utf8')).toContain('@');
      expect(mode(file), name).toBe('600');
    }
  });

  it("a bulk run's --report and --failed files", async () => {
    const input = path.join(dir, 'in.ndjson');
    fs.writeFileSync(
      input,
      `${JSON.stringify({ firstName: 'Ada', lastName: 'Modes' })}\n${JSON.stringify({ firstName: 'Bad', stageId: 'x' })}\n`,
    );
    const report = path.join(dir, 'report.ndjson');
    const failed = path.join(dir, 'failed.ndjson');
    const r = await svcInProcess(['prospects', 'create', '--input', input, '--report', report, '--failed', failed], { env });
    expect(r.stderr).toMatch(/1 (created|done)|created 1/);
    expect(fs.readFileSync(report, 'utf8')).toContain('"row"');
    expect(fs.readFileSync(failed, 'utf8')).toContain('Bad');
    expect(mode(report)).toBe('600');
    expect(mode(failed)).toBe('600');
  });

  it("a report's --html page", async () => {
    const file = path.join(dir, 'r.html');
    const r = await svcInProcess(['report', 'prospect', '1', '--html', file], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(mode(file)).toBe('600');
  });

  it("a report's --html page replaces what is at its name: never through a symlink, never in an old file's mode", async () => {
    const victim = path.join(dir, 'victim.txt');
    fs.writeFileSync(victim, 'theirs\n', { mode: 0o644 });
    const link = path.join(dir, 'link.html');
    fs.symlinkSync(victim, link);
    const old = path.join(dir, 'old.html');
    fs.writeFileSync(old, 'old\n', { mode: 0o644 });
    for (const file of [link, old]) {
      const r = await svcInProcess(['report', 'prospect', '1', '--html', file], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(fs.lstatSync(file).isFile(), file).toBe(true);
      expect(fs.readFileSync(file, 'utf8')).toContain('<html');
      expect(mode(file), file).toBe('600');
    }
    expect(fs.readFileSync(victim, 'utf8')).toBe('theirs\n');
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // A directory at the name is refused before a request, not replaced.
    const folder = path.join(dir, 'folder.html');
    fs.mkdirSync(folder);
    const r = await svcInProcess(['report', 'prospect', '1', '--html', folder], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--html ${folder}: is a directory, not a file`);
  });
});
