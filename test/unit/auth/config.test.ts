/** The config store: 0600/0700 on creation, repair of looser modes, atomic writes, fresh reads. */
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
});
