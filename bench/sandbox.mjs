#!/usr/bin/env node
/**
 * Benchmark of the sandbox (bench/README.md, "Sandbox speed"): bundles src/sandbox/index.ts with esbuild into a
 * temporary file, starts it in a child process with seed 100000 (or SEED) so that its timings
 * and RSS are its own, and measures over HTTP with keep-alive:
 *
 * - start time (seeding included);
 * - `GET /prospects?page[limit]=1000` at distinct offsets 0..9000 (nothing is cached: each
 *   page is rendered when asked), at `page[offset]=9000`, and by id ranges past the offset cap
 *   (`sort=id&filter[id]=N..inf`, what the CLI sends beyond 10,000);
 * - a filtered, sorted page of 50, and a page filtered by relationship;
 * - single-record GET throughput (16 concurrent keep-alive connections, 5 s);
 * - the server's RSS at the end.
 *
 * Run alone, it prints one JSON summary and writes it to bench/sandbox-results.json;
 * other scripts may import {@link sandboxBench}.
 */
import { build } from 'esbuild';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The targets. */
export const TARGETS = { startMs: 10_000, page1000MedianMs: 50, filteredSortedPage50MedianMs: 20, singleGetRps: 2000, rssMb: 500 };

function summary(times, extra = {}) {
  const t = [...times].sort((a, b) => a - b);
  const at = (p) => +t[Math.min(t.length - 1, Math.floor(t.length * p))].toFixed(2);
  return { medianMs: at(0.5), p90Ms: at(0.9), maxMs: at(1), runs: t.length, ...extra };
}

/**
 * Runs the benchmark against a sandbox seeded with `seed` prospects.
 * @param opts.seed @default 100000
 */
export async function sandboxBench({ seed = 100_000 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const out = join(dir, 'sandbox.mjs');
  await build({
    entryPoints: [join(root, 'src/sandbox/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: out,
    logLevel: 'warning',
  });
  const childFile = join(dir, 'child.mjs');
  writeFileSync(
    childFile,
    `
import { startSandbox } from ${JSON.stringify(pathToFileURL(out).href)};
const t0 = performance.now();
const sb = await startSandbox({ port: 0, seed: ${seed}, rateLimit: 10_000_000 });
process.send({ baseUrl: sb.baseUrl, token: sb.token, startMs: performance.now() - t0 });
process.on('message', async (m) => {
  if (m === 'rss') process.send({ rss: process.memoryUsage().rss });
  if (m === 'stop') { await sb.close(); process.exit(0); }
});
`,
  );
  const child = fork(childFile, [], { stdio: 'inherit' });
  const nextMessage = () => new Promise((resolve) => child.once('message', resolve));
  const sb = await nextMessage();
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const url = new URL(sb.baseUrl);

  const get = (path) =>
    new Promise((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname + path, agent, headers: { Authorization: `Bearer ${sb.token}` } },
        (res) => {
          let n = 0;
          res.on('data', (c) => (n += c.length));
          res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(`${path}: ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end();
    });

  /** Times `paths(i)` for i in 0..runs-1, after one untimed warm-up request. */
  async function timed(runs, paths) {
    await get(paths(0));
    const times = [];
    let bytes = 0;
    for (let i = 0; i < runs; i++) {
      const s = performance.now();
      bytes = await get(paths(i));
      times.push(performance.now() - s);
    }
    return summary(times, { bytes });
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

  try {
    // Id ranges starting past the offset cap, each still holding a full page.
    const step = Math.max(1, Math.floor((seed - 11_000) / 30));
    const page1000 = await timed(30, (i) => `/prospects?page[limit]=1000&page[offset]=${(i % 10) * 1000}`);
    const page1000Offset9000 = await timed(15, () => '/prospects?page[limit]=1000&page[offset]=9000');
    const page1000ById = await timed(30, (i) => `/prospects?sort=id&filter[id]=${10_001 + i * step}..inf&page[limit]=1000`);
    const filteredSortedPage50 = await timed(
      31,
      () => '/prospects?filter[title]=CEO,CTO&filter[createdAt]=neginf..inf&sort=-updatedAt,lastName&page[limit]=50',
    );
    const relationFilteredPage50 = await timed(31, () => '/prospects?filter[account][id]=7&sort=lastName&page[limit]=50');
    const singleGetRps = await throughput(5, 16);
    child.send('rss');
    const rssMb = Math.round((await nextMessage()).rss / 1048576);
    const result = {
      seed,
      startMs: Math.round(sb.startMs),
      page1000,
      page1000Offset9000,
      page1000ById,
      filteredSortedPage50,
      relationFilteredPage50,
      singleGetRps,
      rssMb,
      targets: TARGETS,
    };
    result.pass =
      result.startMs < TARGETS.startMs &&
      [page1000, page1000Offset9000, page1000ById].every((p) => p.medianMs < TARGETS.page1000MedianMs) &&
      filteredSortedPage50.medianMs < TARGETS.filteredSortedPage50MedianMs &&
      singleGetRps >= TARGETS.singleGetRps &&
      rssMb < TARGETS.rssMb;
    return result;
  } finally {
    agent.destroy();
    child.send('stop');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await sandboxBench({ seed: Number(process.env.SEED ?? 100_000) });
  const text = JSON.stringify(result, null, 2);
  console.log(text);
  writeFileSync(join(root, 'bench/sandbox-results.json'), text + '\n');
}
