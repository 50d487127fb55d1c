#!/usr/bin/env node
/**
 * `npm test`: builds the bundle (the tests run the built bin/svc), then runs the type-check and
 * Biome beside the vitest suite instead of before it. Arguments go to vitest
 * (`npm test -- test/e2e/enroll.test.ts`).
 *
 * Why beside: the suite keeps both cores busy but for its first seconds (vitest loads its config
 * and finds the files on one core, the rate-budget files that start first mostly wait), and the
 * two checks took ~3 s in a row before it; their output is held and printed after the suite's, and
 * the exit code is the suite's, or else the first failing check's. A check is skipped on a tree
 * that passed it before (below), as the build is on sources it was made from (bin/build.mjs).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { treeDigest } from '../bin/tree-digest.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const node = process.execPath;
const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** Runs a command in the repository; `held` collects its output instead of printing it. */
function run(file, args, held, shell = false) {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: root, shell, stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let out = '';
    if (held) {
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
    }
    child.on('error', (err) => resolve({ code: 1, out: `${err.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
  });
}

/** A package.json script by name, through the shell as npm runs it (without npm's own start-up). */
const script = (name, held) => run(scripts[name], [], held, true);

const build = await script('build', false);
if (build.code !== 0) process.exit(build.code);

const BIOME = ['node_modules/@biomejs/biome/bin/biome', 'check', '--config-path', '.ci/biome.json', '--diagnostic-level=error', '.'];

// What the checks read: every file under the folders they read, the package files (versions of
// TypeScript, Biome and the types) and tsconfig.json.
const tree = treeDigest(['src', 'test', 'bin', 'bench', '.ci', 'package.json', 'package-lock.json', 'tsconfig.json']);

/**
 * A check, unless the same tree passed it before (the tree's digest with the check's command line,
 * kept in node_modules/.cache/svc/<name>.passed after a pass): Biome keeps no cache of its own
 * (~3.8 CPU-s a whole check here), and the type-check's incremental rerun still reads every file
 * (~1.5 CPU-s). A fresh clone, or any change to what they read, checks it all.
 */
async function unlessPassed(name, command, start) {
  const digest = createHash('sha256').update(`${command}\0${tree}`).digest('hex');
  const stamp = `node_modules/.cache/svc/${name}.passed`;
  const passed = existsSync(stamp) ? readFileSync(stamp, 'utf8') : '';
  if (passed === digest) return { code: 0, out: '', note: ' (unchanged since it last passed)' };
  const r = await start();
  if (r.code === 0) {
    mkdirSync('node_modules/.cache/svc', { recursive: true });
    writeFileSync(stamp, digest);
  }
  return r;
}

const checks = [
  ['type-check (TypeScript 7)', unlessPassed('typecheck', scripts.typecheck, () => script('typecheck', true))],
  ['format and lint (Biome)', unlessPassed('biome', BIOME.join(' '), () => run(node, BIOME, true))],
];
const suite = await run(node, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/vitest.config.ts', ...process.argv.slice(2)]);

let code = suite.code;
for (const [name, pending] of checks) {
  const r = await pending;
  if (r.code === 0) {
    process.stderr.write(`${name}: passed${r.note ?? ''}\n`);
    continue;
  }
  process.stderr.write(`\n${name}: failed (exit ${r.code})\n${r.out}`);
  if (code === 0) code = r.code;
}
process.exit(code);
