/**
 * `svc completion <shell>`, in-process: the committed scripts are what it prints. (The e2e tests
 * keep the shells loading them, and an unknown shell, through the built binary.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../../../helpers/in-process-cli.js';
import { baseEnv, ROOT, tempDir } from '../../../helpers/run-svc.js';

const SCRIPTS = { bash: 'svc.bash', zsh: '_svc', fish: 'svc.fish' } as const;

describe('completion scripts', () => {
  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    it(`completions/${SCRIPTS[shell]} is what \`svc completion ${shell}\` prints (run npm run completions after changing commands)`, async () => {
      const r = await runInProcess(['completion', shell], baseEnv({ SVC_CONFIG_DIR: tempDir() }));
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(10_000);
      expect(
        r.stdout === fs.readFileSync(path.join(ROOT, 'completions', SCRIPTS[shell]), 'utf8'),
        `completions/${SCRIPTS[shell]} is out of date: run npm run completions`,
      ).toBe(true);
    });
  }
});
