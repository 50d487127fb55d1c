// Preload of bench/lib/measure.mjs: on exit, writes this process's peak RSS (KiB) and its CPU
// time (user + system, ms) to the file named by BENCH_PROBE_OUT.
const { writeFileSync } = require('node:fs');
process.on('exit', () => {
  const out = process.env.BENCH_PROBE_OUT;
  if (!out) return;
  const cpu = process.cpuUsage();
  writeFileSync(out, `${process.resourceUsage().maxRSS} ${(cpu.user + cpu.system) / 1000}`);
});
