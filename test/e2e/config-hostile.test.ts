/**
 * A hostile config: a config directory that is a symlink to a shared directory (refused, its
 * mode untouched), to one of the user's (repaired, and the warning says where) or to nothing
 * (one clear line). That profile names which are Object.prototype's keys (`constructor`,
 * `__proto__`) are no profiles is checked in-process in test/unit/commands/auth/usage.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCleanFailure } from '../helpers/reliability.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';

const isRoot = process.getuid?.() === 0;
const fullMode = (p: string) => (fs.statSync(p).mode & 0o7777).toString(8);

/** A symlink in a fresh directory pointing at `target`. */
function linkTo(target: string): string {
  const link = path.join(tempDir(), 'svc');
  fs.symlinkSync(target, link);
  return link;
}

describe('config directory behind a symlink', () => {
  if (!isRoot) console.warn('config-hostile: not root, cannot chown to another user: the "another user\'s directory" case is skipped');

  it.skipIf(!isRoot)("a symlink to another user's shared 1777 directory: exit 2, its mode left alone, nothing written", async () => {
    const shared = tempDir('svc-shared-');
    fs.chmodSync(shared, 0o1777);
    fs.chownSync(shared, 65534, 65534);
    const link = linkTo(shared);
    const r = await svcInProcess(['profiles', 'list'], { env: { SVC_CONFIG_DIR: link } });
    expectCleanFailure(
      r,
      2,
      new RegExp(
        `^error: config directory ${link} \\(symlink to ${shared}\\) belongs to another user \\(uid 65534\\): refusing to keep tokens there`,
      ),
    );
    expect(r.stderr).toMatch(/hint: point SVC_CONFIG_DIR at a directory of your own/);
    expect(fullMode(shared)).toBe('1777');
    expect(fs.readdirSync(shared)).toEqual([]);
  });

  it('a symlink to a shared directory the user owns: refused too (a login is not stored there)', async () => {
    const shared = tempDir('svc-shared-');
    fs.chmodSync(shared, 0o1777);
    const r = await svcInProcess(['login', '--with-token', '--base-url', 'http://127.0.0.1:1/api/v2'], {
      env: { SVC_CONFIG_DIR: linkTo(shared) },
      input: 'some-token-0123456789\n',
    });
    expectCleanFailure(r, 2, /is a shared directory \(mode 1777\): refusing to keep tokens there/);
    expect(fullMode(shared)).toBe('1777');
  });

  it("a symlink to a directory of the user's: repaired, the warning names the link and its target", async () => {
    const target = tempDir();
    fs.chmodSync(target, 0o755);
    const link = linkTo(target);
    const r = await svcInProcess(['profiles', 'list', '-o', 'json'], { env: { SVC_CONFIG_DIR: link } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`warning: config permissions were too open, repaired: ${link} (symlink to ${target}) (was 755, now 700)\n`);
    expect(fullMode(target)).toBe('700');
  });

  it('a dangling symlink: exit 2 with one line saying where it points, no crash', async () => {
    const link = linkTo(path.join(tempDir(), 'gone', 'svc'));
    const r = await svcInProcess(['profiles', 'list'], { env: { SVC_CONFIG_DIR: link } });
    expectCleanFailure(
      r,
      2,
      new RegExp(
        `^error: config directory ${link.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(symlink to .+/gone/svc, which does not exist\\): cannot create it \\(ENOENT\\)$`,
      ),
    );
  });
});
