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
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchEnv, runMeasured, stats } from './lib/measure.mjs';
import { SVC, startSandboxProcess } from './lib/sandbox-process.mjs';

const node = process.execPath;
const RECORDS = Number(process.env.RECORDS ?? 200_000);
const RUNS = Number(process.env.RUNS ?? 3);
const log = (m) => process.stderr.write(`[mirror bench] ${m}\n`);

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-mirror-'));
log(`starting a sandbox with ${RECORDS} prospects…`);
const sandbox = await startSandboxProcess({ seed: RECORDS });
try {
  const env = benchEnv({ SVC_CONFIG_DIR: join(dir, 'config'), SVC_BASE_URL: sandbox.baseUrl, SVC_TOKEN: sandbox.token });
  const list = [node, SVC, 'prospects', 'list', '--all', '-o', 'ndjson'];
  const sync = (i) => [node, SVC, 'sync', 'prospects', '--db', join(dir, `m${i}.sqlite`)];
  const rounds = { list: [], sync: [] };
  for (let i = 0; i < RUNS; i++) {
    log(`round ${i + 1} of ${RUNS}`);
    rounds.list.push(await runMeasured(list, { env, countLines: true }));
    rounds.sync.push(await runMeasured(sync(i), { env }));
  }
  if (rounds.list.some((r) => r.lines !== RECORDS)) throw new Error('the listing did not write every record');
  const db = join(dir, 'm0.sqlite');
  const sql = (q) => [node, SVC, 'sql', '--db', db, '-o', 'csv', q];
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
    syncPeakRssMb: Math.round(Math.max(...rounds.sync.map((r) => r.rssKb)) / 1024),
    listPeakRssMb: Math.round(Math.max(...rounds.list.map((r) => r.rssKb)) / 1024),
    groupByMs: stats(groupBy),
    selectOneMs: stats(startOnly),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}
