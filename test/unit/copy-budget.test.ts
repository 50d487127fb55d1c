/** The request budget of an org copy: counted, never exceeded, lowered to what the hour has left. */
import { describe, expect, it } from 'vitest';
import type { ApiClient, ApiRequest, ApiResponse } from '../../src/api/client.js';
import { BudgetedClient, BudgetExhausted } from '../../src/commands/sandbox/copy-budget.js';

function fakeApi(remaining: () => number | undefined): { api: ApiClient; sent: ApiRequest[] } {
  const sent: ApiRequest[] = [];
  const api = {
    baseUrl: new URL('http://api.test/api/v2/'),
    resolve: (p: string) => new URL(p, 'http://api.test/api/v2/'),
    request: async (req: ApiRequest): Promise<ApiResponse> => {
      sent.push(req);
      return { status: 200, url: '', headers: {}, doc: {}, text: '', rateLimit: { remaining: remaining() } };
    },
  } as unknown as ApiClient;
  return { api, sent };
}

describe('BudgetedClient', () => {
  it('sends at most the budget, then refuses without sending', async () => {
    const { api, sent } = fakeApi(() => undefined);
    const c = new BudgetedClient(api, 3);
    for (let i = 0; i < 3; i++) await c.request({ method: 'GET', path: 'x' });
    await expect(c.request({ method: 'GET', path: 'x' })).rejects.toBeInstanceOf(BudgetExhausted);
    expect(sent).toHaveLength(3);
    expect(c.used).toBe(3);
    expect(c.left).toBe(0);
  });

  it('lowers the budget to what the hourly limit has left', async () => {
    let left = 2;
    const { api, sent } = fakeApi(() => left--);
    const c = new BudgetedClient(api, 100);
    await c.request({ method: 'GET', path: 'x' });
    expect(c.lowered).toBe(true);
    expect(c.budget).toBe(3);
    await c.request({ method: 'GET', path: 'x' });
    await c.request({ method: 'GET', path: 'x' });
    const err = await c.request({ method: 'GET', path: 'x' }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(BudgetExhausted);
    expect((err as Error).message).toMatch(/all the hourly limit had left/);
    expect(sent).toHaveLength(3);
  });
});
