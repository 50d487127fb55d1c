/**
 * `POST /webhooks/cleanup` with the cleanup token as Bearer: 204 removed, 404 already gone,
 * 401 invalid token — all with empty bodies, as the spec's Webhook endpoints table says.
 */
import { ErrorResponse } from '../errors.js';
import type { Core } from './core.js';
import type { HandlerResponse } from './resources.js';
import { retireCleanupToken } from '../rules/webhooks.js';

function empty(status: number): ErrorResponse {
  return new ErrorResponse(status, [], {}, true);
}

/** Handles the cleanup endpoint. */
export function handleCleanup(core: Core, authorization: string | undefined): HandlerResponse {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (!token) throw empty(401);
  for (const hook of core.store.table('webhook').values()) {
    if (hook.attributes['cleanupToken'] === token) {
      core.store.remove('webhook', hook.id);
      retireCleanupToken(core.store, token);
      return { status: 204 };
    }
  }
  const retired = (core.store.meta['retiredCleanupTokens'] as string[] | undefined) ?? [];
  throw empty(retired.includes(token) ? 404 : 401);
}
