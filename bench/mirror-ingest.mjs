#!/usr/bin/env node
/**
 * Ingest benchmark of the mirror, in-process (bench/README.md § The mirror; issue 28: "ingesting
 * recorded pages in-process ≥ 50,000 records/s"). The pages of `svc sync prospects` are recorded
 * once from a sandbox process with RECORDS prospects (default 50,000; a page of 1,000 is ~6 MB,
 * so they go to files in a temporary directory), then fed back to the mirror's own code — paging,
 * the listing's page reader, MirrorStore, SQLite — in this process, with no HTTP and no server:
 * the records per second of what svc itself does with a page. src/ is bundled for this with
 * esbuild (the built dist/ is one bundle whose modules cannot be imported one by one).
 *
 * Each round (RUNS, default 3) measures, interleaved:
 *  - `read`: the pages through the listing's reader alone (what `list -o ndjson` also pays);
 *  - `sync`: a full sync of the pages into a fresh SQLite file (syncTables, as `svc sync` runs it);
 *  - with `BASELINE=/path/to/other/worktree`, that tree's src/ doing the same sync (an A/B; the
 *    two go first in turn, as the second of a round runs slower);
 *  - the fixed reference loop (bench/lib/reference-loop.mjs: fetch, JSON.parse, stringify each
 *    record, against the sandbox over HTTP) in its own process: a yardstick of the machine's speed
 *    in the same run, in records per second of its CPU.
 * Run with the Node under test (22.13+: node:sqlite; 20: node-sqlite3-wasm). Prints JSON.
 */
import { mkdirSync, mkdtempSync, openSync, readSync, closeSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSrc } from './lib/load-src.mjs';
import { benchEnv, runMeasured, stats } from './lib/measure.mjs';
import { ROOT, startSandboxProcess } from './lib/sandbox-process.mjs';

const RECORDS = Number(process.env.RECORDS ?? 50_000);
const RUNS = Number(process.env.RUNS ?? 3);
const BASELINE = process.env.BASELINE;
const log = (m) => process.stderr.write(`[ingest bench] ${m}\n`);
const REFERENCE = fileURLToPath(new URL('./lib/reference-loop.mjs', import.meta.url));

/** The mirror's modules from a tree's src/. */
const harness = (root, tag) =>
  loadSrc(root, `ingest-${tag}`, [
    "export { MirrorStore } from './src/mirror/store.js';",
    "export { syncTables } from './src/mirror/sync.js';",
    "export { tableSpec } from './src/mirror/naming.js';",
    "export { findResource } from './src/registry/index.js';",
    "export { buildOrgSchema } from './src/org-schema/org-schema.js';",
    "export { listPages } from './src/listing/pages.js';",
    "export { parseDocument } from './src/api/jsonapi.js';",
  ]);

/**
 * A PageClient over recorded pages: on a miss it asks the sandbox and records the answer (a file
 * per page), else it reads the file into the reader's buffer, as a socket would, and parses it.
 */
function recordedClient(m, sandbox, dir) {
  const files = new Map();
  let n = 0;
  const base = new URL(`${sandbox.baseUrl.replace(/\/+$/, '')}/`);
  return {
    baseUrl: base.href,
    resolve: (p) => new URL(p.replace(/^\/+/, ''), base),
    misses: 0,
    async request(req) {
      const url = new URL(req.path, base).href;
      let file = files.get(url);
      if (!file) {
        this.misses++;
        const res = await fetch(url, { headers: { authorization: `Bearer ${sandbox.token}`, accept: 'application/vnd.api+json' } });
        const bytes = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${bytes.toString('utf8', 0, 200)}`);
        file = join(dir, `page-${n++}.json`);
        writeFileSync(file, bytes);
        files.set(url, file);
      }
      const size = statSync(file).size;
      const body = req.reader?.take ? req.reader.take(size) : Buffer.allocUnsafe(size);
      const fd = openSync(file, 'r');
      try {
        for (let at = 0; at < size; ) at += readSync(fd, body, at, size - at, at);
      } finally {
        closeSync(fd);
      }
      const doc = m.parseDocument(200, body, 'application/vnd.api+json', req.reader && ((b) => req.reader.parse(b)));
      return { status: 200, url, headers: {}, doc, body, text: '' };
    },
  };
}

/** The org schema's two documents, fetched once: each tree builds its table from them. */
async function orgDocs(sandbox) {
  const get = async (p) => {
    const res = await fetch(new URL(p, `${sandbox.baseUrl.replace(/\/+$/, '')}/`), {
      headers: { authorization: `Bearer ${sandbox.token}` },
    });
    return res.json();
  };
  return { openapi: await get('schema/openapi.json'), types: await get('types'), baseUrl: sandbox.baseUrl };
}

function orgSpec(m, docs) {
  const schema = m.buildOrgSchema(docs.openapi, docs.types, { profile: 'bench', baseUrl: docs.baseUrl, now: Date.now() });
  const rt = m.findResource('prospect');
  const t = schema.types.prospect;
  const labels = {};
  for (const [name, f] of Object.entries(t?.customFields ?? {})) labels[name] = f.label;
  return { rt, spec: m.tableSpec(rt, { extraAttributes: t?.extraAttributes, labels }) };
}

/** One full sync of the recorded pages into a fresh file: wall and CPU ms, records written. */
async function syncOnce(m, client, file) {
  const { rt, spec } = orgSpec(m, client.docs);
  const store = await m.MirrorStore.open({ kind: 'file', file }, { baseUrl: client.baseUrl, orgId: '1', orgName: 'bench' });
  try {
    await store.prepare(spec, () => {});
    global.gc?.();
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const results = await m.syncTables({ store, client, tables: [{ rt, spec }], now: () => Date.now(), progress: () => {}, warn: log });
    const ms = performance.now() - t0;
    const c = process.cpuUsage(cpu);
    return { ms, cpuMs: (c.user + c.system) / 1000, written: results[0].written, rows: await store.count(spec.table) };
  } finally {
    await store.close();
  }
}

/** The pages through the listing's reader alone. */
async function readOnce(m, client) {
  const { spec } = orgSpec(m, client.docs);
  global.gc?.();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  let n = 0;
  for await (const page of m.listPages(client, spec.path, {
    query: { sort: ['id'], filters: [], count: true },
    all: true,
    pageSize: 1000,
    keyset: {},
  }))
    n += page.records.length;
  const ms = performance.now() - t0;
  const c = process.cpuUsage(cpu);
  return { ms, cpuMs: (c.user + c.system) / 1000, read: n };
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-ingest-'));
log(`bundling src/ of ${ROOT}${BASELINE ? ` and of ${BASELINE}` : ''}…`);
const mine = await harness(ROOT, 'this');
const baseline = BASELINE ? await harness(BASELINE, 'baseline') : undefined;
log(`starting a sandbox with ${RECORDS} prospects…`);
const sandbox = await startSandboxProcess({ seed: RECORDS });
try {
  const client = Object.assign(recordedClient(mine, sandbox, join(dir, 'pages')), { docs: await orgDocs(sandbox) });
  mkdirSync(join(dir, 'pages'));
  log('recording the pages (one sync over HTTP)…');
  const first = await syncOnce(mine, client, join(dir, 'record.sqlite'));
  if (first.rows !== RECORDS) throw new Error(`the recording sync wrote ${first.rows} rows, not ${RECORDS}`);
  const recorded = client.misses;
  const rounds = { read: [], sync: [], baseline: [], reference: [] };
  const env = benchEnv();
  for (let i = 0; i < RUNS; i++) {
    log(`round ${i + 1} of ${RUNS}`);
    rounds.read.push(await readOnce(mine, client));
    // The two trees take turns going first: the second sync of a round ran ~16 % slower than the
    // first with the same src/ in both (a same-build run, Node 26, 50,000).
    const other = async () => {
      if (baseline) rounds.baseline.push(await syncOnce(baseline, client, join(dir, `b${i}.sqlite`)));
    };
    if (i % 2 === 1) await other();
    rounds.sync.push(await syncOnce(mine, client, join(dir, `m${i}.sqlite`)));
    if (i % 2 === 0) await other();
    rounds.reference.push(await runMeasured([process.execPath, REFERENCE, sandbox.baseUrl, sandbox.token, String(RECORDS)], { env }));
    rmSync(join(dir, `m${i}.sqlite`), { force: true });
    rmSync(join(dir, `b${i}.sqlite`), { force: true });
  }
  if (client.misses !== recorded) log(`warning: ${client.misses - recorded} requests were not recorded the first time`);
  for (const r of [...rounds.sync, ...rounds.baseline]) if (r.written !== RECORDS) throw new Error(`a sync wrote ${r.written} records`);
  const perS = (ms) => Math.round(RECORDS / (ms / 1000));
  const med = (k, f) => stats(rounds[k].map(f)).median;
  const result = {
    node: process.version,
    records: RECORDS,
    rounds: RUNS,
    // What svc does with a page in-process, pages read from files: the records per second of the whole sync.
    ingestRecordsPerS: perS(med('sync', (r) => r.ms)),
    ingestCpuRecordsPerS: perS(med('sync', (r) => r.cpuMs)),
    syncMs: stats(rounds.sync.map((r) => r.ms)),
    syncCpuMs: stats(rounds.sync.map((r) => r.cpuMs)),
    readRecordsPerS: perS(med('read', (r) => r.ms)),
    readMs: stats(rounds.read.map((r) => r.ms)),
    // The store's share: the sync less the listing's reading of the same pages.
    storeRecordsPerS: perS(med('sync', (r) => r.ms) - med('read', (r) => r.ms)),
    ...(baseline
      ? {
          baseline: BASELINE,
          baselineIngestRecordsPerS: perS(med('baseline', (r) => r.ms)),
          baselineIngestCpuRecordsPerS: perS(med('baseline', (r) => r.cpuMs)),
          baselineSyncCpuMs: stats(rounds.baseline.map((r) => r.cpuMs)),
          baselineSyncMs: stats(rounds.baseline.map((r) => r.ms)),
        }
      : {}),
    // The yardstick: the reference loop's records per second of CPU (HTTP, JSON.parse, stringify).
    referenceCpuRecordsPerS: perS(med('reference', (r) => r.cpuMs)),
    referenceCpuMs: stats(rounds.reference.map((r) => r.cpuMs)),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}
