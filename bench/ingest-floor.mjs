#!/usr/bin/env node
/**
 * What ingesting a prospect cannot cost less than on this machine (issue 28: "ingesting recorded
 * pages in-process ≥ 50,000 records/s", 20 µs a record for everything). The pages of RECORDS
 * prospects (default 20,000; 1,000 a page, ~5.8 KB a record, as `svc sync` reads them) are
 * recorded once from a sandbox process; then each round measures, in this process and in CPU µs
 * a record (the median of RUNS rounds, default 7):
 *
 *  - `touch`: a JavaScript loop that looks at every byte of the page once (counts the quotes):
 *    any reader written in JavaScript that checks the page's JSON reads each byte at least once;
 *  - `indexOf`: the same count with Buffer.indexOf (native code jumping from quote to quote);
 *  - `JSON.parse`: V8's own parser, decoding and parsing the page (what the plain client pays);
 *  - `scan`: the listing's page reader (parseCollection: every byte checked as strict JSON);
 *  - `rows`: the reader and the mirror's rows of the page (MirrorStore's pageRows: each record's
 *    columns from the reader's marks), what the mirror does before SQLite;
 *  - `insert`: SQLite alone — the rows made beforehand, written by the mirror's multi-row upsert
 *    (dialect write, one transaction a page) into a fresh file with the table's indexes;
 *  - `ingest`: rows and insert together, as a sync does them (no HTTP);
 *  - `reference`: JSON.parse of each page and JSON.stringify of each record (the fixed yardstick).
 *
 * A floor for the ingest is `touch` + `insert`: reading each byte once and SQLite's insert of
 * the values, with nothing else done. Run with the Node under test (22.13+: node:sqlite; 20:
 * node-sqlite3-wasm). Usage: [RECORDS=20000] [RUNS=7] node bench/ingest-floor.mjs. Prints JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSrc } from './lib/load-src.mjs';
import { recordProspectPages } from './lib/record-pages.mjs';
import { ROOT } from './lib/sandbox-process.mjs';

const RECORDS = Number(process.env.RECORDS ?? 20_000);
const RUNS = Number(process.env.RUNS ?? 7);
const log = (m) => process.stderr.write(`[ingest floor] ${m}\n`);

const m = await loadSrc(join(ROOT, 'src'), 'ingest-floor', [
  "export { MirrorStore } from './mirror/store.js';",
  "export { tableSpec } from './mirror/naming.js';",
  "export { findResource } from './registry/index.js';",
  "export { parseCollection } from './listing/page-parse.js';",
  "export { PageScanner } from './listing/relationship-scan.js';",
]);

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const { pages } = await recordProspectPages(RECORDS, log);
const spec = m.tableSpec(m.findResource('prospects'));
const scanner = new m.PageScanner();
const dir = mkdtempSync(join(tmpdir(), 'svc-ingest-floor-'));
let sink = 0;
let files = 0;

/** A fresh mirror file with the prospects table; `rowsOf` makes a page's rows as the store does. */
async function freshStore() {
  const store = await m.MirrorStore.open(
    { kind: 'file', file: join(dir, `m${++files}.db`) },
    { baseUrl: 'http://bench', orgId: 'bench', orgName: 'bench' },
  );
  await store.prepare(spec, () => {});
  return store;
}
const rowsOf = (store, body) => store.pageRows(spec, m.parseCollection(body, undefined, scanner).data);
const columns = [
  { name: 'id', kind: 'id' },
  ...spec.columns.map((c) => ({ name: c.name, kind: 'attribute' in c.from ? c.from.type : 'id' })),
];
const names = spec.columns.map((c) => c.name);
const write = (store, page) => store.tx(() => store.db.write(spec.table, columns, page.rows, ['id'], names));

const measures = {
  touch: () => {
    for (const p of pages) {
      let q = 0;
      for (let i = 0; i < p.length; i++) if (p[i] === 34) q++;
      sink += q;
    }
  },
  indexOf: () => {
    for (const p of pages) for (let i = p.indexOf(34); i >= 0; i = p.indexOf(34, i + 1)) sink++;
  },
  'JSON.parse': () => {
    for (const p of pages) sink += JSON.parse(p.toString()).data.length;
  },
  scan: () => {
    for (const p of pages) sink += m.parseCollection(p, undefined, scanner).data.length;
  },
  rows: async (store) => {
    for (const p of pages) sink += rowsOf(store, p).rows.length;
  },
  insert: async (store, made) => {
    for (const page of made) await write(store, page);
  },
  ingest: async (store) => {
    for (const p of pages) await write(store, rowsOf(store, p));
  },
  reference: () => {
    for (const p of pages) {
      let chunk = '';
      for (const r of JSON.parse(p.toString()).data) chunk += `${JSON.stringify(r)}\n`;
      sink += chunk.length;
    }
  },
};

try {
  const rounds = Object.fromEntries(Object.keys(measures).map((k) => [k, []]));
  for (let round = 0; round <= RUNS; round++) {
    if (round > 0) log(`round ${round} of ${RUNS}`);
    for (const [name, f] of Object.entries(measures)) {
      const store = ['rows', 'insert', 'ingest'].includes(name) ? await freshStore() : undefined;
      const made = name === 'insert' ? pages.map((p) => rowsOf(store, p)) : undefined;
      const c0 = cpuMs();
      await f(store, made);
      const ms = cpuMs() - c0;
      await store?.close();
      // Round 0 warms the code up and is not counted.
      if (round > 0) rounds[name].push((ms * 1000) / RECORDS);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const result = { node: process.version, records: RECORDS, runs: RUNS, unit: 'CPU µs a record (median; min–max)' };
  for (const [name, xs] of Object.entries(rounds))
    result[name] = `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
  const floor = median(rounds.touch) + median(rounds.insert);
  result.floor = `touch + insert: ${floor.toFixed(1)} µs a record, at most ${Math.round(1e6 / floor)} records/s (the target: 20 µs, 50,000)`;
  if (sink === 0) throw new Error('nothing measured');
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
