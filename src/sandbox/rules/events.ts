/**
 * Activity recorded as `event` resources: every change of a webhook resource (the spec's
 * Events table) becomes an event named `<type>_<action>` linked to its prospect, mailing and
 * user where known.
 */
import { WEBHOOK_RESOURCE_ACTIONS } from '../../registry/data/index.js';
import type { Principal } from './types.js';
import type { Change, Ref, Store } from '../data/store.js';
import { isoSeconds } from '../data/time.js';
import { payload } from './webhook-delivery.js';

/**
 * What an event records of a change: type, id, action and the names changed, plus the values a
 * version-2 webhook delivery of it carries (`attributes`, `relationships` of a destroyed record,
 * `before`), so that a client can rebuild the delivery it missed (`webhooks listen --catch-up`,
 * `events replay`). The spec leaves the payload's members unstated.
 */
function eventPayload(c: Change): Record<string, unknown> {
  const out: Record<string, unknown> = { type: c.type, id: c.id, action: c.action, changed: c.changed };
  const body = payload(c, 2, '');
  const data = body?.['data'] as { attributes?: unknown; relationships?: unknown } | undefined;
  if (data?.attributes !== undefined) out['attributes'] = data.attributes;
  if (data?.relationships !== undefined) out['relationships'] = data.relationships;
  const before = body?.['beforeUpdate'] as Record<string, unknown> | undefined;
  if (before) {
    const { type: _t, id: _i, ...values } = before;
    out['before'] = values;
  }
  return out;
}

function refTo(store: Store, c: Change, rel: string, type: string): Ref | null {
  if (c.type === type) return c.action === 'destroyed' ? null : { type, id: c.id };
  const v = c.record.rels[rel];
  // A record deleted with its prospect still names it: the event links only what exists.
  return v && !Array.isArray(v) && v.type === type && store.get(type, v.id) ? v : null;
}

/** Starts recording; returns the unsubscribe function. `actor` names the current user. */
export function recordEvents(store: Store, actor: () => Principal | undefined): () => void {
  return store.onChange((c) => {
    if (c.type === 'event' || !WEBHOOK_RESOURCE_ACTIONS[c.type]) return;
    const user = refTo(store, c, 'user', 'user') ?? (actor() ? { type: 'user', id: actor()!.userId } : null);
    store.insert(
      'event',
      {
        name: `${c.type}_${c.action}`,
        eventAt: isoSeconds(store.now()),
        payload: eventPayload(c),
      },
      { prospect: refTo(store, c, 'prospect', 'prospect'), mailing: refTo(store, c, 'mailing', 'mailing'), user },
      // Silent: recording an event is not itself a change that webhooks or events see.
      { silent: true },
    );
  });
}
