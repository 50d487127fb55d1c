/**
 * Webhook registration rules of the spec's Events section: resource/action table, a required URL,
 * defaults, cleanup token, and the visibility of sensitive attributes. The URL's scheme and the
 * payload version are the registry's (the `https-url` format, an enum), checked with every write's
 * body (query/validate.ts), as svc checks them before sending.
 */
import { WEBHOOK_RESOURCE_ACTIONS } from '../../registry/data/index.js';
import { randomToken } from '../http/auth.js';
import { fieldError, validationError, type ErrorObject } from '../errors.js';
import type { Rec, Store } from '../data/store.js';
import type { Principal, TypeRules, WriteInput } from './types.js';

/** Placeholder shown instead of a sensitive value. */
const REDACTED = '[REDACTED]';

function check(a: Record<string, unknown>): void {
  const errs: ErrorObject[] = [];
  if (typeof a['url'] !== 'string' || !a['url']) errs.push(fieldError('/data/attributes/url', 'url is required.'));
  const resource = String(a['resource'] ?? '*');
  const actions = WEBHOOK_RESOURCE_ACTIONS[resource];
  if (!actions)
    errs.push(fieldError('/data/attributes/resource', `resource must be one of: ${Object.keys(WEBHOOK_RESOURCE_ACTIONS).join(', ')}.`));
  else if (!actions.includes(String(a['action'] ?? '*')))
    errs.push(fieldError('/data/attributes/action', `action of resource '${resource}' must be one of: ${actions.join(', ')}.`));
  if (errs.length) throw validationError(errs);
}

/** Adds a cleanup token to the list of tokens whose webhook is gone (cleanup then answers 404). */
export function retireCleanupToken(store: Store, token: unknown): void {
  if (typeof token !== 'string') return;
  const list = (store.meta['retiredCleanupTokens'] as string[] | undefined) ?? [];
  list.push(token);
  store.setMeta('retiredCleanupTokens', list.slice(-10_000));
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = REDACTED;
    for (const k of [...u.searchParams.keys()]) u.searchParams.set(k, REDACTED);
    return u.toString();
  } catch {
    return REDACTED;
  }
}

/** True when the caller may see the webhook's secret, cleanup token and full URL. */
function sees(p: Principal, rec: Rec): boolean {
  if (p.admin) return true;
  return p.appId !== null && rec.attributes['creatorAppId'] === p.appId;
}

export const webhookRules: TypeRules = {
  beforeCreate: (ctx, input: WriteInput) => {
    const a = input.attributes;
    a['resource'] ??= '*';
    a['action'] ??= '*';
    a['payloadVersion'] ??= 1;
    check(a);
    Object.assign(a, {
      active: true,
      cleanupToken: randomToken(24),
      creatorAppId: ctx.principal.appId,
      creatorAppName: ctx.principal.appName,
      disabledReason: null,
      disabledSince: null,
      disabledUntil: null,
    });
  },
  beforeUpdate: (_ctx, rec, input) => check({ ...rec.attributes, ...input.attributes }),
  beforeDelete: (ctx, rec) => retireCleanupToken(ctx.store, rec.attributes['cleanupToken']),
  present: (p, rec, name, value, created) => {
    if (value == null || created || sees(p, rec)) return value;
    if (name === 'secret' || name === 'cleanupToken') return REDACTED;
    if (name === 'url') return redactUrl(String(value));
    return value;
  },
};
