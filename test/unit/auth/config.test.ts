/**
 * The config store: 0600/0700 on creation, repair of looser modes (only of what the user owns,
 * never through a symlink to someone else's or a shared directory), atomic writes, fresh reads,
 * profile names looked up as own keys only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openConfigStore, secureConfigFiles } from '../../../src/auth/config.js';
import { tempDir } from '../../helpers/run-svc.js';

const mode = (p: string) => (fs.statSync(p).mode & 0o777).toString(8);

describe('config store', () => {
  it('creates the directory 0700 and the file 0600, even under a permissive umask', () => {
    const dir = path.join(tempDir(), 'a', 'svc');
    const old = process.umask(0o000);
    try {
      const store = openConfigStore({ SVC_CONFIG_DIR: dir });
      store.set('default', { baseUrl: 'http://x.test/api/v2', accessToken: 'secret-token' });
      expect(mode(dir)).toBe('700');
      expect(mode(store.path)).toBe('600');
      expect(store.repaired).toEqual([]);
    } finally {
      process.umask(old);
    }
  });

  it('repairs a world-readable file and directory when opened, and says so', () => {
    const dir = tempDir();
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(file, JSON.stringify({ profiles: {} }));
    fs.chmodSync(file, 0o644);
    fs.chmodSync(dir, 0o755);
    const store = openConfigStore({ SVC_CONFIG_DIR: dir });
    expect(mode(dir)).toBe('700');
    expect(mode(file)).toBe('600');
    expect(store.repaired).toEqual([`${dir} (was 755, now 700)`, `${file} (was 644, now 600)`]);
    expect(secureConfigFiles(dir, file)).toEqual([]);
  });

  it('writes by temp file and rename (a new inode each time, no temp file left) and keeps 0600', () => {
    const dir = tempDir();
    const store = openConfigStore({ SVC_CONFIG_DIR: dir });
    store.set('default', { accessToken: 'one' });
    const before = fs.statSync(store.path).ino;
    store.set('default', { accessToken: 'two' });
    expect(fs.statSync(store.path).ino).not.toBe(before);
    expect(mode(store.path)).toBe('600');
    expect(fs.readdirSync(dir)).toEqual(['config.json']);
  });

  it('every read goes to disk: a write by another process is seen at once', () => {
    const dir = tempDir();
    const a = openConfigStore({ SVC_CONFIG_DIR: dir });
    const b = openConfigStore({ SVC_CONFIG_DIR: dir });
    a.set('default', { accessToken: 'first' });
    expect(b.get('default')?.accessToken).toBe('first');
    b.set('default', { accessToken: 'second' });
    expect(a.get('default')?.accessToken).toBe('second');
  });

  it('profile choice: --profile, then SVC_PROFILE, then the stored current one, then default', () => {
    const dir = tempDir();
    const s = openConfigStore({ SVC_CONFIG_DIR: dir });
    expect(s.currentName()).toBe('default');
    s.set('work', {});
    s.use('work');
    expect(s.currentName()).toBe('work');
    expect(s.storedCurrent()).toBe('work');
    expect(openConfigStore({ SVC_CONFIG_DIR: dir, SVC_PROFILE: 'ci' }).currentName()).toBe('ci');
    expect(openConfigStore({ SVC_CONFIG_DIR: dir, SVC_PROFILE: 'ci' }, 'flag').currentName()).toBe('flag');
    expect(s.remove('work')).toBe(true);
    expect(s.storedCurrent()).toBeUndefined();
    expect(s.remove('work')).toBe(false);
  });

  it('profile names are own keys only: constructor, __proto__ and friends are no profiles', () => {
    const s = openConfigStore({ SVC_CONFIG_DIR: tempDir() });
    s.set('work', { baseUrl: 'http://x.test/api/v2' });
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect([name, s.get(name)]).toEqual([name, undefined]);
      expect([name, s.remove(name)]).toEqual([name, false]);
    }
    expect(s.names()).toEqual(['work']);
  });
});

/** Another user's uid to chown to: only root can give a file away. */
const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const fullMode = (p: string) => (fs.statSync(p).mode & 0o7777).toString(8);

describe('config directory behind a symlink', () => {
  if (!isRoot) console.warn('config.test: not root, cannot chown to another user: the "owned by another user" cases are skipped');

  it.skipIf(!isRoot)('a symlink to a shared directory of another user: refused, its mode left alone', () => {
    const shared = tempDir('svc-shared-');
    fs.chmodSync(shared, 0o1777);
    fs.chownSync(shared, NOBODY, NOBODY);
    const link = path.join(tempDir(), 'svc');
    fs.symlinkSync(shared, link);
    expect(() => secureConfigFiles(link, path.join(link, 'config.json'))).toThrow(
      `config directory ${link} (symlink to ${shared}) belongs to another user (uid ${NOBODY}): refusing to keep tokens there or to change its permissions`,
    );
    expect(fullMode(shared)).toBe('1777');
  });

  it.skipIf(!isRoot)('a directory or a config file of another user: refused, not repaired', () => {
    const theirs = tempDir();
    fs.chmodSync(theirs, 0o755);
    fs.chownSync(theirs, NOBODY, NOBODY);
    expect(() => openConfigStore({ SVC_CONFIG_DIR: theirs })).toThrow(/^config directory .+ belongs to another user \(uid 65534\)/);
    expect(fullMode(theirs)).toBe('755');
    const mine = tempDir();
    const file = path.join(mine, 'config.json');
    fs.writeFileSync(file, '{"profiles":{}}', { mode: 0o644 });
    fs.chownSync(file, NOBODY, NOBODY);
    expect(() => secureConfigFiles(mine, file)).toThrow(/^config file .+ belongs to another user/);
    expect(fullMode(file)).toBe('644');
  });

  it("a shared (sticky) directory, even one of the user's: refused, its mode left alone", () => {
    const shared = tempDir('svc-shared-');
    fs.chmodSync(shared, 0o1777);
    const link = path.join(tempDir(), 'svc');
    fs.symlinkSync(shared, link);
    expect(() => secureConfigFiles(link, path.join(link, 'config.json'))).toThrow(
      `config directory ${link} (symlink to ${shared}) is a shared directory (mode 1777): refusing to keep tokens there or to change its permissions`,
    );
    expect(fullMode(shared)).toBe('1777');
  });

  it("a symlink to a directory of the user's: repaired, and the warning names both", () => {
    const target = tempDir();
    fs.chmodSync(target, 0o755);
    const link = path.join(tempDir(), 'svc');
    fs.symlinkSync(target, link);
    expect(secureConfigFiles(link, path.join(link, 'config.json'))).toEqual([`${link} (symlink to ${target}) (was 755, now 700)`]);
    expect(fullMode(target)).toBe('700');
  });
});
