/**
 * bench/RESULTS.md from the benchmarks' results: each figure beside its target and, where one
 * exists, beside the floor measured in the same run; ✓ or ✗ for every target.
 */

const ms = (n) => `${n.toFixed(1)} ms`;
const x = (n) => `${n.toFixed(2)}×`;
const mib = (kb) => `${(kb / 1024).toFixed(0)} MiB`;
const int = (n) => Math.round(n).toLocaleString('en-US');
const mark = (ok) => (ok ? '✓' : '✗');
const row = (cells) => `| ${cells.join(' | ')} |`;

function startupSection(s) {
  const floor = s.times.emptyFile.median;
  const cpuFloor = s.cpuMs.emptyFile.median;
  const lines = [
    '## Start-up',
    '',
    `Each command runs as a new process, ${s.runs} times, interleaved with the floors in the same rounds (\`node empty.mjs\`: an empty ES module; \`node -e 0\`).`,
    "Wall time: median and interquartile range; ratio = median ÷ the empty file's median. CPU time (user + system, read by a preload) is steadier on a busy machine and shown for reference.",
    'The list commands run against a sandbox already running in its own process, with a profile logged in to it (`svc login --with-token`).',
    '',
    row(['command', 'wall median', 'IQR', 'ratio', 'target', '', 'CPU median', 'CPU ratio']),
    row(['---', '---:', '---', '---:', '---', '---', '---:', '---:']),
  ];
  const targets = { version: 1.3, help: 2.0, resourceHelp: 2.0, listLimit1: 4.0 };
  const labels = {
    emptyFile: '`node empty.mjs` (floor)',
    nodeE0: '`node -e 0`',
    version: '`svc --version`',
    help: '`svc --help`',
    resourceHelp: '`svc prospects --help`',
    listLimit1: '`svc prospects list --limit 1 -o json`',
    listLimit50: '`svc prospects list --limit 50 -o json`',
  };
  for (const [k, label] of Object.entries(labels)) {
    const t = s.times[k];
    const ratio = t.median / floor;
    const target = targets[k];
    lines.push(
      row([
        label,
        ms(t.median),
        `${t.p25.toFixed(1)}–${t.p75.toFixed(1)}`,
        k === 'emptyFile' ? '1.00×' : x(ratio),
        target ? `≤ ${target.toFixed(1)}×` : '',
        target ? mark(ratio <= target) : '',
        ms(s.cpuMs[k].median),
        x(s.cpuMs[k].median / cpuFloor),
      ]),
    );
  }
  const rss = s.rssKb.version.median / s.rssKb.emptyFile.median;
  const over = s.times.listLimit50.median - s.times.nodeE0.median;
  lines.push(
    '',
    row(['figure', 'value', 'floor', 'ratio / difference', 'target', '']),
    row(['---', '---:', '---:', '---:', '---', '---']),
    row([
      'peak RSS of `svc --version`',
      mib(s.rssKb.version.median),
      `${mib(s.rssKb.emptyFile.median)} (empty file)`,
      x(rss),
      '≤ 1.3×',
      mark(rss <= 1.3),
    ]),
    row([
      '`svc prospects list --limit 50` (one request) over `node -e 0`',
      ms(s.times.listLimit50.median),
      ms(s.times.nodeE0.median),
      `+${ms(over)}`,
      '≤ +150 ms',
      mark(over <= 150),
    ]),
  );
  return lines;
}

/** The ndjson client throughput target, in records per second. */
const TARGET_RATE = 30_000;

function listSection(l) {
  const svc = l.replay.svc;
  const floor = l.replay.floor;
  const transport = l.replay.transport;
  const rate = (m) => (l.records / m) * 1000;
  const ratio = svc.ms.median / floor.ms.median;
  const rss = l.direct.rssKb.max;
  return [
    `## Listing ${int(l.records)} prospects (\`svc prospects list --all -o ndjson\`)`,
    '',
    'Each record carries 150 null custom fields (~5.7 KB of JSON; a page of 1,000 is ~5.7 MB).',
    '',
    '- Requests and records: counted by a recording proxy in front of the sandbox.',
    '- Peak RSS and end-to-end time: against the sandbox (in its own process), output piped away.',
    `- Client throughput: the recorded pages served from memory by a trivial server, ${svc.ms.n} rounds, medians. In each round the floor ran too: a raw undici loop fetching the same URLs, parsing each page and writing each resource object as one line (no flattening, no prefetch); and, for reference, the same loop writing each body whole, decoded to text and not parsed (transport only).`,
    '',
    row(['figure', 'value', 'floor', 'ratio', 'target', '']),
    row(['---', '---:', '---:', '---:', '---', '---']),
    row(['requests', int(l.requests), '', '', '≤ 101', mark(l.requests <= 101)]),
    row(['records written', int(l.lines), '', '', `= ${int(l.records)}`, mark(l.lines === l.records)]),
    row([
      'client throughput (recorded pages)',
      `${int(rate(svc.ms.median))} records/s`,
      `${int(rate(floor.ms.median))} records/s`,
      x(ratio),
      `≥ ${int(TARGET_RATE)} records/s`,
      mark(rate(svc.ms.median) >= TARGET_RATE),
    ]),
    row([
      'time against the raw undici loop',
      `${(svc.ms.median / 1000).toFixed(2)} s`,
      `${(floor.ms.median / 1000).toFixed(2)} s`,
      x(ratio),
      '≤ 1.5×',
      mark(ratio <= 1.5),
    ]),
    row(['peak RSS (largest of the runs against the sandbox)', mib(rss), '', '', '< 150 MiB', mark(rss < 150 * 1024)]),
    row(['peak RSS (recorded pages: the next page arrives at once)', mib(svc.rssKb.max), mib(floor.rssKb.max), '', '', '']),
    row([
      'CPU time (recorded pages)',
      `${(svc.cpuMs.median / 1000).toFixed(2)} s`,
      `${(floor.cpuMs.median / 1000).toFixed(2)} s`,
      x(svc.cpuMs.median / floor.cpuMs.median),
      '',
      '',
    ]),
    row(['transport only (each body written whole)', '', `${int(rate(transport.ms.median))} records/s`, '', '', '']),
    row(['end to end against the sandbox', `${(l.direct.ms.median / 1000).toFixed(1)} s`, '', '', '', '']),
    ...(rate(transport.ms.median) < TARGET_RATE
      ? [
          '',
          `In this run the transport-only loop did ${int(rate(transport.ms.median))} records/s, under the throughput target itself: the machine ran slower than the one the target was set on (where that loop did ~59,000 records/s). The time against the raw undici loop, measured in the same rounds, is the comparison that carries over from machine to machine.`,
        ]
      : []),
  ];
}

/** The format each narrowing variant of the format bench is compared to. */
const COMPARED_TO = { 'table --columns': 'table', 'json --query': 'json' };

/**
 * Targets of the formats: CPU time a record at most this many times the reference loop's (the
 * plain client: fetch, JSON.parse, JSON.stringify each record) in the same round. A fixed
 * yardstick: unlike a ratio to ndjson, it does not tighten when ndjson gets faster.
 */
export const FORMAT_TARGETS = { ndjson: 0.6, json: 0.8, csv: 0.8, table: 0.8 };

/** Every output format beside the reference loop, measured in the same rounds (bench/list.mjs, step 4). */
export function formatsSection(f) {
  if (!f) return [];
  const sizes = Object.keys(f)
    .map(Number)
    .sort((a, b) => a - b);
  const largest = Math.max(...sizes);
  const lines = [
    '## Every output format (`svc prospects list --limit N -o <format>`)',
    '',
    `Against the sandbox (in its own process), stdout to a file; in each round the reference loop (\`bench/lib/reference-loop.mjs\`: fetch each page with undici, \`JSON.parse\` it, \`JSON.stringify\` each record as a line) ran first, then every variant once, in turn, so that load changes hit all of them (${f[sizes[0]].ndjson.ms.n} rounds, medians). The figure is CPU time over the reference's in the same round (median of the rounds); targets are ratios to the reference. \`table --columns\` is \`--columns id,firstName,lastName,title,emails\` and is compared to \`table\`; \`json --query\` is \`--query '[].{id: id, firstName: firstName, lastName: lastName, title: title, emails: emails}'\` and is compared to \`json\` (wall time).`,
    '',
    row(['records', 'format', 'CPU a record', 'CPU ÷ reference', 'IQR', 'target', '', 'wall median', 'peak RSS', 'target', '', 'output']),
    row(['---:', '---', '---:', '---:', '---', '---', '---', '---:', '---:', '---', '---', '---:']),
  ];
  for (const n of sizes) {
    for (const [name, r] of Object.entries(f[n])) {
      // A variant that narrows a format (`--columns`, `--query`) is held to that format's time.
      const narrowed = COMPARED_TO[name];
      const ratio = narrowed ? r.ms.median / f[n][narrowed].ms.median : r.cpuRatio?.median;
      const limit = narrowed ? 1.1 : FORMAT_TARGETS[name];
      const rssOk = n !== largest || r.rssKb.max < 150 * 1024;
      lines.push(
        row([
          int(n),
          name === 'reference' ? 'reference loop' : `\`${name}\``,
          `${((r.cpuMs.median * 1000) / n).toFixed(1)} µs`,
          ratio === undefined ? '1.00×' : x(ratio),
          r.cpuRatio && !narrowed ? `${r.cpuRatio.p25.toFixed(2)}–${r.cpuRatio.p75.toFixed(2)}` : '',
          limit === undefined ? '' : `≤ ${limit.toFixed(1)}× ${narrowed ? `\`${narrowed}\` (wall)` : 'reference'}`,
          limit === undefined || ratio === undefined ? '' : mark(ratio <= limit),
          `${(r.ms.median / 1000).toFixed(2)} s`,
          mib(r.rssKb.max),
          n === largest && name !== 'reference' ? '< 150 MiB' : '',
          n === largest && name !== 'reference' ? mark(rssOk) : '',
          `${(r.bytes / 2 ** 20).toFixed(1)} MiB`,
        ]),
      );
    }
  }
  return lines;
}

/** Leaves of a result document as `a.b.c` → value (maps of counts left out). */
function leaves(obj, prefix = '') {
  const out = [];
  for (const [k, v] of Object.entries(obj)) {
    // Their own targets are shown beside the figures; counts by route, run counts and sizes are left out.
    if (['targets', 'byRoute', 'byStatus', 'runs', 'bytes', 'node', 'pass'].includes(k)) continue;
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) out.push(...leaves(v, key));
    else out.push([key, v]);
  }
  return out;
}

/** Another engineer's benchmark, shown as it reports itself, with its own targets. */
function otherSection(title, file, r) {
  const lines = [`## ${title} (\`${file}\`)`, ''];
  if (r.missing) return [...lines, `Not yet available: \`${file}\` does not exist in this checkout.`];
  if (r.error) return [...lines, `Failed: ${r.error}`];
  const targets = r.result.targets ?? {};
  lines.push(
    `As reported by the script (its own JSON output)${r.result.pass !== undefined ? `; its own verdict: ${r.result.pass ? 'all targets met ✓' : 'some targets missed ✗'}` : ''}.`,
    '',
  );
  lines.push(row(['figure', 'value', 'target']), row(['---', '---:', '---']));
  for (const [key, v] of leaves(r.result)) {
    const tKey = key
      .split('.')
      .map((p, i) => (i ? p[0].toUpperCase() + p.slice(1) : p))
      .join('');
    const t = targets[tKey];
    const more = /rps|persecond/i.test(tKey);
    lines.push(row([`\`${key}\``, typeof v === 'number' ? String(v) : `${v}`, t === undefined ? '' : `${more ? '≥' : '≤'} ${t}`]));
  }
  return lines;
}

/** The whole RESULTS.md. */
export function renderResults({ machine, startup, list, bulk, sandbox }) {
  return [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` (bench/run.mjs) on ${machine.date.slice(0, 16).replace('T', ' ')} UTC, in ${machine.seconds} s${machine.code ? `, of commit ${machine.code}` : ''}.`,
    '',
    `Machine: ${machine.cpus}, ${machine.memory} of memory, ${machine.os}, Node ${machine.node}; load average ${machine.load} before the run, ${machine.loadAfter} after.`,
    'Every measured process runs with NODE_EXTRA_CA_CERTS and NODE_OPTIONS unset. Targets: bench/README.md § Performance (start-up, listing against the floor, listing speed and memory).',
    '',
    ...startupSection(startup),
    '',
    ...listSection(list),
    '',
    ...formatsSection(list.formats),
    '',
    ...otherSection('Bulk runs', 'bench/bulk.mjs', bulk),
    '',
    ...otherSection('Sandbox', 'bench/sandbox.mjs', sandbox),
    '',
  ]
    .join('\n')
    .replace(/(?:^\|.*\|$\n?)+/gm, alignTable);
}

/** A Markdown table with its columns padded to one width, so that the file reads as a table too. */
function alignTable(block) {
  const end = block.endsWith('\n') ? '\n' : '';
  const rows = block
    .trimEnd()
    .split('\n')
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  const widths = rows[0].map((_, i) => Math.max(3, ...rows.map((r) => [...(r[i] ?? '')].length)));
  const cell = (c, i, rule) => {
    if (rule) return c.startsWith(':') || c.endsWith(':') ? `${'-'.repeat(widths[i] - 1)}:` : '-'.repeat(widths[i]);
    const pad = ' '.repeat(widths[i] - [...c].length);
    return rows[1][i]?.endsWith(':') ? pad + c : c + pad;
  };
  return rows.map((r, k) => `| ${r.map((c, i) => cell(c, i, k === 1)).join(' | ')} |`).join('\n') + end;
}
