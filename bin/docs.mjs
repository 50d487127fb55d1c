#!/usr/bin/env node
// `npm run docs`: writes the command reference into README.md, between its markers, from the
// command tree (src/cli/docs.ts). test/unit/readme-reference.test.ts fails when they drift, so
// run this after adding or changing a command or option. `--check` only reports drift (exit 1).
import { build } from 'esbuild';
import fs from 'node:fs';

const root = new URL('..', import.meta.url);
const out = new URL(`dist/.docs-${process.pid}.mjs`, root);
// The sources as they are (no build-time snapshot or stubs: speed does not matter here);
// packages stay external and resolve from the repository's node_modules.
await build({
  entryPoints: [new URL('src/cli/docs.ts', root).pathname],
  bundle: true,
  format: 'esm',
  platform: 'node',
  packages: 'external',
  outfile: out.pathname,
  logLevel: 'warning',
});
let reference;
let splice;
try {
  const m = await import(out.href);
  reference = m.commandReference();
  splice = m.spliceReference;
} finally {
  fs.rmSync(out, { force: true });
}
const readmePath = new URL('README.md', root);
const readme = fs.readFileSync(readmePath, 'utf8');
const next = splice(readme, reference);
if (process.argv.includes('--check')) {
  if (next !== readme) {
    process.stderr.write('README.md: the command reference is out of date: run `npm run docs`\n');
    process.exit(1);
  }
} else if (next !== readme) {
  fs.writeFileSync(readmePath, next);
  process.stderr.write('README.md: command reference updated\n');
} else {
  process.stderr.write('README.md: command reference already up to date\n');
}
