/**
 * Sandbox features the bulk-run tests lean on: a short rate-limit window, maintenance switched
 * on and off while running, and the refusal to enroll a prospect who opted out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { doc, start, type Client } from '../helpers/sandbox.js';

let c: Client | undefined;
afterEach(async () => {
  await c?.sb.close();
  c = undefined;
});

describe('sandbox support for bulk runs', () => {
  it('rateWindowMs shortens the window: the budget comes back after it', async () => {
    c = await start({ rateLimit: 3, rateWindowMs: 400 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await c.get('/mailboxes')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await c.get('/mailboxes');
    // Whole seconds, rounded up: 1 or 2 for a window of 400 ms.
    expect([1, 2]).toContain(Number(refused.headers.get('retry-after')));
    const reset = Number(refused.headers.get('x-ratelimit-reset'));
    expect(reset * 1000).toBeLessThanOrEqual(Date.now() + 1500);
    await new Promise((r) => setTimeout(r, 450));
    const again = await c.get('/mailboxes');
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('setMaintenance starts and ends 503 answers with an ISO Retry-After', async () => {
    c = await start();
    expect((await c.get('/mailboxes')).status).toBe(200);
    const until = new Date(Date.now() + 60_000).toISOString();
    c.sb.setMaintenance(until);
    const r = await c.get('/mailboxes');
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe(until);
    expect(r.body.errors[0].id).toBe('scheduledServerMaintenance');
    c.sb.setMaintenance(undefined);
    expect((await c.get('/mailboxes')).status).toBe(200);
  });

  it('refuses to enroll a prospect who opted out (422 on the prospect relationship)', async () => {
    c = await start();
    const p = await c.post('/prospects', doc('prospect', { firstName: 'Opt', emails: ['opt.out@example.test'], optedOut: true }));
    expect(p.status).toBe(201);
    const r = await c.post(
      '/sequenceStates',
      doc(
        'sequenceState',
        {},
        {
          prospect: { data: { type: 'prospect', id: p.body.data.id } },
          sequence: { data: { type: 'sequence', id: 1 } },
          mailbox: { data: { type: 'mailbox', id: 1 } },
        },
      ),
    );
    expect(r.status).toBe(422);
    expect(r.body.errors[0].detail).toMatch(/opted out/);
    expect(r.body.errors[0].source.pointer).toBe('/data/relationships/prospect');
  });
});
