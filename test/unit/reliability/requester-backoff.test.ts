/**
 * The bulk requester's wait after a 429/503 that carries no `Retry-After`: it grows with the
 * refusals in a row (1 s, 2 s, 4 s …), counts workers refused at the same moment once, and
 * starts again from 1 s after an answer — a long run that met many announced 429s does not wait
 * a minute at the first one without the header.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient, ApiRequest, ApiResponse } from '../../../src/api/client.js';
import { Pacer } from '../../../src/bulk/run/pacing.js';
import { Requester } from '../../../src/bulk/run/requester.js';
import { ApiError } from '../../../src/errors.js';

function fakeTime(start = 1_700_000_000_000) {
  let t = start;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
    },
  };
}

const ok: ApiResponse = { status: 201, url: '', headers: {}, doc: { data: { type: 'prospect', id: 1 } }, text: '', rateLimit: {} };
const refused = (retryAfter?: string) => new ApiError(429, [{ id: 'rateLimitExceeded' }], undefined, retryAfter);

/** A client answering from a script: an error to throw, or 'ok'. */
function scripted(script: (ApiError | 'ok')[], now: () => number) {
  const calls: ApiRequest[] = [];
  const sentAt: number[] = [];
  const client = {
    request: async (req: ApiRequest) => {
      calls.push(req);
      sentAt.push(now());
      const next = script.shift() ?? 'ok';
      if (next === 'ok') return ok;
      throw next;
    },
  } as unknown as ApiClient;
  return { client, calls, sentAt };
}

function setup(script: (ApiError | 'ok')[]) {
  const t = fakeTime();
  const waits: number[] = [];
  const pacer = new Pacer({ concurrency: 4, now: t.now, sleep: t.sleep, onWait: (ms) => waits.push(ms) });
  const { client, calls, sentAt } = scripted(script, t.now);
  const requester = new Requester({ client, pacer, signal: new AbortController().signal, sleep: t.sleep, now: t.now });
  return { t, waits, requester, calls, sentAt, pacer };
}

describe('Requester: waits after refusals without Retry-After', () => {
  it('grows 1 s, 2 s, 4 s with refusals in a row', async () => {
    const s = setup([refused(), refused(), refused(), 'ok']);
    const start = s.t.now();
    await s.requester.send({ method: 'POST', path: 'prospects' }, 'create');
    expect(s.calls).toHaveLength(4);
    expect(s.waits).toEqual([1000, 2000, 4000]);
    expect(s.t.now() - start).toBe(7000);
  });

  it('starts again from 1 s after an answer, however many announced 429s came before', async () => {
    const s = setup([...Array.from({ length: 8 }, () => refused('1')), 'ok', refused(), 'ok']);
    await s.requester.send({ method: 'POST', path: 'prospects' }, 'create');
    s.waits.length = 0;
    await s.requester.send({ method: 'POST', path: 'prospects' }, 'create');
    expect(s.waits).toEqual([1000]);
    expect(s.requester.refusals).toBe(9);
  });

  it('workers refused at the same moment count as one refusal', async () => {
    const s = setup([refused(), refused(), refused(), refused()]);
    // A window with plenty left, so that the pacer lets the four go at once.
    s.pacer.observe({ limit: 10_000, remaining: 9_000, reset: String(Math.ceil(s.t.now() / 1000) + 3600) }, 200);
    s.pacer.observe({ limit: 10_000, remaining: 8_999, reset: String(Math.ceil(s.t.now() / 1000) + 3600) }, 200);
    await Promise.all(Array.from({ length: 4 }, () => s.requester.send({ method: 'POST', path: 'prospects' }, 'create')));
    // Four requests sent together, all refused: waits of 1 s, not 1, 2, 4 and 8.
    expect(new Set(s.sentAt.slice(0, 4)).size).toBe(1);
    expect(Math.max(...s.waits)).toBe(1000);
  });
});
