/**
 * The quick speed check (bench/README.md § Speed check): a recorded page of prospects with 150
 * custom fields goes through each format's writer (parsed as `list` parses it) and through the
 * reference loop — the plain client, `JSON.parse` of the page and `JSON.stringify` of each record —
 * in one run, interleaved, and each format's CPU time is taken as a ratio to the reference's in
 * the same round. A format over twice its expected ratio fails: generous enough that a busy
 * machine does not fail it (both sides slow down together; the ratios moved by up to 1.4×
 * between runs under a load of 13–18 on 2 cores, other tests running), tight enough that a
 * format made 2.2× as slow fails (at exactly 2× it sits on the limit). The ratios do not move
 * when one format gets faster, unlike a gate relative to ndjson. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { IO } from '../../src/output/io.js';
import { createRecordWriter, type OutputFormat } from '../../src/output/render.js';
import { makePageTexts, parsePage } from '../helpers/render-pages.js';

/**
 * Time per record of each format (the page parsed as `list` parses it, then written) over the
 * reference loop's, as measured on the project's 2-core machine, Node 20 (bench/README.md).
 */
const EXPECTED: Record<string, number> = { ndjson: 0.55, json: 1.4, csv: 1.75, table: 1.2 };
const FORMATS = Object.keys(EXPECTED) as OutputFormat[];
const ROUNDS = 9;
/** How far over its expected ratio a format may go: over the noise (≤ 1.4×), at a 2× slowdown. */
const LIMIT = 2;

const texts = makePageTexts({ seed: 27, pages: 1, perPage: 150, customFields: 150 });
const records = texts.length * 150;

/** Output thrown away as it comes (only the formats' own work is timed). */
function sink(): IO {
  const nothing = () => new Writable({ highWaterMark: 1 << 20, write: (_c, _e, cb) => cb() });
  return {
    stdout: nothing(),
    stderr: nothing(),
    stdin: process.stdin,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    color: false,
    columns: 80,
  };
}

/** The plain client: each page parsed whole, each record written as one line of JSON. */
async function reference(): Promise<number> {
  const out = sink().stdout;
  let bytes = 0;
  for (const text of texts) {
    let chunk = '';
    for (const r of (JSON.parse(text) as { data: unknown[] }).data) chunk += `${JSON.stringify(r)}\n`;
    bytes += chunk.length;
    out.write(chunk);
  }
  return bytes;
}

/** What `svc prospects list --all -o <format>` does with the same pages once they have arrived. */
async function format(f: OutputFormat): Promise<number> {
  const writer = createRecordWriter({ format: f, io: sink(), defaultColumns: ['firstName', 'lastName', 'title', 'emails', 'account'] });
  for (const text of texts) await writer.resources(parsePage(text));
  await writer.end();
  return records;
}

describe('speed check: every format against the reference loop, in one run', () => {
  it(`each format within ${LIMIT}× its expected time per record over the reference (${records} records, ${ROUNDS} rounds)`, async () => {
    const jobs: [string, () => Promise<number>][] = [
      ['reference', reference],
      ...FORMATS.map((f) => [f, () => format(f)] as [string, () => Promise<number>]),
    ];
    const times = new Map<string, number[]>(jobs.map(([name]) => [name, []]));
    // A first round to compile, then interleaved rounds (alternating order) so that load hits
    // every job alike; each format's ratio is the median of its rounds' ratios to the reference's
    // time in the same round.
    for (let round = -1; round < ROUNDS; round++) {
      for (const [name, run] of round % 2 ? jobs : [...jobs].reverse()) {
        const started = process.cpuUsage();
        await run();
        const used = process.cpuUsage(started);
        if (round >= 0) times.get(name)!.push((used.user + used.system) / 1000);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    const refs = times.get('reference')!;
    const ref = median(refs);
    const ratios = Object.fromEntries(FORMATS.map((f) => [f, Number(median(times.get(f)!.map((t, i) => t / refs[i]!)).toFixed(2))]));
    const slow = FORMATS.filter((f) => ratios[f]! > LIMIT * EXPECTED[f]!);
    if (process.env.SPEED_CHECK_REPORT) console.log(JSON.stringify({ refUsPerRecord: (ref * 1000) / records, ratios }));
    expect(
      slow,
      `ratios to the reference loop (${((ref * 1000) / records).toFixed(1)} µs a record): ${JSON.stringify(ratios)}; expected ${JSON.stringify(EXPECTED)}, limit ${LIMIT}× each`,
    ).toEqual([]);
  });
});
