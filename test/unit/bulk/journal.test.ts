/** The journal: append, read back, torn last lines, the lock; row keys; shards. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { JournalWriter, defaultJournalPath, readJournal } from '../../../src/bulk/run/journal.js';
import { RowKeys } from '../../../src/bulk/rows/row-key.js';
import { inShard, parseShard } from '../../../src/bulk/run/shard.js';
import { tempDir } from '../../helpers/run-svc.js';

const file = () => path.join(tempDir('svc-journal-'), 'in.csv.journal.ndjson');

describe('journal', () => {
  it('appends one line per entry and reads back the latest entry per key', async () => {
    const f = file();
    const w = new JournalWriter(f, () => Date.parse('2025-01-02T03:04:05Z'));
    w.open();
    w.write({ key: 'a', row: 1, status: 'pending' });
    w.write({ key: 'b', row: 2, status: 'updated', id: 7 });
    w.write({ key: 'a', row: 1, status: 'created', id: 42 });
    w.close();
    const lines = fs
      .readFileSync(f, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[2]).toEqual({ key: 'a', row: 1, status: 'created', id: 42, at: '2025-01-02T03:04:05.000Z' });
    const s = await readJournal(f);
    expect(s.entries.get('a')?.status).toBe('created');
    expect(s.entries.get('a')?.id).toBe(42);
    expect(s.entries.get('b')?.id).toBe(7);
    expect(s.tornTail).toBe(false);
    expect(s.damagedLines).toBe(0);
    expect(fs.statSync(f).mode & 0o777).toBe(0o600);
  });

  it('a run whose journal another run wrote to between its read and its lock is refused, nothing appended', async () => {
    // Two copies of one command: both read the journal (empty, or as an earlier run left it),
    // the first takes the lock, does every row and lets go; the second then takes the lock. Its
    // plan, made from the read, would do every row again.
    for (const before of ['', '{"key":"z","row":9,"status":"created","id":3,"at":"x"}\n']) {
      const f = file();
      if (before) fs.writeFileSync(f, before);
      const first = await readJournal(f);
      const second = await readJournal(f);
      expect(second.bytes).toBe(Buffer.byteLength(before));
      const a = new JournalWriter(f);
      a.open(first.bytes);
      a.write({ key: 'a', row: 1, status: 'created', id: 42 });
      a.close();
      const written = fs.readFileSync(f, 'utf8');
      const b = new JournalWriter(f);
      expect(() => b.open(second.bytes)).toThrow(/another svc run wrote to it while this run was reading it/);
      expect(fs.readFileSync(f, 'utf8')).toBe(written);
      // The lock was let go: a rerun reads what the first run did and goes on.
      const again = await readJournal(f);
      expect(again.entries.get('a')?.status).toBe('created');
      const c = new JournalWriter(f);
      c.open(again.bytes);
      c.close();
    }
  });

  it('ignores a torn last line and starts the next entry on a fresh line', async () => {
    const f = file();
    fs.writeFileSync(f, '{"key":"a","row":1,"status":"created","id":1,"at":"x"}\n{"key":"b","row":2,"sta');
    const s = await readJournal(f);
    expect([...s.entries.keys()]).toEqual(['a']);
    expect(s.tornTail).toBe(true);
    const w = new JournalWriter(f);
    w.open();
    w.write({ key: 'b', row: 2, status: 'created', id: 2 });
    w.close();
    const again = await readJournal(f);
    expect(again.entries.get('b')?.id).toBe(2);
    expect(again.damagedLines).toBe(1);
  });

  it('a missing journal is empty; the default path sits beside the input', async () => {
    expect((await readJournal('/nonexistent/dir/j.ndjson')).entries.size).toBe(0);
    expect(defaultJournalPath('/data/leads.csv')).toBe('/data/leads.csv.journal.ndjson');
  });

  it('a write that fails (a full disk) stops the run with the file and the cause, exit 1', () => {
    const f = file();
    const w = new JournalWriter(f);
    w.open();
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
    const spy = vi.spyOn(fs, 'writeSync').mockImplementation(() => {
      throw full;
    });
    try {
      expect(() => w.write({ key: 'a', row: 1, status: 'pending' })).toThrow(
        expect.objectContaining({ exitCode: 1, message: `--journal ${f}: cannot write the journal: no space left on device (ENOSPC)` }),
      );
    } finally {
      spy.mockRestore();
      w.close();
    }
  });

  it('refuses a directory or a device as the journal (a device would be read forever)', async () => {
    await expect(readJournal(tempDir())).rejects.toThrow(/is a directory; the journal must be a file$/);
    await expect(readJournal('/dev/zero')).rejects.toThrow(/--journal \/dev\/zero: is not a regular file/);
    expect(() => new JournalWriter('/dev/null').open()).toThrow(/is not a regular file/);
  });

  it('refuses a journal locked by a live process and takes over a stale lock', () => {
    const f = file();
    fs.writeFileSync(`${f}.lock`, `${process.ppid}\n`);
    expect(() => new JournalWriter(f).open()).toThrow(/another svc run \(pid \d+\) is using this journal/);
    fs.writeFileSync(`${f}.lock`, '999999999\n');
    const w = new JournalWriter(f);
    w.open();
    expect(fs.readFileSync(`${f}.lock`, 'utf8').split('\n')[0]).toBe(String(process.pid));
    w.close();
    expect(fs.existsSync(`${f}.lock`)).toBe(false);
  });
});

describe('row keys', () => {
  it('depend on scope and content, not position; identical rows get #2, #3', () => {
    const a = new RowKeys('create prospect');
    const b = new RowKeys('create prospect');
    const k1 = a.next({ firstName: 'Ada' });
    const k2 = a.next({ firstName: 'Grace' });
    const k3 = a.next({ firstName: 'Ada' });
    expect(k3).toBe(`${k1}#2`);
    // Reordered input: same keys.
    expect(b.next({ firstName: 'Grace' })).toBe(k2);
    expect(b.next({ firstName: 'Ada' })).toBe(k1);
    expect(new RowKeys('update prospect').next({ firstName: 'Ada' })).not.toBe(k1);
  });
});

describe('--shard', () => {
  it('parses i/n and rejects nonsense', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    for (const bad of ['0/3', '4/3', '1/0', 'a/b', '2', '1/3/4']) expect(() => parseShard(bad)).toThrow(/--shard/);
  });

  it('the n shards take every row exactly once', () => {
    for (const n of [1, 2, 3, 7]) {
      const owners = new Map<number, number>();
      for (let row = 1; row <= 100; row++) {
        for (let i = 1; i <= n; i++) if (inShard({ index: i, count: n }, row)) owners.set(row, (owners.get(row) ?? 0) + 1);
      }
      expect([...owners.values()].every((c) => c === 1)).toBe(true);
      expect(owners.size).toBe(100);
    }
    expect(inShard(undefined, 5)).toBe(true);
  });
});
