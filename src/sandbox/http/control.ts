/**
 * Sandbox-only control endpoints under `/_sandbox/` (outside the API root, so no client
 * mistakes them for API paths). They simulate what the outside world does to a real org:
 * a prospect opens, clicks or replies to a mailing, or a mailing bounces. They need the
 * sandbox's printed token.
 *
 * - `POST /_sandbox/mailings/{id}/{deliver|open|click|reply|bounce}` → 200 with the mailing
 * - `GET /_sandbox/health` → `{"ok":true}`
 */
import type { IncomingMessage } from 'node:http';
import { resourceByType } from '../../registry/index.js';
import { errors } from '../errors.js';
import { principalOf, ruleContext, type Core } from './core.js';
import { parseQuery } from '../query/query.js';
import { renderSingle } from '../render/documents.js';
import type { HandlerResponse } from './resources.js';
import { mailingEvent, type MailingEvent } from '../rules/mailings.js';

const EVENTS: Record<string, MailingEvent> = {
  deliver: 'delivered',
  open: 'opened',
  click: 'clicked',
  reply: 'replied',
  bounce: 'bounced',
};

/** Handles `/_sandbox/...`. */
export async function handleControl(core: Core, req: IncomingMessage, path: string, _raw: string): Promise<HandlerResponse> {
  const seg = path.split('/').filter(Boolean).slice(1);
  if (seg[0] === 'health' && seg.length === 1) return { status: 200, body: '{"ok":true}' };
  const principal = principalOf(core, req.headers.authorization);
  if (!principal.admin) throw errors.forbidden('Sandbox control endpoints need the token the sandbox printed.');
  if (seg[0] === 'mailings' && seg.length === 3 && req.method === 'POST') {
    const event = EVENTS[seg[2]!];
    const rec = core.store.get('mailing', Number(seg[1]));
    if (!event) throw errors.noRoute(path);
    if (!rec) throw errors.notFound('mailing', seg[1]!);
    mailingEvent(ruleContext(core, principal), rec, event);
    const rt = resourceByType('mailing')!;
    return {
      status: 200,
      body: renderSingle(rt, rec, { store: core.store, baseUrl: core.baseUrl, q: parseQuery(''), principal, rulesFor: core.rulesFor }),
    };
  }
  throw errors.noRoute(path);
}
