/**
 * The README's "Common tasks" work as written: every `sh` block of that section runs in bash
 * against the sandbox (`svc --sandbox` starts one in-process), `svc` standing for the built
 * bin/svc, each block in an empty directory with its own config and data directories. Blocks
 * fenced as `sh no-test` (long-running, or needing a browser) are left out. The README's other
 * `svc …` lines run in readme-examples.test.ts.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sectionBlocks } from '../helpers/readme.js';
import { BIN, ROOT, baseEnv, tempDir } from '../helpers/run-svc.js';

const blocks = sectionBlocks(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), 'Common tasks');
const recipes = blocks.filter((b) => b.info === 'sh');

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd, env, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('README: Common tasks', () => {
  it('has recipes, each block fenced as sh (run here) or sh no-test', () => {
    expect(recipes.length).toBeGreaterThanOrEqual(5);
    for (const b of blocks) expect(['sh', 'sh no-test'], b.body).toContain(b.info);
  });

  for (const [i, recipe] of recipes.entries()) {
    const title = recipe.body.split('\n')[0]!.slice(0, 80);
    // Each recipe has its own directories and sandbox: they run side by side (the file's wall
    // time was most of the e2e folder's).
    it.concurrent(`recipe ${i + 1} works as written: ${title}`, async () => {
      const dir = tempDir('svc-recipe-');
      const env = baseEnv({
        SVC_CONFIG_DIR: path.join(dir, '.config'),
        SVC_DATA_DIR: path.join(dir, '.data'),
        SVC_NODE: process.execPath,
        SVC_BIN: BIN,
      });
      // Each line runs in turn; the first failing command fails the recipe.
      const script = `set -eo pipefail\nsvc() { "$SVC_NODE" "$SVC_BIN" "$@"; }\n${recipe.body}`;
      const r = await bash(script, dir, env);
      expect(r.code, `${recipe.body}\nstderr:\n${r.stderr}`).toBe(0);
      expect(r.stderr, recipe.body).not.toMatch(/^error:/m);
      expect(r.stdout.length + fs.readdirSync(dir).length, 'a recipe prints or writes something').toBeGreaterThan(2);
    }, 60_000);
  }
});
