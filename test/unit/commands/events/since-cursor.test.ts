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

it("a cursor at a Date's first instant, or whose floor is far past now, is refused with exit 2, nothing sent", async () => {
  const c1 = (body: object) => `c1.${Buffer.from(JSON.stringify(body)).toString('base64url')}`;
  // The first: its window starts before any Date ("unexpected failure: Invalid time value").
  const first = await server.run(['events', 'tail', '--since-cursor', c1({ t: -8.64e15, id: '1', s: [] })]);
  expect(first.code, first.stderr).toBe(2);
  expect(first.stderr).toMatch(/^error: --since-cursor: "c1\.[^"]+" is not a cursor/);
  // A floor (f: back from t) in the year 275760: it was sent to the API as the poll's start.
  const floor = await server.run(['events', 'tail', '--since-cursor', c1({ t: 0, id: '1', s: [], f: -8.6e15 })]);
  expect(floor.code, floor.stderr).toBe(2);
  expect(floor.stderr).toMatch(/^error: --since-cursor: its position \(\+27\d+-.*\) is in the future/);
  expect(first.sent.length + floor.sent.length).toBe(0);
});
