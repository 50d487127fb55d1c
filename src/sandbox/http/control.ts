/**
 * Sandbox-only control endpoints under `/_sandbox/` (outside the API root, so no client
 * mistakes them for API paths). They simulate what the outside world does to a real org:
 * a prospect opens, clicks or replies to a mailing, or a mailing bounces. They need the
 * sandbox's printed token.
 *
 * - `POST /_sandbox/mailings/{id}/{deliver|open|click|reply|bounce}` → 200 with the mailing
 * - `GET /_sandbox/health` → `{"ok":true}`
 * - `GET /_sandbox/quirks` → the quirks in force; `POST /_sandbox/quirks?silentCascade=true&futureUpdatedAt=5`
 *   switches them (a parameter left out keeps its value) and answers the same (see
 *   `SandboxOptions.quirks`)
 */
import type { IncomingMessage } from 'node:http';
import { resourceByType } from '../../registry/index.js';
import { errors, paramError } from '../errors.js';
import { applyQuirks } from '../data/store.js';
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
export async function handleControl(core: Core, req: IncomingMessage, path: string, raw: string): Promise<HandlerResponse> {
  const seg = path.split('/').filter(Boolean).slice(1);
  if (seg[0] === 'health' && seg.length === 1) return { status: 200, body: '{"ok":true}' };
  const principal = principalOf(core, req.headers.authorization);
  if (!principal.admin) throw errors.forbidden('Sandbox control endpoints need the token the sandbox printed.');
  if (seg[0] === 'quirks' && seg.length === 1 && (req.method === 'GET' || req.method === 'POST')) {
    if (req.method === 'POST') setQuirks(core, raw);
    const q = core.store.quirks;
    return { status: 200, body: JSON.stringify({ silentCascade: q.silentCascade, futureUpdatedAt: q.futureUpdatedAtMs / 60_000 }) };
  }
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

/** Applies `?silentCascade=true|false&futureUpdatedAt=true|false|MINUTES`; 422 naming a bad parameter. */
function setQuirks(core: Core, raw: string): void {
  const values: { silentCascade?: unknown; futureUpdatedAt?: unknown } = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    const value = v === 'true' ? true : v === 'false' ? false : /^\d+$/.test(v) ? Number(v) : v;
    if (k === 'silentCascade') values.silentCascade = value;
    else if (k === 'futureUpdatedAt') values.futureUpdatedAt = value;
    else throw paramError(k, `Unknown quirk ${k}: use silentCascade or futureUpdatedAt.`);
  }
  // applyQuirks checks both before setting either: a bad request changes nothing.
  const bad = applyQuirks(core.store.quirks, values);
  if (bad) throw paramError(bad.split(' ')[0]!, bad);
}
