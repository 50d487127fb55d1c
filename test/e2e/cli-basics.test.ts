/**
 * The program itself, through the built binary: `--version` is answered by bin/svc from
 * package.json without loading the bundle. Help and `svc resources` print the same through the
 * real program in-process (test/unit/commands/resource-commands/help.test.ts and
 * test/unit/commands/resources/resources.test.ts).
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { runSvc, tempDir } from '../helpers/run-svc.js';

const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const env = () => ({ SVC_CONFIG_DIR: tempDir() });

describe('svc', () => {
  it('--version prints the package version', async () => {
    const r = await runSvc(['--version'], { env: env() });
    expect(r).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });
});
