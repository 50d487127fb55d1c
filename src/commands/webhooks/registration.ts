/**
 * Creating webhooks for `listen --register` and removing them with their cleanup token
 * (`POST /webhooks/cleanup`, the token as Bearer instead of the user's access token).
 */
import type { ApiClient } from '../../api/client.js';
import type { Context } from '../../runtime/context.js';
import { ApiError, AuthError } from '../../errors.js';
import type { EventSelector } from '../../webhooks/events.js';

/** A webhook this run created. The cleanup token is a secret: never printed. */
export interface RegisteredWebhook {
  id: string;
  resource: string;
  action: string;
  cleanupToken: string;
}

/** Attributes of one webhook to create. */
interface WebhookTarget extends EventSelector {
  url: string;
  secret: string;
  payloadVersion: 1 | 2;
}

/** `POST /webhooks`; the answer must carry the cleanup token. */
export async function createWebhook(api: ApiClient, t: WebhookTarget): Promise<RegisteredWebhook> {
  const body = {
    data: {
      type: 'webhook',
      attributes: { resource: t.resource, action: t.action, url: t.url, secret: t.secret, payloadVersion: t.payloadVersion },
    },
  };
  const res = await api.request({ method: 'POST', path: 'webhooks', body, noRetry: true });
  const data = Array.isArray(res.doc.data) ? undefined : res.doc.data;
  const token = data?.attributes?.cleanupToken;
  if (!data || typeof token !== 'string' || token === '') {
    throw new ApiError(res.status, [{ title: 'bad response', detail: 'the created webhook carries no cleanupToken' }]);
  }
  return { id: String(data.id), resource: t.resource, action: t.action, cleanupToken: token };
}

/** Outcome of a cleanup: the webhook was removed now, or was already gone. */
type CleanupOutcome = 'removed' | 'gone';

/** Options of {@link cleanupWebhook}. */
interface CleanupOptions {
  baseUrl: string;
  /** Own signal: cleanup on Ctrl-C must not be cut short by the aborted command signal. */
  signal?: AbortSignal;
}

/**
 * `POST /webhooks/cleanup` with the cleanup token. 204 → removed, 404 → already gone,
 * 401 → {@link AuthError} saying the token is not valid (without the token).
 */
export async function cleanupWebhook(ctx: Context, cleanupToken: string, opts: CleanupOptions): Promise<CleanupOutcome> {
  const client = await ctx.newApiClient({ baseUrl: opts.baseUrl, tokens: { getToken: async () => cleanupToken } }, { signal: opts.signal });
  try {
    // Removing twice is harmless (the second answer is 404), so a lost answer may be retried.
    await client.request({ method: 'POST', path: 'webhooks/cleanup', idempotent: true, ...(opts.signal ? { signal: opts.signal } : {}) });
    return 'removed';
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return 'gone';
    if (err instanceof ApiError && err.status === 401) throw new AuthError('the cleanup token is not valid (401): no webhook was removed');
    throw err;
  } finally {
    await client.close();
  }
}
