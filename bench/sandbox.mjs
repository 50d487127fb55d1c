#!/usr/bin/env node
// Benchmark of the sandbox (issue 3, "Speed"): bundles src/sandbox/index.ts with esbuild into a
// temporary file, starts it in a child process with seed 100000 (or SEED) so that its timings
// and RSS are its own, and prints one JSON summary: start time, GET /prospects?page[limit]=1000
// median, a filtered sorted page of 50 median, single-record GET throughput with keep-alive,
// and the server's RSS.
import { build } from 'esbuild';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const seed = Number(process.env.SEED ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const out = join(dir, 'sandbox.mjs');
await build({ entryPoints: [join(root, 'src/sandbox/index.ts')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'warning' });
const childFile = join(dir, 'child.mjs');
writeFileSync(childFile, `
import { startSandbox } from ${JSON.stringify(pathToFileURL(out).href)};
const t0 = performance.now();
const sb = await startSandbox({ port: 0, seed: ${seed}, rateLimit: 10_000_000 });
process.send({ baseUrl: sb.baseUrl, token: sb.token, startMs: performance.now() - t0 });
process.on('message', async (m) => {
  if (m === 'rss') process.send({ rss: process.memoryUsage().rss });
  if (m === 'stop') { await sb.close(); process.exit(0); }
});
`);
const child = fork(childFile, [], { stdio: 'inherit' });
const nextMessage = () => new Promise((resolve) => child.once('message', resolve));
const sb = await nextMessage();
const startMs = sb.startMs;
const agent = new Agent({ keepAlive: true, maxSockets: 16 });
const url = new URL(sb.baseUrl);

function get(path) {
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + path, agent, headers: { Authorization: `Bearer ${sb.token}` } }, (res) => {
      let n = 0;
      res.on('data', (c) => (n += c.length));
      res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(`${path}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

async function median(path, runs) {
  const times = [];
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    bytes = await get(path);
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  return { medianMs: +times[Math.floor(times.length / 2)].toFixed(2), p90Ms: +times[Math.floor(times.length * 0.9)].toFixed(2), bytes };
}

async function throughput(seconds, concurrency) {
  let done = 0;
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      await get(`/prospects/${1 + ((done * 7919) % seed)}`);
      done++;
    }
  };
  const s = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return Math.round(done / ((performance.now() - s) / 1000));
}

await median('/prospects?page[limit]=1000', 3); // warm-up
const page1000 = await median('/prospects?page[limit]=1000', 21);
// Distinct pages (offsets 1000..9000, each asked once): nothing comes from the rendering cache.
const cold = [];
for (let k = 1; k <= 9; k++) {
  const s = performance.now();
  await get(`/prospects?page[limit]=1000&page[offset]=${k * 1000}`);
  cold.push(performance.now() - s);
}
cold.sort((a, b) => a - b);
const page1000Cold = { medianMs: +cold[4].toFixed(2), maxMs: +cold[8].toFixed(2) };
const filtered = await median('/prospects?filter[title]=CEO,CTO&filter[createdAt]=neginf..inf&sort=-updatedAt,lastName&page[limit]=50', 31);
const filteredRel = await median('/prospects?filter[account][id]=7&sort=lastName&page[limit]=50', 31);
const singleRps = await throughput(5, 16);
child.send('rss');
const rssMb = Math.round((await nextMessage()).rss / 1048576);

const summary = {
  seed,
  startMs: Math.round(startMs),
  prospectsPage1000: page1000,
  prospectsPage1000Uncached: page1000Cold,
  filteredSortedPage50: filtered,
  relationFilteredPage50: filteredRel,
  singleGetRps: singleRps,
  rssMb,
  targets: { startMs: 10_000, prospectsPage1000MedianMs: 50, filteredSortedPage50MedianMs: 20, singleGetRps: 2000, rssMb: 500 },
};
summary.pass = summary.startMs < 10_000 && page1000.medianMs < 50 && filtered.medianMs < 20 && singleRps >= 2000 && rssMb < 500;
console.log(JSON.stringify(summary, null, 2));
agent.destroy();
child.send('stop');
await new Promise((r) => child.once('exit', r));
rmSync(dir, { recursive: true, force: true });
