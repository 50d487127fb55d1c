#!/usr/bin/env node
/**
 * The mirror's reading of a page's attributes, in isolation (bench/README.md § The mirror): a
 * page of 1,000 prospect-like records (222 attributes, 23 with a value, the rest null, as the
 * sandbox's prospects) parsed by the listing's page reader, and each record's attributes read
 * into column slots the way MirrorStore does. `BASELINE=/path/to/other/worktree` (required)
 * compares that tree's src/ (its reader walks each record's attributes again:
 * readAttributeValues) with this one's (the scan's marks: readMarkedValues), and loads the
 * baseline twice for the noise of the same build; the three take turns going first. Prints the
 * median µs per record of each (`PAGES` per round, default 10; `ROUNDS`, default 12).
 */
import { loadSrc } from './lib/load-src.mjs';
import { ROOT } from './lib/sandbox-process.mjs';

const BASELINE = process.env.BASELINE;
if (!BASELINE) throw new Error('set BASELINE=/path/to/other/worktree');
const PAGES = Number(process.env.PAGES ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 12);

const load = (root, tag) =>
  loadSrc(root, `attributes-${tag}`, [
    "export * from './src/listing/page-parse.js';",
    "export { PageScanner } from './src/listing/relationship-scan.js';",
    "export * from './src/mirror/attribute-values.js';",
  ]);

const trees = { base: await load(BASELINE, 'base'), base2: await load(BASELINE, 'base2'), this: await load(ROOT, 'this') };
const keys = ['firstName', 'lastName', 'title', 'emails', 'createdAt', 'updatedAt', 'company', 'occupation', 'score', 'optedOut'];
for (let i = keys.length; i < 23; i++) keys.push(`field${i}`);
for (let i = 1; i <= 150; i++) keys.push(`custom${i}`);
while (keys.length < 222) keys.push(`other${keys.length}`);
const value = (r, i, k) => (i % 5 === 0 ? r * 7 + i : i % 7 === 0 ? [`x${r}@example.com`] : i % 11 === 0 ? true : `value ${r} of ${k}`);
const page = Buffer.from(
  JSON.stringify({
    data: Array.from({ length: 1000 }, (_, r) => ({
      type: 'prospect',
      id: r + 1,
      attributes: Object.fromEntries(keys.map((k, i) => [k, i < 23 ? value(r, i, k) : null])),
      relationships: { account: { data: { type: 'account', id: r % 50 }, links: { related: 'x' } } },
    })),
    meta: { count: 1000 },
  }),
);

function once(m) {
  const scanner = new m.PageScanner();
  const slots = new m.KeySlots(keys);
  const values = new Array(keys.length);
  const kinds = new Uint8Array(keys.length);
  const t0 = performance.now();
  for (let p = 0; p < PAGES; p++) {
    for (const r of m.parseCollection(page, undefined, scanner).data) {
      kinds.fill(0);
      const marks = m.attributeMarks?.(r);
      if (marks) m.readMarkedValues(marks.page, marks.marks, marks.from, marks.to, slots, values, kinds);
      else {
        const g = m.unparsedAttributesRegion(r);
        if (!m.readAttributeValues(g.page, g.start, g.end, slots, values, kinds)) throw new Error('not read from the bytes');
      }
      if (kinds[1] !== 2) throw new Error('lastName not read');
    }
  }
  return (performance.now() - t0) / PAGES; // ms a page of 1,000 = µs a record
}

const times = { base: [], base2: [], this: [] };
const orders = [
  ['base', 'base2', 'this'],
  ['this', 'base', 'base2'],
  ['base2', 'this', 'base'],
];
for (let i = 0; i < ROUNDS; i++) for (const tag of orders[i % 3]) times[tag].push(once(trees[tag]));
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const out = { node: process.version, pages: PAGES, rounds: ROUNDS };
for (const [tag, t] of Object.entries(times)) out[`${tag}UsPerRecord`] = Math.round(median(t) * 10) / 10;
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
