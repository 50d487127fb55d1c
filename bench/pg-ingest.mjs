#!/usr/bin/env node
/**
 * Ingest into PostgreSQL from recorded pages (issue 33: ≥ 20,000 records/s), in-process: the
 * pages of RECORDS prospects (default 20,000) are fetched once from a sandbox process and kept
 * as their bytes; then in each round the mirror's store (src/mirror/store.ts, bundled from the
 * source by esbuild) writes them into a fresh schema of `DB=postgres://…` page by page, as
 * `svc sync` does (the listing's parser, `commitPage`: one transaction a page). Measured per round: wall time,
 * svc's CPU (this process) and the server's (the CPU of the connection's backend process, read
 * from /proc: the server must be local). The reference in the same rounds: the same pages
 * parsed and each record written back as JSON (the plain loop of bench/lib/reference-loop.mjs,
 * without the network).
 *
 * `BASELINE_SRC=/path/to/other/src`: that source's store is bundled too and measured in each
 * round, interleaved (an A/B in one run); several separated by `:` (`baseline`, `baseline2`, …:
 * a copy of this source among them measures the noise). Usage:
 *   DB=postgres://user:pw@127.0.0.1:5432/db [RECORDS=20000] [RUNS=3] [BASELINE_SRC=…] node bench/pg-ingest.mjs
 * `WORKER=1` adds `this_worker`: this source's store, each page parsed and prepared (its rows,
 * links and seen ids: `MirrorStore.preparePage`) in a worker thread running ahead, the main
 * thread only writing (`commitPrepared`): what overlapping svc's work with the server's on two
 * cores gives (the process's CPU counts both threads).
 * Prints JSON.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import pg from 'pg';
import { loadSrc } from './lib/load-src.mjs';
import { stats } from './lib/measure.mjs';
import { recordProspectPages } from './lib/record-pages.mjs';
import { ROOT } from './lib/sandbox-process.mjs';

if (!isMainThread) {
  await prepareInWorker();
  // The worker's module goes no further: it answers the main thread's messages until told to exit.
  await new Promise(() => {});
}

/** The worker of `WORKER=1`: prepares every page of a round, in order, and posts each. */
async function prepareInWorker() {
  const { src, pages } = workerData;
  const { MirrorStore, tableSpec, findResource, parseCollection, PageScanner } = (await storeOf(src, 'worker')).mod;
  const scanner = new PageScanner();
  const spec = tableSpec(findResource('prospects'));
  // A store only for its page preparation (no database work here): a throwaway SQLite file.
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-ingest-worker-'));
  const store = await MirrorStore.open({ kind: 'file', file: join(dir, 'm.sqlite') }, { baseUrl: 'x', orgId: 'x', orgName: 'x' });
  parentPort.on('message', async (m) => {
    if (m === 'exit') {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }
    for (const [i, body] of pages.slice(0, m.go).entries()) {
      const records = parseCollection(Buffer.from(body), undefined, scanner).data;
      const prepared = store.preparePage(spec, records, 'full');
      parentPort.postMessage({ i, n: records.length, cursor: String(records[records.length - 1].id), prepared });
    }
  });
}

const PG = process.env.DB;
if (!PG) throw new Error('DB=postgres://… is required');
const RECORDS = Number(process.env.RECORDS ?? 20_000);
const RUNS = Number(process.env.RUNS ?? 3);
const BASELINE_SRC = process.env.BASELINE_SRC;
const BASELINES = (BASELINE_SRC ?? '').split(':').filter(Boolean);
const log = (m) => process.stderr.write(`[pg ingest bench] ${m}\n`);

/** The store of a source tree (its src/ folder), bundled into one module (packages left to node_modules). */
async function storeOf(src, name) {
  const mod = await loadSrc(src, `pg-ingest-${name}`, [
    "export { MirrorStore } from './mirror/store.js';",
    "export { tableSpec } from './mirror/naming.js';",
    "export { findResource } from './registry/index.js';",
    "export { parseCollection } from './listing/page-parse.js';",
    "export { PageScanner } from './listing/relationship-scan.js';",
  ]);
  return { name, mod };
}

/** CPU ms (user + system) of a local process, from /proc. */
function procCpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return ((Number(rest[11]) + Number(rest[12])) * 1000) / 100;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const admin = new pg.Client({ connectionString: PG });
await admin.connect();
const svcBackends = async () =>
  new Set((await admin.query("SELECT pid FROM pg_stat_activity WHERE application_name = 'svc'")).rows.map((r) => r.pid));

/** One ingest of the recorded pages into a fresh schema; wall, svc CPU and server CPU in ms. */
async function ingest(variant, pages, baseUrl, schema) {
  const { MirrorStore, tableSpec, findResource, parseCollection, PageScanner } = variant.mod;
  const scanner = new PageScanner();
  const spec = tableSpec(findResource('prospects'));
  const before = await svcBackends();
  const store = await MirrorStore.open({ kind: 'postgres', url: PG, schema }, { baseUrl, orgId: 'bench', orgName: 'bench' });
  const backend = [...(await svcBackends())].find((p) => !before.has(p));
  try {
    await store.prepare(spec, () => {});
    const now = new Date().toISOString();
    await store.startRun(spec.table, 'full', null, now, null);
    const server0 = procCpuMs(backend);
    const cpu0 = cpuMs();
    const t0 = performance.now();
    let runMax = null;
    let wrote = 0;
    if (variant.worker) {
      // Pages prepared in the worker as fast as it can; written here in order as they come.
      const ready = [];
      let wake;
      const onMessage = (m) => {
        ready[m.i] = m;
        wake?.();
      };
      variant.worker.on('message', onMessage);
      variant.worker.postMessage({ go: pages.length });
      for (let i = 0; i < pages.length; i++) {
        while (!ready[i]) await new Promise((resolve) => (wake = resolve));
        const { n, cursor, prepared } = ready[i];
        ready[i] = undefined;
        wrote += n;
        runMax = (await store.commitPrepared(spec, prepared, cursor, runMax)).runMax;
      }
      variant.worker.off('message', onMessage);
    } else
      for (const body of pages) {
        // Parsed from its bytes by the listing's parser, as \`svc sync\` reads a page.
        const records = parseCollection(body, undefined, scanner).data;
        wrote += records.length;
        runMax = (await store.commitPage(spec, records, String(records[records.length - 1].id), runMax, 'full')).runMax;
      }
    const out = { ms: performance.now() - t0, cpuMs: cpuMs() - cpu0, serverCpuMs: procCpuMs(backend) - server0 };
    const n = Number((await admin.query(`SELECT count(*)::int AS n FROM ${schema}.${spec.table}`)).rows[0].n);
    if (n !== wrote) throw new Error(`${variant.name}: ${n} rows of ${wrote}`);
    return out;
  } finally {
    await store.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}

/** The reference: the same pages parsed and each record written back as JSON, in-process. */
function reference(pages) {
  const cpu0 = cpuMs();
  const t0 = performance.now();
  let bytes = 0;
  for (const body of pages) {
    const { data } = JSON.parse(body.toString());
    let chunk = '';
    for (const r of data) chunk += `${JSON.stringify(r)}\n`;
    bytes += chunk.length;
  }
  if (bytes === 0) throw new Error('nothing written');
  return { ms: performance.now() - t0, cpuMs: cpuMs() - cpu0 };
}

const variants = [];
try {
  const { pages, baseUrl } = await recordProspectPages(RECORDS, log);
  variants.push(await storeOf(join(ROOT, 'src'), 'this'));
  if (process.env.WORKER === '1') {
    const worker = new Worker(new URL(import.meta.url), { workerData: { src: join(ROOT, 'src'), pages } });
    variants.push({ ...(await storeOf(join(ROOT, 'src'), 'this_worker')), worker });
  }
  for (const [i, src] of BASELINES.entries()) variants.push(await storeOf(src, i === 0 ? 'baseline' : `baseline${i + 1}`));
  const rounds = Object.fromEntries([['reference', []], ...variants.map((v) => [v.name, []])]);
  // A round unmeasured first: the bundles' first calls and the server's caches.
  for (const v of variants) await ingest(v, pages.slice(0, 2), baseUrl, `bench_ingest_${process.pid}_warm_${v.name}`);
  for (let i = 0; i < RUNS; i++) {
    log(`round ${i + 1} of ${RUNS}`);
    // With --expose-gc, each measure starts from a collected heap: the reference loop's garbage
    // (~120 MB of parsed pages a round) is not left for the next measure to collect.
    globalThis.gc?.();
    rounds.reference.push(reference(pages));
    for (const v of variants) {
      globalThis.gc?.();
      rounds[v.name].push(await ingest(v, pages, baseUrl, `bench_ingest_${process.pid}_${v.name}_${i}`));
    }
  }
  const perS = (ms) => Math.round(RECORDS / (ms / 1000));
  const figures = (name) => {
    const r = rounds[name];
    const wall = stats(r.map((x) => x.ms));
    const cpu = stats(r.map((x) => x.cpuMs));
    return {
      wallMs: wall,
      recordsPerSWall: perS(wall.median),
      recordsPerSWallRange: [perS(wall.max), perS(wall.min)],
      svcCpuMs: cpu.median,
      recordsPerSSvcCpu: perS(cpu.median),
      recordsPerSSvcCpuRange: [perS(cpu.max), perS(cpu.min)],
      ...(name !== 'reference' ? { serverCpuMs: stats(r.map((x) => x.serverCpuMs)).median } : {}),
    };
  };
  const result = { node: process.version, records: RECORDS, pages: pages.length, runs: RUNS };
  for (const name of Object.keys(rounds)) result[name] = figures(name);
  if (BASELINE_SRC) result.baselineSrc = BASELINE_SRC;
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await admin.end();
  for (const v of variants) v.worker?.postMessage('exit');
}
