/**
 * Usage errors of `svc sandbox` (its options, --from-profile) and `--sandbox-data`, in-process:
 * one error line, nothing started or sent to the profile's API. (The e2e tests keep an unknown
 * profile through the built binary.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/run-svc.js';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

describe('svc sandbox --from-profile', () => {
  it('bad input: one error line, nothing sent', async () => {
    const dir = tempDir();
    const work = tempDir('svc-rehearse-');
    // A logged-in profile "prod" whose API is the recording server.
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({ profiles: { prod: { baseUrl: server.baseUrl, accessToken: 'prod-token' } } }),
      { mode: 0o600 },
    );
    const env = server.env({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: undefined, SVC_AUTH_URL: undefined, SVC_TOKEN: undefined });
    const badFilter = await server.run(['sandbox', '--from-profile', 'prod', '--filter', 'title=CEO'], env);
    expect(badFilter.code).toBe(2);
    expect(badFilter.stderr).toMatch(/error: --filter title=CEO: expected TYPE:EXPR/);
    const stray = await server.run(['sandbox', '--sample', '5'], env);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/error: --sample works with --from-profile NAME/);
    const missing = await server.run(['--sandbox-data', path.join(work, 'missing.json'), 'prospects', 'list'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/error: --sandbox-data .*missing\.json: no such org file/);
    expect(server.received).toEqual([]);
  });
});

describe('svc sandbox', () => {
  it('bad options: one line, exit 2, nothing started', async () => {
    const env = server.env({ SVC_BASE_URL: undefined, SVC_AUTH_URL: undefined, SVC_TOKEN: undefined });
    for (const args of [
      ['--port', 'abc'],
      ['--seed', '-1'],
      ['--maintenance-until', 'soon'],
    ]) {
      const r = await server.run(['sandbox', ...args], env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(new RegExp(`^error: .*${args[0]}`));
    }
    expect(fs.existsSync(path.join(env.SVC_CONFIG_DIR!, 'data', 'sandbox.json'))).toBe(false);
  });
});
