/**
 * The journal's lock: it appears whole (the owner inside) or not at all, a live or unknown owner
 * is never taken for stale, and of runs started at the same instant — on a free journal or on a
 * stale lock — exactly one holds it. Real processes, started together, run the real JournalWriter.
 *
 * The two races (free journal, stale lock) run at the same time, each on journals of its own: a
 * holder keeps the lock until every racer of its trial has tried, so a racer slowed by the other
 * race's processes can be late but never find the journal free (about 3.5 s each, 7 s in turn).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { JournalWriter } from '../../../src/bulk/run/journal.js';
import { ROOT, tempDir } from '../../helpers/run-svc.js';

const journalIn = (dir: string) => path.join(dir, 'in.csv.journal.ndjson');

/** A pid that is not running: a child that has exited (`true`, not a Node start: it costs ~1 ms). */
function deadPid(): number {
  return spawnSync('true').pid;
}

describe('in one process', () => {
  it('the lock holds its owner from the moment it exists, and no temporary file is left', () => {
    const dir = tempDir();
    const w = new JournalWriter(journalIn(dir));
    w.open();
    expect(fs.readFileSync(`${journalIn(dir)}.lock`, 'utf8')).toBe(`${process.pid}\n${os.hostname()}\n`);
    expect(fs.statSync(`${journalIn(dir)}.lock`).mode & 0o777).toBe(0o600);
    w.close();
    expect(fs.readdirSync(dir)).toEqual(['in.csv.journal.ndjson']);
  });

  it('an empty lock (a run that has just made it) is respected, not deleted', () => {
    const f = journalIn(tempDir());
    fs.writeFileSync(`${f}.lock`, '');
    expect(() => new JournalWriter(f).open()).toThrow(/another svc run is starting with this file/);
    expect(fs.existsSync(`${f}.lock`)).toBe(true);
  });

  it('a lock of another host is never taken for stale (its pid cannot be checked from here)', () => {
    const f = journalIn(tempDir());
    fs.writeFileSync(`${f}.lock`, `${deadPid()}\nsome-other-host\n`);
    expect(() => new JournalWriter(f).open()).toThrow(/another svc run \(pid \d+ on host some-other-host\) is using this journal/);
    expect(fs.existsSync(`${f}.lock`)).toBe(true);
  });

  it('a lock whose owner is dead on this host is taken over', () => {
    const f = journalIn(tempDir());
    fs.writeFileSync(`${f}.lock`, `${deadPid()}\n${os.hostname()}\n`);
    const w = new JournalWriter(f);
    w.open();
    expect(fs.readFileSync(`${f}.lock`, 'utf8')).toBe(`${process.pid}\n${os.hostname()}\n`);
    w.close();
    expect(fs.existsSync(`${f}.lock`)).toBe(false);
  });
});

describe('a file system without hard links', () => {
  it('the lock is made exclusively in place instead, whole, and still keeps a second run out', () => {
    const f = journalIn(tempDir());
    const noLinks = vi.spyOn(fs, 'linkSync').mockImplementation(() => {
      throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    });
    try {
      const w = new JournalWriter(f);
      w.open();
      expect(noLinks).toHaveBeenCalled();
      expect(fs.readFileSync(`${f}.lock`, 'utf8')).toBe(`${process.pid}\n${os.hostname()}\n`);
      fs.writeFileSync(`${f}.lock`, `${process.ppid}\n${os.hostname()}\n`);
      expect(() => new JournalWriter(f).open()).toThrow(/another svc run \(pid \d+\) is using this journal/);
      fs.writeFileSync(`${f}.lock`, `${process.pid}\n${os.hostname()}\n`);
      w.close();
      expect(fs.existsSync(`${f}.lock`)).toBe(false);
    } finally {
      noLinks.mockRestore();
    }
  });
});

describe.concurrent('runs started at the same instant, as processes', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = path.join(tempDir(), 'journal.mjs');
    await build({
      entryPoints: [path.join(ROOT, 'src/bulk/run/journal.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'silent',
    });
  });

  /**
   * Starts `n` processes that open one journal per trial at the same instant, trial after trial;
   * what each said per trial. One process per racer runs every trial (a Node start per trial cost
   * most of this file's CPU): trial t starts at a fixed instant, each process sleeping until just
   * before it and spinning only the last milliseconds. Each notes in a file beside the journal that
   * it has tried, and the one that holds the lock holds it until all `n` have (a fixed hold let a
   * process that started late on a busy machine find the journal free again); a trial that
   * overruns its slot only makes the next one start late, never a second holder.
   */
  async function race(files: string[], n: number): Promise<string[][]> {
    const slotMs = 250;
    const at = Date.now() + 500;
    const script = `
      const fs = await import('node:fs');
      const { JournalWriter } = await import(${JSON.stringify(bundle)});
      const files = ${JSON.stringify(files)};
      const said = [];
      for (let t = 0; t < files.length; t++) {
        const file = files[t];
        const tried = file + '.tried';
        const start = ${at} + t * ${slotMs};
        if (start - Date.now() > 5) await new Promise((r) => setTimeout(r, start - Date.now() - 5));
        while (Date.now() < start);
        const w = new JournalWriter(file);
        try {
          w.open();
        } catch (e) {
          fs.appendFileSync(tried, 'x');
          said.push('refused: ' + e.message);
          continue;
        }
        fs.appendFileSync(tried, 'x');
        w.write({ key: 'k' + process.pid, row: 1, status: 'created', id: process.pid });
        // Held until every other process has tried (10 s at most).
        for (let i = 0; i < 1000 && fs.readFileSync(tried, 'utf8').length < ${n}; i++) await new Promise((r) => setTimeout(r, 10));
        w.close();
        said.push('held');
      }
      process.stdout.write(JSON.stringify(said));`;
    const outs = await Promise.all(
      Array.from(
        { length: n },
        () =>
          new Promise<string[]>((resolve) => {
            const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
            let out = '';
            child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
            child.on('close', () => resolve(out ? JSON.parse(out) : []));
          }),
      ),
    );
    // Per trial, what each process said.
    return files.map((_, t) => outs.map((said) => said[t] ?? 'nothing'));
  }

  const check = (said: string[]) => {
    expect(
      said.filter((s) => s === 'held'),
      said.join(' | '),
    ).toHaveLength(1);
    for (const s of said.filter((x) => x !== 'held')) expect(s).toMatch(/^refused: .* another svc run \(pid \d+\) is using this journal$/);
  };

  it('two runs on a free journal, 12 trials: one holds it, the other is refused', async () => {
    const files = Array.from({ length: 12 }, () => journalIn(tempDir()));
    const trials = await race(files, 2);
    files.forEach((f, t) => {
      check(trials[t]!);
      expect(fs.readFileSync(f, 'utf8').trim().split('\n')).toHaveLength(1);
    });
  }, 60_000);

  it('three runs on a stale lock, 12 trials: one holds it, the others are refused', async () => {
    const files = Array.from({ length: 12 }, () => journalIn(tempDir()));
    for (const f of files) fs.writeFileSync(`${f}.lock`, `${deadPid()}\n${os.hostname()}\n`);
    const trials = await race(files, 3);
    files.forEach((f, t) => {
      check(trials[t]!);
      expect(fs.readFileSync(f, 'utf8').trim().split('\n')).toHaveLength(1);
      expect(fs.existsSync(`${f}.lock`)).toBe(false);
    });
  }, 60_000);
});
