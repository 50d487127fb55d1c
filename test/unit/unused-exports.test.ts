/**
 * No export of src/ goes unused: each exported name is imported somewhere (src/, test/ or bench/),
 * or its module is an entry point. An export nobody imports is either dead code or a name that
 * should be private to its file; reviews kept finding both. The check is syntactic (the
 * TypeScript parser, no type checking), so it runs in well under a second.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as TS from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/run-svc.js';

// Required, not imported: an import of this 9 MB CommonJS file first has Node scan it for its
// export names (cjs-module-lexer), about a CPU-second of its own.
const ts: typeof TS = createRequire(import.meta.url)('typescript');

/** Modules loaded from outside the TypeScript sources: every export of them counts as used. */
const ENTRY_POINTS = new Set([
  'src/cli/main.ts', // bin/build.mjs bundles it into dist/main.js
  'src/cli/docs.ts', // bin/docs.mjs (`npm run docs`)
  'src/sandbox/index.ts', // bench/bulk.mjs and bench/sandbox.mjs bundle it
]);

/** Exports kept on purpose though nothing imports them, each with why (`file#name`). */
const KEPT: Record<string, string> = {
  'src/mirror/reader.ts#openMirror': 'a SQLite mirror opened as the binding itself: other commands read mirror files through it',
};

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'fixtures') out.push(...tsFiles(rel));
    } else if (/\.(ts|mts)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** The repository-relative .ts file a relative specifier names, or undefined (packages). */
function resolve(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  for (const candidate of [target.replace(/\.js$/, '.ts'), `${target}.ts`, `${target}/index.ts`]) {
    if (fs.existsSync(path.join(ROOT, candidate))) return candidate;
  }
  return undefined;
}

/** Whether a file may hold a dynamic import or an import type, the only uses below its statements. */
const isDeep = (text: string) => /\bimport\s*\(/.test(text);

/**
 * A file's syntax tree, without what no check here reads: JSDoc comments are left unparsed (in a
 * .ts file they are never code, and the walk below never enters them), and parent links are set
 * only in a file with `import(`, where a dynamic import's use is read from its parent (the
 * statements and their import and export clauses need none). 624 files: ~2.4 → ~1.7 CPU-s of
 * parsing, the same exports and uses.
 */
function parse(file: string, text: string): TS.SourceFile {
  return ts.createSourceFile(
    file,
    text,
    { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone },
    isDeep(text),
  );
}

const hasExport = (node: TS.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The names a file exports itself (re-exports are uses of the other module, and exports here). */
function exportedNames(sf: TS.SourceFile): string[] {
  const names: string[] = [];
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)) {
      for (const el of st.exportClause.elements) names.push(el.name.text);
    } else if (ts.isVariableStatement(st) && hasExport(st)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    } else if (hasExport(st) && 'name' in st && st.name && ts.isIdentifier(st.name as TS.Node)) {
      names.push((st.name as TS.Identifier).text);
    }
  }
  return names;
}

/** Every (module, name) a file imports or re-exports; name '*' for the whole module. */
function uses(file: string, sf: TS.SourceFile, add: (module: string, name: string) => void): void {
  // Imports and re-exports are statements of the file itself; only a dynamic import or an import
  // type sits deeper, so a file without `import(` is not walked whole (the walk was most of the
  // time this test took).
  const deep = isDeep(sf.text);
  const visit = (node: TS.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const target = resolve(file, node.moduleSpecifier.text);
      if (target) {
        if (ts.isImportDeclaration(node)) {
          const bindings = node.importClause?.namedBindings;
          if (node.importClause?.name) add(target, 'default');
          if (bindings && ts.isNamespaceImport(bindings)) add(target, '*');
          if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) add(target, (el.propertyName ?? el.name).text);
          if (!node.importClause) add(target, '*');
        } else if (node.exportClause && ts.isNamedExports(node.exportClause)) {
          for (const el of node.exportClause.elements) add(target, (el.propertyName ?? el.name).text);
        } else add(target, '*');
      }
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      // `const { handler } = await import('./handler.js')` uses `handler`; any other shape, all.
      const arg = node.arguments[0];
      const target = arg && ts.isStringLiteral(arg) ? resolve(file, arg.text) : undefined;
      if (target) {
        const decl = ts.isAwaitExpression(node.parent) ? node.parent.parent : undefined;
        if (decl && ts.isVariableDeclaration(decl) && ts.isObjectBindingPattern(decl.name)) {
          for (const el of decl.name.elements) add(target, ((el.propertyName ?? el.name) as TS.Identifier).text);
        } else add(target, '*');
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const target = resolve(file, node.argument.literal.text);
      if (target) add(target, node.qualifier && ts.isIdentifier(node.qualifier) ? node.qualifier.text : '*');
    }
    if (deep || node === sf) ts.forEachChild(node, visit);
  };
  visit(sf);
}

/** `file#name` of every export of src/ that no other module imports. */
function unusedExports(): string[] {
  const used = new Map<string, Set<string>>();
  const exports = new Map<string, string[]>();
  for (const file of [...tsFiles('src'), ...tsFiles('test'), ...tsFiles('bench')]) {
    const sf = parse(file, fs.readFileSync(path.join(ROOT, file), 'utf8'));
    if (file.startsWith('src/')) exports.set(file, exportedNames(sf));
    uses(file, sf, (module, name) => {
      if (module === file) return;
      let names = used.get(module);
      if (!names) used.set(module, (names = new Set()));
      names.add(name);
    });
  }
  const unused: string[] = [];
  for (const [file, names] of exports) {
    if (ENTRY_POINTS.has(file) || used.get(file)?.has('*')) continue;
    for (const name of names) if (!used.get(file)?.has(name) && !(`${file}#${name}` in KEPT)) unused.push(`${file}#${name}`);
  }
  return unused.sort();
}

describe('exports of src/', () => {
  it('are each imported somewhere, or kept for a stated reason', () => {
    expect(unusedExports()).toEqual([]);
  });

  it('finds an export nobody imports, and sees the uses of each import form', () => {
    const sf = (text: string) => parse('x.ts', text);
    expect(exportedNames(sf('export const a = 1; export function b() {} export type C = 1; const d = 2; export { d as e };'))).toEqual([
      'a',
      'b',
      'C',
      'e',
    ]);
    const seen: string[] = [];
    uses(
      'src/cli/x.ts',
      sf(
        "import { f as g } from '../errors.js'; import type { T } from '../suggest.js';\n" +
          "export { h } from '../own-field.js'; const { k } = await import('../json-depth.js'); type Q = import('../private-file.js').P;",
      ),
      (m, n) => seen.push(`${m}#${n}`),
    );
    expect(seen).toEqual(['src/errors.ts#f', 'src/suggest.ts#T', 'src/own-field.ts#h', 'src/json-depth.ts#k', 'src/private-file.ts#P']);
  });
});
