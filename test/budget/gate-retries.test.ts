/**
 * A retry through the shared rate budget waits the client's backoff (200, 400, 800 ms), not
 * the budget's one-second fallback. The first request of a window the ledger does not know is a
 * probe: others wait for its reading. An answer without `X-RateLimit-*` headers (a gateway's 504)
 * or no answer at all (a reset connection) carries no reading; the gate kept waiting for one,
 * so every retry after such a failure started only when its one-second timer gave up (the
 * reliability files' fault proxy saw gaps of 1213, 1403 and 1805 ms where the backoff was 200,
 * 400 and 800). In-process against a fault proxy in front of a sandbox, a fresh ledger each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { type Fault, times } from '../helpers/fault-proxy.js';
import { startRig, type Rig } from '../helpers/reliability.js';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ seed: 20 });
});
afterAll(() => rig?.close());

/** Runs `svc prospects get <id>` through three failures of one kind; the gaps between its attempts, in ms. */
async function gapsThrough(id: number, fault: Fault): Promise<number[]> {
  const path = new RegExp(`^/api/v2/prospects/${id}(\\?|$)`);
  rig.proxy.plan({ method: 'GET', path }, times(3, fault));
  const r = await svcInProcess(['prospects', 'get', String(id), '-o', 'json'], { env: rig.env() });
  expect(r.code, r.stderr).toBe(0);
  const at = rig.proxy.since(0, { method: 'GET', path }).map((e) => e.at);
  expect(at).toHaveLength(4);
  return at.slice(1).map((t, i) => t - at[i]!);
}

// The backoff is 200, 400 and 800 ms; a gap of a second more is the fallback's.
const SLACK_MS = 450;

// Each its own record and its own ledger: the two run at once.
describe.concurrent('retries under the shared budget', () => {
  it('after a 504 without rate headers: the backoff, not a second more', async () => {
    const gaps = await gapsThrough(1, {
      kind: 'answer',
      status: 504,
      body: '<html>Gateway Timeout</html>',
      headers: { 'content-type': 'text/html' },
    });
    gaps.forEach((g, i) => {
      expect(g, `gap ${i + 1}: ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(200 * 2 ** i - 20);
      expect(g, `gap ${i + 1}: ${gaps.join(', ')} ms`).toBeLessThan(200 * 2 ** i + SLACK_MS);
    });
  });

  it('after a connection reset before any answer: the backoff, not a second more', async () => {
    const gaps = await gapsThrough(2, { kind: 'reset-before' });
    gaps.forEach((g, i) => {
      expect(g, `gap ${i + 1}: ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(200 * 2 ** i - 20);
      expect(g, `gap ${i + 1}: ${gaps.join(', ')} ms`).toBeLessThan(200 * 2 ** i + SLACK_MS);
    });
  });
});
