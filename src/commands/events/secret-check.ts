/**
 * "A wrong secret is refused before anything is sent": when the org has a webhook for the
 * receiver's address whose secret this token may read, the secret given must be that one, or
 * every delivery would fail the receiver's check. A secret the API redacts (another app's
 * webhook) cannot be compared and is taken as given.
 */
import type { ApiClient } from '../../api/client.js';
import { paginate } from '../../api/paginate.js';
import { ApiError, UsageError } from '../../errors.js';
import { signBody } from '../../webhooks/signature.js';

/** Looks like a redacted value rather than a secret (`***`, `[REDACTED]`, `••••`). */
function redacted(s: string): boolean {
  return /^[*•x.\s]*$/i.test(s) || /redacted|hidden|filtered/i.test(s);
}

/** Same address, ignoring a trailing slash. */
function sameUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

/**
 * Refuses `secret` when a webhook for one of `urls` has a readable secret that differs, and no
 * secret when that webhook has one.
 * @returns the payload version of that webhook, when one was found
 */
export async function checkSecretAgainstWebhooks(
  client: ApiClient,
  urls: readonly string[],
  secret: string | undefined,
  signal: AbortSignal,
): Promise<{ payloadVersion?: 1 | 2 }> {
  try {
    for await (const page of paginate(client, 'webhooks', { query: {}, all: true, pageSize: 1000, signal })) {
      for (const hook of page.records) {
        const a = hook.attributes ?? {};
        if (typeof a['url'] !== 'string' || !urls.some((u) => sameUrl(u, a['url'] as string))) continue;
        const theirs = a['secret'];
        // A redacted secret is still a secret: unsigned deliveries would all be refused by its receiver.
        if (secret === undefined && typeof theirs === 'string' && theirs !== '')
          throw new UsageError(
            `webhook ${String(hook.id)} for ${String(a['url'])} signs its deliveries: pass its --secret (or SVC_WEBHOOK_SECRET): nothing was sent`,
          );
        if (secret !== undefined && typeof theirs === 'string' && theirs !== '' && !redacted(theirs)) {
          // Compared through their signatures of one text: equal secrets sign alike, and the
          // comparison keeps neither secret in an error.
          if (signBody(theirs, 'svc') !== signBody(secret, 'svc'))
            throw new UsageError(`--secret is not the secret of webhook ${String(hook.id)} for ${String(a['url'])}: nothing was sent`).hint(
              "pass that webhook's secret (the receiver checks deliveries against it)",
            );
        }
        const v = a['payloadVersion'];
        return v === 2 || v === 1 ? { payloadVersion: v } : {};
      }
    }
  } catch (err) {
    // Webhooks this token may not list: nothing to compare against.
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) return {};
    throw err;
  }
  return {};
}
