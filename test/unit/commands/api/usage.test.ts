/** `svc api` before anything is sent, in-process: the token never goes to another host. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUnsent, UNSENT_TOKEN, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

describe('svc api', () => {
  it('refuses an absolute URL to another host (exit 2, nothing sent)', async () => {
    const r = await server.run(['api', 'GET', 'https://evil.example/prospects']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to send the token/);
    expect(r.stderr).not.toContain(UNSENT_TOKEN);
    expect(r.sent).toEqual([]);
  });
});
