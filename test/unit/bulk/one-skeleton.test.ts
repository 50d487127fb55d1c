/**
 * Every bulk run goes through one skeleton (src/commands/bulk-run/run.ts, see src/README.md,
 * "The life of a bulk run"): only it opens a session, runs the rows through the pool and ends the
 * run. A command that did so itself would be a copy of the skeleton, which drifts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../../src');
/** The skeleton, and the session that defines its steps (its `runRows` wraps the pool). */
const SKELETON = ['commands/bulk-run/run.ts', 'commands/bulk-run/session.ts'];
/** What only the skeleton calls. */
const STEPS = ['openSession', 'runRows', 'finishRun', 'sessionWrites', 'collectFailed', 'writeFailedRows', 'runPool'];

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('one bulk skeleton', () => {
  it('only bulk-run/run.ts imports the steps of a run', () => {
    const wrong: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const rel = path.relative(SRC, file).split(path.sep).join('/');
      if (SKELETON.includes(rel)) continue;
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^import\s+(?!type\b)\{([^}]*)\}\s*from\s+'[^']+'/gms)) {
        const names = m[1]!.split(',').map((s) => s.trim().split(/\s+as\s+/)[0]!);
        for (const n of names) if (STEPS.includes(n)) wrong.push(`${rel}: ${n}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('bulk, upsert and enroll each fill it in', () => {
    for (const rel of ['commands/bulk-run/resource-run.ts', 'commands/bulk-run/upsert-run.ts', 'commands/enroll/handler.ts']) {
      expect(fs.readFileSync(path.join(SRC, rel), 'utf8'), rel).toMatch(/await bulkRun\(ctx, \{/);
    }
  });
});
