#!/usr/bin/env node
/**
 * Listing benchmark (bench/README.md § Performance: speed, memory, "within 1.5× of a raw undici loop"):
 * `svc prospects list --all -o ndjson` over 100,000 prospects (150 null custom fields each).
 *  1. Against a recording proxy in front of the sandbox: requests used, records written.
 *  2. Against the sandbox directly: wall time and peak RSS (the memory target).
 *  3. Against the recorded pages served from memory (the client's own cost), interleaved with
 *     the floor — a raw undici loop fetching the same URLs, parsing each page and writing each
 *     resource object as one line — and a transport-only loop (each body written whole, decoded
 *     to text and not parsed).
 *  4. Every output format (`-o ndjson|json|csv|table`, `table --columns` and `json --query`) at 20,000 records and
 *     at all of them, against the sandbox, output to a file, and the reference loop (the plain
 *     client: fetch, `JSON.parse`, `JSON.stringify` each record; lib/reference-loop.mjs) over the
 *     same records: interleaved in each round, so that each format's CPU a record is compared with
 *     the reference's under the same load.
 * Run alone: `node bench/list.mjs` prints JSON (`FORMATS_ONLY=1`: step 4 only); `bench/run.mjs`
 * calls {@link listBench}.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchEnv, runMeasured, stats } from './lib/measure.mjs';
import { SVC, startSandboxProcess } from './lib/sandbox-process.mjs';

const node = process.execPath;
const here = (f) => fileURLToPath(new URL(f, import.meta.url));

/** Starts the recording/replaying server in front of `upstream`. */
async function startReplayServer(upstream) {
  const child = fork(here('./lib/replay-server.mjs'), [], {
    env: { ...process.env, UPSTREAM: upstream },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () => new Promise((resolve) => child.once('message', resolve));
  const { port } = await next();
  return {
    origin: `http://127.0.0.1:${port}`,
    async replay() {
      child.send('replay');
      await next();
    },
    async stats() {
      child.send('stats');
      return next();
    },
    async close() {
      const exited = new Promise((r) => child.once('exit', r));
      child.send('stop');
      await exited;
    },
  };
}

/**
 * Runs the listing benchmark.
 * @param opts.records prospects in the sandbox @default 100000
 * @param opts.runs rounds against the recorded pages @default 3
 */
export async function listBench({ records = 100_000, runs = 3, formatRuns = 5, formatsOnly = false, log = () => {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-list-'));
  log(`starting a sandbox with ${records} prospects…`);
  const sandbox = await startSandboxProcess({ seed: records });
  const replay = await startReplayServer(new URL(sandbox.baseUrl).origin);
  try {
    const env = benchEnv({ SVC_CONFIG_DIR: join(dir, 'config') });
    const path = new URL(sandbox.baseUrl).pathname;
    const svc = (origin) => [
      node,
      SVC,
      'prospects',
      'list',
      '--all',
      '-o',
      'ndjson',
      '--base-url',
      origin + path,
      '--token',
      sandbox.token,
    ];
    const formats = await formatBench({
      sandbox,
      env,
      dir,
      sizes: [...new Set([Math.min(20_000, records), records])],
      runs: formatRuns,
      log,
    });
    if (formatsOnly) return { records, formats };

    log('recording the pages through the proxy…');
    const recording = await runMeasured(svc(replay.origin), { env, countLines: true });
    const { requests, urls } = await replay.stats();
    const urlsFile = join(dir, 'urls.json');
    writeFileSync(urlsFile, JSON.stringify(urls));

    log('against the sandbox (memory)…');
    const direct = [await runMeasured(svc(new URL(sandbox.baseUrl).origin), { env, countLines: true })];

    await replay.replay();
    log(`against the recorded pages, ${runs} rounds…`);
    const rounds = { svc: [], floor: [], transport: [] };
    const raw = (mode) =>
      runMeasured([node, here('./lib/raw-loop.mjs'), replay.origin, urlsFile, sandbox.token], { env: { ...env, MODE: mode } });
    for (let i = 0; i < runs; i++) {
      rounds.floor.push(await raw('records'));
      rounds.svc.push(await runMeasured(svc(replay.origin), { env }));
      rounds.transport.push(await raw('bytes'));
    }
    const pick = (list, k) => stats(list.map((r) => r[k]));
    return {
      records,
      lines: recording.lines,
      requests,
      // Peak RSS: the largest of the runs that went to the sandbox (directly and through the proxy).
      direct: { ms: pick(direct, 'ms'), rssKb: pick([...direct, recording], 'rssKb') },
      replay: Object.fromEntries(
        Object.entries(rounds).map(([k, list]) => [k, { ms: pick(list, 'ms'), cpuMs: pick(list, 'cpuMs'), rssKb: pick(list, 'rssKb') }]),
      ),
      formats,
    };
  } finally {
    await replay.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The variants of step 4: each format, the table with `--columns` and json with `--query`. */
export const FORMAT_VARIANTS = {
  ndjson: ['-o', 'ndjson'],
  json: ['-o', 'json'],
  csv: ['-o', 'csv'],
  table: ['-o', 'table'],
  'table --columns': ['-o', 'table', '--columns', 'id,firstName,lastName,title,emails'],
  'json --query': ['-o', 'json', '--query', '[].{id: id, firstName: firstName, lastName: lastName, title: title, emails: emails}'],
};

/**
 * Step 4: `svc prospects list --limit N <variant>` against the sandbox, stdout to a file, every
 * variant once per round in turn, with the reference loop (`reference`) first. Returns, per size
 * and variant, wall time, CPU time and peak RSS (medians), the output's size and, but for the
 * reference, `cpuRatio`: the median over rounds of the variant's CPU time over the reference's in
 * the same round.
 */
async function formatBench({ sandbox, env, dir, sizes, runs, log }) {
  const result = {};
  for (const n of sizes) {
    log(`every format at ${n} records, ${runs} rounds…`);
    const times = Object.fromEntries(['reference', ...Object.keys(FORMAT_VARIANTS)].map((k) => [k, []]));
    const bytes = {};
    for (let round = 0; round < runs; round++) {
      const file = join(dir, 'out');
      const reference = [node, here('./lib/reference-loop.mjs'), sandbox.baseUrl, sandbox.token, String(n)];
      times.reference.push(await runMeasured(reference, { env, stdoutFile: file }));
      bytes.reference = statSync(file).size;
      for (const [name, args] of Object.entries(FORMAT_VARIANTS)) {
        const cmd = [
          node,
          SVC,
          'prospects',
          'list',
          '--limit',
          String(n),
          ...args,
          '--base-url',
          sandbox.baseUrl,
          '--token',
          sandbox.token,
        ];
        times[name].push(await runMeasured(cmd, { env, stdoutFile: file }));
        bytes[name] = statSync(file).size;
      }
    }
    const pick = (list, k) => stats(list.map((r) => r[k]));
    // Each round's ratio to the reference run just before it: load that changes between rounds cancels out.
    const cpuRatio = (list) => stats(list.map((r, i) => r.cpuMs / times.reference[i].cpuMs));
    result[n] = Object.fromEntries(
      Object.entries(times).map(([k, list]) => [
        k,
        {
          ms: pick(list, 'ms'),
          cpuMs: pick(list, 'cpuMs'),
          rssKb: pick(list, 'rssKb'),
          bytes: bytes[k],
          ...(k === 'reference' ? {} : { cpuRatio: cpuRatio(list) }),
        },
      ]),
    );
  }
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await listBench({
    records: Number(process.env.RECORDS ?? 100_000),
    runs: Number(process.env.RUNS ?? 3),
    formatRuns: Number(process.env.FORMAT_RUNS ?? 5),
    formatsOnly: process.env.FORMATS_ONLY === '1',
    log: (m) => process.stderr.write(`${m}\n`),
  });
  process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
}
