// Adds up the figures the reliability tests wrote with SVC_RELIABILITY_STATS=FILE (test/helpers/stats.ts).
import fs from 'node:fs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node test/reliability/stats.mjs FILE');
  process.exit(2);
}
const totals = {};
const bySource = {};
for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
  const { source, ...figures } = JSON.parse(line);
  bySource[source] ??= {};
  for (const [k, v] of Object.entries(figures)) {
    totals[k] = (totals[k] ?? 0) + v;
    bySource[source][k] = (bySource[source][k] ?? 0) + v;
  }
}
console.log(JSON.stringify({ totals, bySource }, null, 2));
