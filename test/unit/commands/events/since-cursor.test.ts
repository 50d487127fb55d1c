/**
 * `events tail --since-cursor` with a word that decodes to a time no Date holds: a usage error
 * naming the cursor, nothing sent. It ended in "unexpected failure: Invalid time value" (exit 1)
 * when the first poll wrote its filter's time. In process, nothing sent.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

it('a cursor past the last instant a Date holds is refused with exit 2', async () => {
  // c2: t = 2^53 - 1 (seven bytes of 0xff then 0x0f), id 5, no flags, no seen ids.
  const word = `c2.${Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 5, 0, 0]).toString('base64url')}`;
  const r = await server.run(['events', 'tail', '--since-cursor', word]);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr.split('\n')[0]).toMatch(/^error: --since-cursor: "c2\.[^"]+" is not a cursor/);
  expect(r.sent).toHaveLength(0);
  expect(r.stdout).toBe('');
});
