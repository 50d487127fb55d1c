/**
 * The README's "Common tasks" work as written: every `sh` block of that section runs in bash
 * against the sandbox (`svc --sandbox` starts one in-process), each block in an empty directory
 * with its own config and data directories. Blocks fenced as `sh no-test` (long-running, or
 * needing a browser) are left out. The README's other `svc …` lines run in
 * readme-examples.test.ts.
 *
 * bash runs each block whole; its `svc` lines run through svc's program in the test process
 * (test/helpers/svc-bridge.ts): ~55 spawns of bin/svc were 21 CPU-s, the most of any e2e file.
 * The first block runs with the built bin/svc as well, so the binary's way of running a
 * recipe stays covered; `SVC_RECIPES_BIN=1` runs every block with bin/svc.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sectionBlocks } from '../helpers/readme.js';
import { ROOT, tempDir } from '../helpers/run-svc.js';
import { SvcBridge } from '../helpers/svc-bridge.js';

const blocks = sectionBlocks(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), 'Common tasks');
const recipes = blocks.filter((b) => b.info === 'sh');

const bridge = new SvcBridge();

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
      const env = { SVC_CONFIG_DIR: path.join(dir, '.config'), SVC_DATA_DIR: path.join(dir, '.data') };
      // Each line runs in turn (set -eo pipefail); the first failing command fails the recipe.
      const r = await bridge.run(recipe.body, dir, env, { binary: i === 0 });
      expect(r.code, `${recipe.body}\nstderr:\n${r.stderr}`).toBe(0);
      expect(r.stderr, recipe.body).not.toMatch(/^error:/m);
      expect(r.stdout.length + fs.readdirSync(dir).length, 'a recipe prints or writes something').toBeGreaterThan(2);
    }, 60_000);
  }

  // A new user runs them one after another in one org: the prospect the first recipe creates then
  // meets the enrolment by e-mail and the upsert matched by e-mail. Made without an address, it
  // failed both (exit 5, a new user's trial).
  it.concurrent('the recipes that create, enroll by e-mail and upsert by e-mail work one after another in one org', async () => {
    const dir = tempDir('svc-recipe-');
    const env = { SVC_CONFIG_DIR: path.join(dir, '.config'), SVC_DATA_DIR: path.join(dir, '.data') };
    const pick = (text: string) => recipes.find((b) => b.body.includes(text))!.body;
    for (const body of [pick('prospects create --attr firstName=Ada'), pick('people.ndjson'), pick('edited.csv')]) {
      const r = await bridge.run(body, dir, env, { binary: false });
      expect(r.code, `${body}\nstderr:\n${r.stderr}`).toBe(0);
    }
  }, 60_000);
});
