/**
 * `svc runs list` is newest first by the time each run started, to the millisecond: run ids end
 * in random hex, so two runs of one second sorted by id come in a random order, and the README's
 * `svc runs list -o raw --query '[0].id'` picked the older one half the time. In-process against
 * the recording server: listing sends nothing.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dataDir } from '../../../../src/auth/config-dir.js';
import { RunRecordWriter, runsDir, type RunMeta } from '../../../../src/bulk/run/run-record.js';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

/** Writes a finished record of one row started at `at`. */
function record(dir: string, id: string, at: string): void {
  const meta: RunMeta = {
    k: 'meta',
    id,
    label: 'prospects update',
    argv: `svc prospects update --input ${id}.csv`,
    profile: 'default',
    owner: { api: server.baseUrl, command: 'prospects update' },
    who: 'test',
    at,
  };
  const w = RunRecordWriter.create(dir, meta, Date.now);
  w.write({ k: 'row', row: 1, key: '1', op: 'update', type: 'prospect', id: '1' });
  w.write({ k: 'done', row: 1, key: '1', status: 'updated', id: '1' });
  w.write({ k: 'end', at, counts: { updated: 1 } });
  w.close();
}

it('runs of the same second: newest first by when they started, not by the random end of the id', async () => {
  const env = server.env();
  const dir = runsDir(dataDir(env));
  // The trial's pair: the later run's id sorts below the earlier one's.
  record(dir, '20261129-203358-d64284', '2026-11-29T20:33:58.211Z');
  record(dir, '20261129-203358-484010', '2026-11-29T20:33:58.556Z');
  record(dir, '20261129-203357-ffffff', '2026-11-29T20:33:57.990Z');
  record(dir, '20261129-203359-000000', '2026-11-29T20:33:59.001Z');
  const r = await server.run(['runs', 'list', '-o', 'json'], env);
  expect(r.code, r.stderr).toBe(0);
  expect((JSON.parse(r.stdout) as { id: string }[]).map((x) => x.id)).toEqual([
    '20261129-203359-000000',
    '20261129-203358-484010',
    '20261129-203358-d64284',
    '20261129-203357-ffffff',
  ]);
  const first = await server.run(['runs', 'list', '-o', 'raw', '--query', '[0].id'], env);
  expect(first.stdout).toBe('20261129-203359-000000\n');
  expect(r.sent).toEqual([]);
});
