#!/usr/bin/env node
/**
 * Mirror benchmark (bench/README.md § The mirror): against a sandbox process with RECORDS
 * prospects (default 200,000),
 *  1. `svc sync prospects` into a fresh file against `svc prospects list --all -o ndjson >
 *     /dev/null` over the same records, interleaved in each round (the reference: the same pages
 *     fetched and written, no database), wall time, CPU time and peak RSS of each;
 *  2. a `GROUP BY` over the mirrored prospects through `svc sql`, and `select 1` for the cost of
 *     starting svc and opening the file;
 *  3. ingest alone: the records per second the sync's CPU adds over the listing's.
 * Targets (issue 28): sync ≤ 1.3× the listing, GROUP BY < 1 s, peak RSS < 200 MB, ingest ≥
 * 50,000 records/s. Run with the node under test: `node bench/mirror.mjs` (Node 20: the wasm
 * binding) or `/path/to/node26 bench/mirror.mjs` (node:sqlite). Prints JSON.
 *
 * `BASELINE=/path/to/other/bin/svc`: an A/B in the same run — that build's sync is measured in
 * each round too, interleaved with this one's (same sandbox, same machine load), as `baseline`.
 * `DB=postgres://…`: the syncs write into PostgreSQL (a fresh schema per run, dropped after)
 * instead of SQLite files; the `svc sql` timings then read it there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchEnv, runMeasured, stats } from './lib/measure.mjs';
import { SVC, startSandboxProcess } from './lib/sandbox-process.mjs';

const node = process.execPath;
const RECORDS = Number(process.env.RECORDS ?? 200_000);
const RUNS = Number(process.env.RUNS ?? 3);
const BASELINE = process.env.BASELINE;
const PG = process.env.DB;
const schema = (i, b) => `bench_${process.pid}_${b}${i}`;
const log = (m) => process.stderr.write(`[mirror bench] ${m}\n`);

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-mirror-'));
log(`starting a sandbox with ${RECORDS} prospects…`);
const sandbox = await startSandboxProcess({ seed: RECORDS });
try {
  const env = benchEnv({ SVC_CONFIG_DIR: join(dir, 'config'), SVC_BASE_URL: sandbox.baseUrl, SVC_TOKEN: sandbox.token });
  const list = [node, SVC, 'prospects', 'list', '--all', '-o', 'ndjson'];
  const target = (i, b) => (PG ? ['--db', PG, '--schema', schema(i, b)] : ['--db', join(dir, `${b}${i}.sqlite`)]);
  const sync = (i) => [node, SVC, 'sync', 'prospects', ...target(i, 'm')];
  const base = (i) => [node, BASELINE, 'sync', 'prospects', ...target(i, 'b')];
  const rounds = { list: [], sync: [], baseline: [] };
  for (let i = 0; i < RUNS; i++) {
    log(`round ${i + 1} of ${RUNS}`);
    rounds.list.push(await runMeasured(list, { env, countLines: true }));
    rounds.sync.push(await runMeasured(sync(i), { env }));
    if (BASELINE) rounds.baseline.push(await runMeasured(base(i), { env }));
  }
  if (rounds.list.some((r) => r.lines !== RECORDS)) throw new Error('the listing did not write every record');
  const sql = (q) => [node, SVC, 'sql', ...target(0, 'm'), '-o', 'csv', q];
  const groupBy = [];
  const startOnly = [];
  for (let i = 0; i < 5; i++) {
    groupBy.push((await runMeasured(sql('select title, count(*) from prospects group by 1 order by 2 desc'), { env })).ms);
    startOnly.push((await runMeasured(sql('select 1'), { env })).ms);
  }
  const med = (k, f) => stats(rounds[k].map(f)).median;
  const ratio = med('sync', (r) => r.ms) / med('list', (r) => r.ms);
  const extraCpuS = (med('sync', (r) => r.cpuMs) - med('list', (r) => r.cpuMs)) / 1000;
  const result = {
    node: process.version,
    records: RECORDS,
    listMs: stats(rounds.list.map((r) => r.ms)),
    syncMs: stats(rounds.sync.map((r) => r.ms)),
    syncToList: Number(ratio.toFixed(2)),
    listCpuMs: med('list', (r) => r.cpuMs),
    syncCpuMs: med('sync', (r) => r.cpuMs),
    ingestRecordsPerS: Math.round(RECORDS / Math.max(extraCpuS, 0.001)),
    // The records per second of the whole sync (wall): with PostgreSQL part of the ingest's work is
    // the server's, which the CPU time of svc does not see.
    syncRecordsPerS: Math.round(RECORDS / (med('sync', (r) => r.ms) / 1000)),
    ...(BASELINE
      ? {
          baseline: BASELINE,
          baselineSyncMs: stats(rounds.baseline.map((r) => r.ms)),
          baselineSyncToList: Number((med('baseline', (r) => r.ms) / med('list', (r) => r.ms)).toFixed(2)),
          baselineIngestRecordsPerS: Math.round(
            RECORDS / Math.max((med('baseline', (r) => r.cpuMs) - med('list', (r) => r.cpuMs)) / 1000, 0.001),
          ),
        }
      : {}),
    database: PG ? 'postgres' : 'sqlite',
    syncPeakRssMb: Math.round(Math.max(...rounds.sync.map((r) => r.rssKb)) / 1024),
    ...(BASELINE ? { baselinePeakRssMb: Math.round(Math.max(...rounds.baseline.map((r) => r.rssKb)) / 1024) } : {}),
    listPeakRssMb: Math.round(Math.max(...rounds.list.map((r) => r.rssKb)) / 1024),
    groupByMs: stats(groupBy),
    selectOneMs: stats(startOnly),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  if (PG) {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: PG });
    await client.connect();
    for (const b of ['m', 'b']) for (let i = 0; i < RUNS; i++) await client.query(`DROP SCHEMA IF EXISTS ${schema(i, b)} CASCADE`);
    await client.end();
  }
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}
