/**
 * A running `svc sandbox --maintenance-until T` is the sandbox `svc --sandbox` uses: its 503s are
 * what the user rehearses. The probe took any 5xx for "nothing usable there" and served the data
 * directory's org in its place, without a word (the command then succeeded against an org with
 * no maintenance).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSvc } from '../helpers/long-running.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';

describe('a sandbox in maintenance', () => {
  it('is used by svc --sandbox, not replaced by the data directory org', async () => {
    const env = { SVC_CONFIG_DIR: tempDir('svc-maint-') };
    const until = new Date(Date.now() + 10 * 60_000).toISOString();
    const fg = startSvc(['sandbox', '--maintenance-until', until, '--json'], { env });
    try {
      await fg.waitFor('stdout', /^\{.*\}$/m, 15_000);
      const r = await svcInProcess(['--sandbox', 'accounts', 'list', '-o', 'json'], { env });
      expect(r.code, r.stderr).not.toBe(0);
      expect(r.stderr).toMatch(/maintenance/i);
      expect(fs.existsSync(path.join(env.SVC_CONFIG_DIR, 'data', 'sandbox-org.json'))).toBe(false);
    } finally {
      expect(await fg.stop('SIGTERM')).toBe(0);
    }
  }, 60_000);
});
