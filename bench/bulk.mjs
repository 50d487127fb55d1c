#!/usr/bin/env node
/**
 * Benchmark of bulk runs (bench/README.md, "Bulk run speed"). A sandbox runs in its own process (src/sandbox
 * bundled with esbuild, so that it can be given latency, a short rate-limit window and asked
 * what it received); `bin/svc` runs as users run it. Prints one JSON document and writes it to
 * bench/bulk-results.json:
 *
 * - `enrollById`: 2,000 enrollments at --concurrency 8 with 50 ms latency: wall time against the
 *   ideal 2,000 × 50 ms / 8, and requests received against rows + ⌈rows/1000⌉ + 5.
 * - `enrollByEmail`: the same by e-mail address (adds the batched address lookups).
 * - `rateLimited`: 2,000 enrollments with 600 requests per window (a 2 s window standing in for
 *   the hour): 429 answers received (target 0) and the time it took.
 * - `csv100k`: `prospects create --input` of a 100,000-row CSV: peak RSS of the svc process.
 *
 * Usage: `node bench/bulk.mjs` (ROWS, BIG_ROWS override the sizes; ONLY=enroll,rate,csv picks parts).
 */
import { build } from 'esbuild';
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchEnv } from './lib/measure.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const SVC = join(root, 'bin', 'svc');
const PROBE = join(root, 'bench', 'lib', 'probe.cjs');
const ROWS = Number(process.env.ROWS ?? 2000);
const BIG_ROWS = Number(process.env.BIG_ROWS ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-bulk-'));
const only = new Set((process.env.ONLY ?? 'enroll,rate,csv').split(','));

// The sandbox in a child process that can report what it received.
const bundle = join(dir, 'sandbox.mjs');
await build({
  entryPoints: [join(root, 'src/sandbox/index.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: bundle,
  logLevel: 'warning',
});
const childFile = join(dir, 'child.mjs');
writeFileSync(
  childFile,
  `
import { startSandbox } from ${JSON.stringify(pathToFileURL(bundle).href)};
const sb = await startSandbox({ port: 0, ...JSON.parse(process.argv[2]) });
process.send({ baseUrl: sb.baseUrl, token: sb.token });
process.on('message', async (m) => {
  if (m === 'reset') { sb.requests.length = 0; process.send('ok'); }
  if (m === 'stats') {
    const byStatus = {};
    const byRoute = {};
    for (const r of sb.requests) {
      byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      const route = r.method + ' ' + r.path.replace(/\\/\\d+/g, '/{id}');
      byRoute[route] = (byRoute[route] ?? 0) + 1;
    }
    process.send({ total: sb.requests.length, byStatus, byRoute });
  }
  if (m === 'stop') { await sb.close(); process.exit(0); }
});
`,
);

async function startSandbox(opts) {
  const child = fork(childFile, [JSON.stringify(opts)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: ['--max-old-space-size=4096'],
  });
  const next = () => new Promise((resolve) => child.once('message', resolve));
  const info = await next();
  const call = async (method, path, body) => {
    const r = await fetch(`${info.baseUrl}/${path}`, {
      method,
      headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/vnd.api+json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await r.text();
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
    return JSON.parse(text);
  };
  return {
    ...info,
    call,
    reset: async () => {
      child.send('reset');
      await next();
    },
    stats: async () => {
      child.send('stats');
      return next();
    },
    close: async () => {
      child.send('stop');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

async function newSequence(sb) {
  const rs = await sb.call('POST', 'rulesets', { data: { type: 'ruleset', attributes: { name: 'bench' } } });
  const seq = await sb.call('POST', 'sequences', {
    data: {
      type: 'sequence',
      attributes: { name: 'bench', sequenceType: 'interval' },
      relationships: { ruleset: { data: { type: 'ruleset', id: rs.data.id } } },
    },
  });
  return seq.data.id;
}

/** Runs svc with the RSS probe; resolves with wall time, exit code, peak RSS and stderr. */
function runSvc(args, sb) {
  const probe = join(dir, `probe-${Math.random()}`);
  const env = benchEnv({ SVC_CONFIG_DIR: join(dir, 'config'), SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: sb.token, BENCH_PROBE_OUT: probe });
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', PROBE, SVC, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const [rssKb] = readFileSync(probe, 'utf8').trim().split(' ').map(Number);
      resolve({ ms, code, rssMb: +(rssKb / 1024).toFixed(1), stderr: stderr.slice(-2000) });
    });
  });
}

const results = { rows: ROWS, node: process.version };

// 1. Enroll by id and by e-mail, 50 ms latency, concurrency 8.
if (only.has('enroll')) {
  const sb = await startSandbox({ seed: 2 * ROWS + 500, latencyMs: 50, rateLimit: 1_000_000 });
  const prospects = [];
  for (let offset = 0; prospects.length < 2 * ROWS; offset += 1000) {
    const page = await sb.call(
      'GET',
      `prospects?page[limit]=1000&page[offset]=${offset}&fields[prospect]=emails,optedOut,emailsOptStatus&sort=id`,
    );
    if (!page.data.length) break;
    // The seeded org has opted-out prospects (its statistics count opt-outs): a sequence refuses them.
    const mailable = page.data.filter((p) => p.attributes.optedOut !== true && p.attributes.emailsOptStatus !== 'opted_out');
    prospects.push(...mailable.map((p) => ({ id: p.id, email: p.attributes.emails[0] })));
  }
  const ideal = (ROWS * 50) / 8 / 1000;
  for (const [name, by, rows] of [
    ['enrollById', 'id', prospects.slice(0, ROWS).map((p) => p.id)],
    ['enrollByEmail', 'email', prospects.slice(ROWS, 2 * ROWS).map((p) => p.email)],
  ]) {
    const seq = await newSequence(sb);
    const file = join(dir, `${name}.csv`);
    writeFileSync(file, `${by}\n${rows.join('\n')}\n`);
    await sb.reset();
    const r = await runSvc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--by', by, '--concurrency', '8'], sb);
    if (r.code !== 0) throw new Error(`${name} exited ${r.code}: ${r.stderr}`);
    const s = await sb.stats();
    results[name] = {
      seconds: +(r.ms / 1000).toFixed(2),
      idealSeconds: ideal,
      ratioToIdeal: +(r.ms / 1000 / ideal).toFixed(3),
      requests: s.total,
      requestBudget: ROWS + Math.ceil(ROWS / 1000) + 5,
      byRoute: s.byRoute,
      status429: s.byStatus[429] ?? 0,
      rssMb: r.rssMb,
    };
  }
  await sb.close();
}

// 2. 600 requests per window (2 s standing in for the hour), no latency: pacing, zero 429.
if (only.has('rate')) {
  const sb = await startSandbox({ seed: ROWS + 500, rateLimit: 600, rateWindowMs: 2000 });
  const seq = await newSequence(sb);
  const file = join(dir, 'rate.csv');
  const ids = [];
  for (let offset = 0; ids.length < ROWS; offset += 1000) {
    const page = await sb.call(
      'GET',
      `prospects?page[limit]=1000&page[offset]=${offset}&fields[prospect]=optedOut,emailsOptStatus&sort=id`,
    );
    if (!page.data.length) break;
    // Opted-out prospects are refused by a sequence (see the enroll part).
    for (const p of page.data) if (p.attributes.optedOut !== true && p.attributes.emailsOptStatus !== 'opted_out') ids.push(p.id);
  }
  writeFileSync(file, `id\n${ids.slice(0, ROWS).join('\n')}\n`);
  await new Promise((r) => setTimeout(r, 2100)); // a fresh window for the run
  await sb.reset();
  const r = await runSvc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--concurrency', '8'], sb);
  const s = await sb.stats();
  results.rateLimited = {
    exitCode: r.code,
    seconds: +(r.ms / 1000).toFixed(2),
    limitPerWindow: 600,
    windowSeconds: 2,
    minimumSeconds: (Math.ceil((ROWS + 3) / 600) - 1) * 2,
    requests: s.total,
    status429: s.byStatus[429] ?? 0,
  };
  await sb.close();
}

// 3. A 100,000-row CSV through prospects create: peak RSS of svc.
if (only.has('csv')) {
  const sb = await startSandbox({ seed: 10, rateLimit: 10_000_000 });
  const file = join(dir, 'big.csv');
  const out = createWriteStream(file);
  out.write('firstName,lastName,emails,title,tags,account.id\n');
  for (let i = 0; i < BIG_ROWS; i++)
    out.write(`First${i},Last${i},p${i}@bulk.test;alt${i}@bulk.test,"Head of ""Things"", ${i}",a;b,${(i % 5) + 1}\n`);
  await new Promise((r) => out.end(r));
  const r = await runSvc(['prospects', 'create', '--input', file, '--concurrency', '8'], sb);
  if (r.code !== 0) throw new Error(`csv100k exited ${r.code}: ${r.stderr}`);
  results.csv100k = {
    rows: BIG_ROWS,
    seconds: +(r.ms / 1000).toFixed(1),
    rssMb: r.rssMb,
    rowsPerSecond: Math.round(BIG_ROWS / (r.ms / 1000)),
  };
  await sb.close();
}

rmSync(dir, { recursive: true, force: true });
const text = JSON.stringify(results, null, 2);
process.stdout.write(text + '\n');
if (only.size === 3) writeFileSync(join(root, 'bench', 'bulk-results.json'), text + '\n');
