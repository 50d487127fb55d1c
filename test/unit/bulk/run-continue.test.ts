/**
 * Which record a rerun continues (commands/bulk-run/run-continue.ts), on records written in a
 * temporary runs directory: the latest run of the command, org and journal decides — by the time
 * it started, not its id — and is continued only when unfinished and not undone; a record that
 * fails its check, or of another journal, org, command or shard, is not; a first line longer than the
 * first read (a long command line) is still read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { journalKey, unfinishedRunOf } from '../../../src/commands/bulk-run/run-continue.js';
import { RunRecordWriter, runFile, type RunMeta } from '../../../src/bulk/run/run-record.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-run-continue-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const owner = { api: 'https://api.example.test', org: '7', command: 'prospects update' };
const journal = 'x.csv.journal.ndjson';

/** Writes a record: `end` undefined leaves it cut short (killed). */
function run(id: string, at: string, end?: Record<string, number>, extra: Partial<RunMeta> = {}, undoneBy?: string): void {
  const meta: RunMeta = {
    k: 'meta',
    id,
    label: 'prospects update',
    argv: 'svc prospects update --input x.csv',
    profile: 'default',
    owner,
    who: 'me',
    at,
    journal: journalKey(journal),
    ...extra,
  };
  const w = RunRecordWriter.create(dir, meta, Date.now);
  w.write({ k: 'row', row: 1, key: '1', op: 'update', type: 'prospect', id: '5' });
  if (end) w.write({ k: 'end', at, counts: end });
  if (undoneBy) w.write({ k: 'undone', by: undoneBy, at });
  w.close();
}

const find = () => unfinishedRunOf(dir, 'prospects update', journal, owner)?.meta.id;

it('continues the latest run of the journal when it was killed, stopped or ended with rows failed or in doubt', () => {
  run('20260101-000000-aaaaaa', '2026-01-01T00:00:00.100Z');
  expect(find()).toBe('20260101-000000-aaaaaa');
  run('20260101-000001-000000', '2026-01-01T00:00:01.000Z', { updated: 1, failed: 1 });
  expect(find()).toBe('20260101-000001-000000');
  run('20260101-000002-000000', '2026-01-01T00:00:02.000Z', { updated: 1, unknown: 1 });
  expect(find()).toBe('20260101-000002-000000');
});

it('never continues a run that finished, nor one of another journal, org or command', () => {
  run('20260101-000000-000000', '2026-01-01T00:00:00.000Z');
  run('20260101-000001-000000', '2026-01-01T00:00:01.000Z', { updated: 2 });
  expect(find()).toBeUndefined();
  expect(unfinishedRunOf(dir, 'prospects update', 'other.journal.ndjson', owner)).toBeUndefined();
  fs.rmSync(runFile(dir, '20260101-000001-000000'));
  expect(unfinishedRunOf(dir, 'prospects update', journal, { ...owner, org: '8' })).toBeUndefined();
  expect(unfinishedRunOf(dir, 'prospects delete', journal, owner)).toBeUndefined();
  expect(find()).toBe('20260101-000000-000000');
});

it('continues the run of a shard only by a rerun of that shard', () => {
  run('20260101-000000-000000', '2026-01-01T00:00:00.000Z', undefined, { shard: '1/2' });
  expect(find()).toBeUndefined();
  expect(unfinishedRunOf(dir, 'prospects update', journal, owner, '2/2')).toBeUndefined();
  expect(unfinishedRunOf(dir, 'prospects update', journal, owner, '1/2')?.meta.id).toBe('20260101-000000-000000');
});

it('orders runs of one second by their start, not their ids', () => {
  // The later run has the smaller random part of its id.
  run('20260101-000000-ffffff', '2026-01-01T00:00:00.100Z');
  run('20260101-000000-000001', '2026-01-01T00:00:00.900Z', { updated: 1 });
  expect(find()).toBeUndefined();
});

it('does not continue a run undone, nor one whose record fails its check', () => {
  run('20260101-000000-000000', '2026-01-01T00:00:00.000Z');
  const file = runFile(dir, '20260101-000000-000000');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"id":"5"', '"id":"6"'));
  expect(find()).toBeUndefined();
  run('20260101-000001-000000', '2026-01-01T00:00:01.000Z');
  expect(find()).toBe('20260101-000001-000000');
  run('20260101-000002-000000', '2026-01-01T00:00:02.000Z', undefined, {}, '20260101-000003-000000');
  expect(find()).toBeUndefined();
});

it('reads a first line longer than the first read', () => {
  run('20260101-000000-000000', '2026-01-01T00:00:00.000Z', undefined, { argv: `svc prospects update ${'x'.repeat(10_000)}` });
  expect(find()).toBe('20260101-000000-000000');
});
