/**
 * report's usage errors, in-process: bad --by, a sort mixing rates and attributes, --limit 0 are
 * one error line each, nothing sent. (The e2e tests keep a non-numeric id through the built
 * binary.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

describe('report sequences', () => {
  it('bad --by or a mixed sort: one usage error, nothing sent', async () => {
    for (const args of [
      ['--by', 'speed'],
      ['--sort', 'reply,name'],
      ['--limit', '0'],
    ]) {
      const r = await server.run(['report', 'sequences', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')[0]).toMatch(/^error: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.sent).toHaveLength(0);
    }
  });
});
