/**
 * The import direction of src/ (see src/README.md, "Layers"): each folder imports only the
 * folders below it, and no two modules import values from each other in a circle. Read from the
 * import lines, so a move or a new import that breaks the layering fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** What each top-level folder may import (files at the top of src/ are open to all). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  cli: ['commands', 'runtime', 'api', 'auth', 'output'],
  commands: [
    'runtime',
    'api',
    'auth',
    'output',
    'listing',
    'bulk',
    'webhooks',
    'events',
    'org-schema',
    'mirror',
    'registry',
    'local-sandbox',
    'sandbox',
    'dedupe',
    'budget',
  ],
  runtime: ['api', 'auth', 'output', 'org-schema', 'local-sandbox', 'budget'],
  budget: ['api', 'auth'],
  'local-sandbox': ['runtime', 'auth', 'api', 'sandbox'],
  bulk: ['api', 'output', 'registry'],
  webhooks: ['output', 'registry'],
  events: ['webhooks', 'api', 'registry'],
  mirror: ['listing', 'api', 'auth', 'registry'],
  'org-schema': ['api', 'registry'],
  output: ['listing', 'api'],
  listing: ['api'],
  auth: ['api'],
  api: ['registry'],
  sandbox: ['registry'],
  registry: [],
  dedupe: [],
};

/**
 * Inside a folder, what each listed sub-folder may import of its siblings: `bulk/` reads input
 * (bottom), runs rows (engine, journal, pacing) over it, and says what a row does (top);
 * `commands/bulk-run/` is the one skeleton the bulk commands fill in, so it imports no command
 * (the org schema is a service of the Context, `ctx.orgSchema()`).
 */
const SUB_MAY_IMPORT: Record<string, readonly string[]> = {
  'bulk/rows': ['bulk/run', 'bulk/input'],
  'bulk/run': ['bulk/input'],
  'bulk/input': [],
  'commands/bulk-run': ['commands/shared'],
};

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
  dynamic: boolean;
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function edges(): Edge[] {
  const out: Edge[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = fs.readFileSync(file, 'utf8');
    const resolve = (spec: string) => path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
    for (const m of text.matchAll(/^(import|export)\s+(type\s+)?([^;]*?)\s*from\s+'(\.[^']+)'/gms)) {
      const names = m[3]!.trim();
      const allTypes =
        /^\{[^}]*\}$/s.test(names) &&
        names
          .slice(1, -1)
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
          .every((s) => s.startsWith('type '));
      out.push({ from: file, to: resolve(m[4]!), typeOnly: Boolean(m[2]) || allTypes, dynamic: false });
    }
    for (const m of text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g))
      out.push({ from: file, to: resolve(m[1]!), typeOnly: false, dynamic: true });
  }
  return out;
}

/** `bulk/run` for src/bulk/run/engine.ts; undefined for a file at the top of its folder. */
const subFolder = (file: string) => {
  const parts = path.relative(SRC, file).split(path.sep);
  return parts.length > 2 && parts[0] !== '..' ? `${parts[0]}/${parts[1]}` : undefined;
};

const folder = (file: string) => {
  const parts = path.relative(SRC, file).split(path.sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0]! : undefined;
};

describe('layers', () => {
  it('every folder of src/ has its rule', () => {
    const folders = fs
      .readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !(f in MAY_IMPORT))).toEqual([]);
  });

  it('imports run one way: each folder imports only those below it', () => {
    const wrong = edges()
      .filter((e) => {
        const a = folder(e.from);
        const b = folder(e.to);
        return a && b && a !== b && !MAY_IMPORT[a]!.includes(b);
      })
      .map((e) => `${path.relative(SRC, e.from)} -> ${path.relative(SRC, e.to)}`);
    expect(wrong).toEqual([]);
  });

  it('local-sandbox loads the sandbox server only with import(): its static imports of sandbox/ are types', () => {
    // Starting a sandbox is lazy (attach.ts); a value imported statically from sandbox/ (the
    // anonymiser once lived in sandbox/data/) pulls the server's modules into every command that
    // only reads a rehearsal key. Shared code the client needs lives in a leaf (src/anonymise.ts).
    const wrong = edges()
      .filter((e) => folder(e.from) === 'local-sandbox' && folder(e.to) === 'sandbox' && !e.typeOnly && !e.dynamic)
      .map((e) => `${path.relative(SRC, e.from)} -> ${path.relative(SRC, e.to)}`);
    expect(wrong).toEqual([]);
  });

  it("a command's command.ts is wiring only: no module but commands/index.ts imports one", () => {
    // A handler importing its flag type from command.ts, which loads the handler, made the small
    // circles; the parsed options' types live in the command's flags.ts.
    const wrong = edges()
      .filter((e) => path.basename(e.to) === 'command.ts' && path.relative(SRC, e.from) !== path.join('commands', 'index.ts'))
      .map((e) => `${path.relative(SRC, e.from)} -> ${path.relative(SRC, e.to)}`);
    expect(wrong).toEqual([]);
  });

  it('the org schema is a service of the Context: no other command imports commands/schema/', () => {
    // Resource commands, bulk input and export once loaded and pulled the schema through the
    // schema command's files; they ask `ctx.orgSchema()` (org-schema/service.ts) now.
    const schema = path.join(SRC, 'commands', 'schema');
    const wrong = edges()
      .filter(
        (e) =>
          e.to.startsWith(schema + path.sep) &&
          !e.from.startsWith(schema + path.sep) &&
          !e.from.endsWith(path.join('commands', 'index.ts')),
      )
      .map((e) => `${path.relative(SRC, e.from)} -> ${path.relative(SRC, e.to)}`);
    expect(wrong).toEqual([]);
  });

  it('inside a folder, listed sub-folders import only the siblings below them', () => {
    expect(fs.readdirSync(path.join(SRC, 'bulk')).filter((f) => !(`bulk/${f}` in SUB_MAY_IMPORT))).toEqual([]);
    const wrong = edges()
      .filter((e) => {
        const a = subFolder(e.from);
        const b = subFolder(e.to);
        if (!a || !(a in SUB_MAY_IMPORT) || a === b || folder(e.from) !== folder(e.to)) return false;
        return !b || !SUB_MAY_IMPORT[a]!.includes(b);
      })
      .map((e) => `${path.relative(SRC, e.from)} -> ${path.relative(SRC, e.to)}`);
    expect(wrong).toEqual([]);
  });

  it('no circle of modules that import values from each other (static imports)', () => {
    const graph = new Map<string, string[]>();
    for (const e of edges()) if (!e.typeOnly && !e.dynamic) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
    const state = new Map<string, 1 | 2>();
    const stack: string[] = [];
    const circles: string[] = [];
    const visit = (n: string) => {
      state.set(n, 1);
      stack.push(n);
      for (const d of graph.get(n) ?? []) {
        if (state.get(d) === 1)
          circles.push(
            stack
              .slice(stack.indexOf(d))
              .map((f) => path.relative(SRC, f))
              .join(' -> '),
          );
        else if (!state.get(d)) visit(d);
      }
      stack.pop();
      state.set(n, 2);
    };
    for (const n of graph.keys()) if (!state.get(n)) visit(n);
    expect(circles).toEqual([]);
  });
});
