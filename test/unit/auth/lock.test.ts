/** The inter-process lock file: exclusion across processes, stale locks, safe release. */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { acquireLock, LockTimeoutError, staleReason, withLock } from '../../../src/auth/lock.js';
import { ROOT, tempDir } from '../../helpers/run-svc.js';

const lockIn = (dir: string) => path.join(dir, 'config.json.lock');
const write = (file: string, owner: object) => fs.writeFileSync(file, JSON.stringify(owner));

/** A pid that is not running: a child that has exited (`true`, not a Node start: it costs ~1 ms). */
function deadPid(): number {
  return spawnSync('true').pid;
}

describe('in one process', () => {
  it('a second taker waits until the first releases; the file is gone afterwards', async () => {
    const file = lockIn(tempDir());
    const order: string[] = [];
    const release = await acquireLock(file);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid, host: os.hostname() });
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    const second = withLock(file, async () => order.push('second'));
    await new Promise((r) => setTimeout(r, 100));
    order.push('first done');
    release();
    await second;
    expect(order).toEqual(['first done', 'second']);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('gives up after timeoutMs naming the holder', async () => {
    const file = lockIn(tempDir());
    const release = await acquireLock(file);
    const err = await acquireLock(file, { timeoutMs: 150 }).catch((e) => e);
    expect(err).toBeInstanceOf(LockTimeoutError);
    expect(err.message).toContain(`held by pid ${process.pid}`);
    release();
  });

  it('release never deletes a lock that another holder has taken since', async () => {
    const file = lockIn(tempDir());
    const release = await acquireLock(file);
    write(file, { pid: process.pid, host: os.hostname(), createdAt: Date.now(), nonce: 'someone-else' });
    release();
    expect(fs.existsSync(file)).toBe(true);
  });
});

describe('stale locks', () => {
  it('a lock of a pid that is gone is broken at once', async () => {
    const file = lockIn(tempDir());
    write(file, { pid: deadPid(), host: os.hostname(), createdAt: Date.now(), nonce: 'x' });
    expect(staleReason(file, 120_000)).toMatch(/^pid \d+ is gone$/);
    const started = Date.now();
    const release = await acquireLock(file, { timeoutMs: 2_000 });
    expect(Date.now() - started).toBeLessThan(1_000);
    release();
  });

  it('a lock of a live process is respected until it is older than staleMs', async () => {
    const file = lockIn(tempDir());
    write(file, { pid: process.ppid, host: os.hostname(), createdAt: Date.now(), nonce: 'x' });
    expect(staleReason(file, 120_000)).toBeUndefined();
    write(file, { pid: process.ppid, host: 'another-host', createdAt: Date.now() - 200_000, nonce: 'x' });
    expect(staleReason(file, 120_000)).toBe('older than 120 s');
  });

  it('an unreadable lock file is stale only once it is a few seconds old', () => {
    const file = lockIn(tempDir());
    fs.writeFileSync(file, '');
    expect(staleReason(file, 120_000)).toBeUndefined();
    const old = new Date(Date.now() - 10_000);
    fs.utimesSync(file, old, old);
    expect(staleReason(file, 120_000)).toBe('unreadable lock file');
  });
});

describe('across processes', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = path.join(tempDir(), 'lock.mjs');
    await build({
      entryPoints: [path.join(ROOT, 'src/auth/lock.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'silent',
    });
  });

  it('six processes incrementing a counter under the lock lose no update', async () => {
    const dir = tempDir();
    const counter = path.join(dir, 'counter');
    fs.writeFileSync(counter, '0');
    const script = `
      import fs from 'node:fs';
      const { withLock } = await import(${JSON.stringify(bundle)});
      for (let i = 0; i < 15; i++) {
        await withLock(${JSON.stringify(lockIn(dir))}, async () => {
          const n = Number(fs.readFileSync(${JSON.stringify(counter)}, 'utf8'));
          await new Promise((r) => setTimeout(r, 2));
          fs.writeFileSync(${JSON.stringify(counter)}, String(n + 1));
        }, { pollMs: 5 });
      }`;
    const codes = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          new Promise<number | null>((resolve) =>
            spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' }).on('close', resolve),
          ),
      ),
    );
    expect(codes).toEqual([0, 0, 0, 0, 0, 0]);
    expect(fs.readFileSync(counter, 'utf8')).toBe('90');
    expect(fs.existsSync(lockIn(dir))).toBe(false);
  });

  it('a process killed while holding the lock does not block the next one', async () => {
    const dir = tempDir();
    const script = `const { acquireLock } = await import(${JSON.stringify(bundle)}); await acquireLock(${JSON.stringify(lockIn(dir))}); process.stdout.write('held'); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((r) => child.stdout!.once('data', r));
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));
    expect(fs.existsSync(lockIn(dir))).toBe(true);
    const release = await acquireLock(lockIn(dir), { timeoutMs: 2_000 });
    release();
  });
});
