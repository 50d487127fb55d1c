#!/usr/bin/env node
// The build (`npm run build`, also run by `npm ci` through `prepare`): one code-split ESM bundle in
// dist/. It lives here because the project's top level is fixed (no scripts/ folder); it is not a
// command users run, and package.json's "bin" does not install it.
import { build } from 'esbuild';
import fs from 'node:fs';
import { isDeepStrictEqual } from 'node:util';

const tmp = `dist/.build-${process.pid}`;
// A process started from the previous build may still load its chunks: keep them a while.
const keepMs = 15 * 60e3;

// Performance machinery (src/README.md, Build): build-time stubs.
// Parts of dependencies svc never reaches (conf's schema validation, undici's HTTP/2 client,
// commander's child_process for external subcommands): stubs that throw if ever reached.
const unused = /^(ajv\/dist\/2020\.js|ajv-formats|semver|node:child_process)$|[\\/]client-h2\.js$/;
const leaveOut = {
  name: 'leave-out',
  setup(b) {
    b.onResolve({ filter: unused }, (a) =>
      /node_modules[\\/](conf|undici|commander)[\\/]/.test(a.importer) ? { path: a.path, namespace: 'left-out' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'left-out' }, (a) => ({
      contents: `module.exports = function leftOut() { throw new Error(${JSON.stringify(`${a.path} is left out of the svc bundle`)}) }`,
    }));
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

await build({
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
  plugins: [leaveOut, snapshot],
  // SQLite as WebAssembly (the mirror on Node 20) reads its .wasm beside its own file: loaded from
  // node_modules, not bundled.
  external: ['node-sqlite3-wasm'],
  // CommonJS dependencies call require() for Node built-ins.
  banner: { js: 'import{createRequire as __svcRequire}from"node:module";const require=__svcRequire(import.meta.url);' },
});

// Swap in by renames, main.js last, so that dist/main.js is never missing or half written.
fs.mkdirSync('dist/chunks', { recursive: true });
const fresh = new Set(fs.readdirSync(`${tmp}/chunks`));
for (const f of fresh) fs.renameSync(`${tmp}/chunks/${f}`, `dist/chunks/${f}`);
fs.renameSync(`${tmp}/main.js`, 'dist/main.js');
fs.rmSync(tmp, { recursive: true, force: true });
const stale = (p) => Date.now() - fs.statSync(p).mtimeMs > keepMs;
for (const f of fs.readdirSync('dist/chunks'))
  if (!fresh.has(f) && stale(`dist/chunks/${f}`)) fs.rmSync(`dist/chunks/${f}`, { force: true });
for (const f of fs.readdirSync('dist'))
  if (f.startsWith('.build-') && stale(`dist/${f}`)) fs.rmSync(`dist/${f}`, { recursive: true, force: true });
