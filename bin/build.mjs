#!/usr/bin/env node
// The build (`npm run build`, also run by `npm ci` through `prepare`): one code-split ESM bundle in
// dist/. It lives here because the project's top level is fixed (no scripts/ folder); it is not a
// command users run, and package.json's "bin" does not install it.
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { treeDigest } from './tree-digest.mjs';

// Nothing to do when dist/ was built from the same inputs (`npm test` builds before each run, and
// after `npm ci`'s own build): a digest of every file the bundle is made from, kept beside it.
// `--force` builds anyway. esbuild is loaded only when there is something to build.
const inputs = treeDigest(['src', 'bin/build.mjs', 'bin/tree-digest.mjs', 'package.json', 'package-lock.json', 'tsconfig.json']);
const stamp = 'dist/.inputs';
const built = fs.existsSync(stamp) ? fs.readFileSync(stamp, 'utf8') : '';
if (built === inputs && fs.existsSync('dist/main.js') && !process.argv.includes('--force')) process.exit(0);
const { build } = await import('esbuild');

const tmp = `dist/.build-${process.pid}`;
// A process started from the previous build may still load its chunks: keep them a while.
const keepMs = 15 * 60e3;

// Performance machinery (src/README.md, Build): build-time stubs.
// Parts of dependencies svc never reaches (conf's schema validation, undici's HTTP/2 client and
// its fetch body code, which client-h1.js requires only for a FormData body, commander's
// child_process for external subcommands): stubs that throw if ever reached.
const unused = /^(ajv\/dist\/2020\.js|ajv-formats|semver|node:child_process)$|[\\/]client-h2\.js$|[\\/]web[\\/]fetch[\\/]body\.js$/;
const fromDep = /node_modules[\\/](conf|undici|commander)[\\/]/;
const fromUndici = /node_modules[\\/]undici[\\/]/;
// undici asserts its invariants with node:assert (~1.2 ms to load): a plain check that loads the
// real assert only to fail, with the same arguments (undici calls only `assert(value)`).
const undiciAssert = `function assert(value, message) { if (!value) require('node:assert')(value, message) }
module.exports = new Proxy(assert, { get: (f, k) => (k in f ? f[k] : require('node:assert')[k]) })`;
const leaveOut = {
  name: 'leave-out',
  setup(b) {
    b.onResolve({ filter: unused }, (a) => (fromDep.test(a.importer) ? { path: a.path, namespace: 'left-out' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'left-out' }, (a) => ({
      contents: `module.exports = function leftOut() { throw new Error(${JSON.stringify(`${a.path} is left out of the svc bundle`)}) }`,
    }));
    b.onResolve({ filter: /^node:assert$/ }, (a) =>
      fromUndici.test(a.importer) ? { path: 'assert', namespace: 'undici-assert' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'undici-assert' }, () => ({ contents: undiciAssert }));
    // llhttp without WebAssembly SIMD (71 KB of base64), a fallback where SIMD is missing (Node 20+
    // on x64 and arm64 has it): required from undici's own file at run time, only then.
    b.onResolve({ filter: /[\\/]llhttp-wasm\.js$/ }, (a) =>
      fromUndici.test(a.importer) ? { path: 'undici/lib/llhttp/llhttp-wasm.js', external: true } : undefined,
    );
  },
};

// Performance machinery (src/README.md, Build): registry snapshot.
// The registry data as JSON.parse(...) literals: V8 parses JSON much faster than object literals.
const snapshot = {
  name: 'registry-snapshot',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]registry[\\/]data[\\/]index\.ts$/ }, async (a) => {
      const r = await build({ entryPoints: [a.path], bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'warning' });
      const m = await import('data:text/javascript;base64,' + Buffer.from(r.outputFiles[0].text).toString('base64'));
      const json = (k, v) => {
        const s = JSON.stringify(v);
        if (!isDeepStrictEqual(JSON.parse(s), v)) throw new Error(`registry data ${k} is not plain JSON`);
        return s;
      };
      return {
        contents: Object.entries(m)
          .map(([k, v]) => `export const ${k} = JSON.parse(${JSON.stringify(json(k, v))});`)
          .join('\n'),
        loader: 'js',
      };
    });
  },
};

const options = {
  entryPoints: ['src/cli/main.ts'],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  outdir: tmp,
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
  logLevel: 'warning',
  // SQLite as WebAssembly (the mirror on Node 20) reads its .wasm beside its own file: loaded from
  // node_modules, not bundled.
  external: ['node-sqlite3-wasm'],
  // CommonJS dependencies call require() for Node built-ins.
  banner: { js: 'import{createRequire as __svcRequire}from"node:module";const require=__svcRequire(import.meta.url);' },
};

// Performance machinery (src/README.md, Build): layers.
// esbuild puts each module in the chunk of the set of entry points (main and every import()
// target) that reach it, so the ~80 import() targets cut what a command loads into dozens of
// one-module chunks, each a file for Node's loader to resolve, read and link (~0.65 ms apiece).
// A layer is the static closure of its roots (less earlier layers'): every import() target that
// reaches any of it is made to import all of it (a side-effect import, added at build time), so
// all its modules have one set of entry points and land in one chunk. `cli`, what run-cli.ts
// loads, is loaded before any import() target runs: importing it again costs nothing at run time.
const layers = [
  ['cli', ['src/cli/run-cli.ts']],
  ['api', ['src/runtime/services.ts']],
  ['read', ['src/commands/resource-commands/read-handlers.ts']],
];

/** Which import() targets import which layers (from a first build's metafile), and each layer's modules. */
async function layerPlan() {
  const { metafile } = await build({ ...options, plugins: [leaveOut, snapshot], write: false, metafile: true });
  const inputs = metafile.inputs;
  const known = (i) => !i.external && inputs[i.path];
  const staticDeps = (p) => inputs[p].imports.filter((i) => known(i) && i.kind !== 'dynamic-import').map((i) => i.path);
  const closure = (roots) => {
    const seen = new Set(roots);
    for (const q = [...roots]; q.length; ) for (const d of staticDeps(q.pop())) if (!seen.has(d)) q.push(d), seen.add(d);
    return seen;
  };
  const targets = new Set();
  for (const i of Object.values(inputs)) for (const d of i.imports) if (known(d) && d.kind === 'dynamic-import') targets.add(d.path);
  const taken = new Set();
  const members = layers.map(([name, roots]) => {
    const own = roots.flatMap(staticDeps).filter((m) => !taken.has(m));
    const all = [...closure(own)].filter((m) => !taken.has(m));
    for (const m of [...roots, ...all]) taken.add(m);
    return { name, imports: own, all: new Set(all) };
  });
  const inject = new Map();
  // The roots too, so that the layer's import of itself lands in its chunk (not one of its own).
  for (const [, roots] of layers) for (const r of roots) targets.add(r);
  for (const t of targets) {
    if (taken.has(t) && !layers.some(([, roots]) => roots.includes(t))) continue;
    const reach = closure([t]);
    const names = [];
    for (let grew = true; grew; ) {
      grew = false;
      for (const l of members)
        if (!names.includes(l.name) && [...l.all].some((m) => reach.has(m))) {
          names.push(l.name);
          for (const m of closure(l.imports)) reach.add(m);
          grew = true;
        }
    }
    if (names.length) inject.set(path.resolve(t), names);
  }
  return { inject, imports: new Map(members.map((l) => [l.name, l.imports])) };
}

const plan = await layerPlan();
const layered = {
  name: 'layers',
  setup(b) {
    b.onResolve({ filter: /^svc-layer:/ }, (a) => ({ path: a.path, namespace: 'svc-layer' }));
    b.onLoad({ filter: /.*/, namespace: 'svc-layer' }, (a) => ({
      contents: plan.imports
        .get(a.path.slice('svc-layer:'.length))
        .map((m) => `import ${JSON.stringify(path.resolve(m))};`)
        .join('\n'),
      resolveDir: process.cwd(),
      loader: 'js',
    }));
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (a) => {
      const names = plan.inject.get(a.path);
      if (!names) return undefined;
      const head = names.map((n) => `import ${JSON.stringify(`svc-layer:${n}`)};`).join('');
      return { contents: head + fs.readFileSync(a.path, 'utf8'), loader: 'ts', resolveDir: path.dirname(a.path) };
    });
  },
};

await build({ ...options, plugins: [leaveOut, snapshot, layered] });

// Swap in by renames, main.js last, so that dist/main.js is never missing or half written.
fs.mkdirSync('dist/chunks', { recursive: true });
const fresh = new Set(fs.readdirSync(`${tmp}/chunks`));
for (const f of fresh) fs.renameSync(`${tmp}/chunks/${f}`, `dist/chunks/${f}`);
fs.renameSync(`${tmp}/main.js`, 'dist/main.js');
fs.writeFileSync(stamp, inputs);
fs.rmSync(tmp, { recursive: true, force: true });
const stale = (p) => Date.now() - fs.statSync(p).mtimeMs > keepMs;
for (const f of fs.readdirSync('dist/chunks'))
  if (!fresh.has(f) && stale(`dist/chunks/${f}`)) fs.rmSync(`dist/chunks/${f}`, { force: true });
for (const f of fs.readdirSync('dist'))
  if (f.startsWith('.build-') && stale(`dist/${f}`)) fs.rmSync(`dist/${f}`, { recursive: true, force: true });
