/**
 * Webhook deliveries rebuilt from the events resource (`webhooks listen --catch-up`, `events
 * replay`): the body a webhook of that payload version sends for the change (spec: Events,
 * Delivery) made from what the event's payload records, signed as the service signs, with the
 * event's id in `Svc-Event-Id` so a receiver that gets one twice (at-least-once) can tell. A
 * receiver that does not take one (any status but 2xx, a timeout, a refused connection) gets
 * it again after a growing pause: nothing after it is sent before it.
 */
import type { ResourceObject } from '../api/jsonapi.js';
import { postBody, type ForwardResult } from '../webhooks/forward.js';
import { SIGNATURE_HEADER, signBody } from '../webhooks/signature.js';
import { webhookEventName } from './names.js';

/** The header that names the event a delivery comes from. */
const EVENT_ID_HEADER = 'Svc-Event-Id';

/** One delivery ready to send. */
interface RebuiltDelivery {
  eventId: string;
  /** `prospect.updated`. */
  eventName: string;
  body: string;
  headers: Record<string, string>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The delivery of an event, or a reason it has none (an event that names no record: an
 * external event). Attributes the payload does not record are not invented: the body carries
 * what the event recorded.
 */
export function rebuildDelivery(
  event: ResourceObject,
  opts: { payloadVersion: 1 | 2; secret?: string; now: number },
): RebuiltDelivery | { skip: string } {
  const attrs = event.attributes ?? {};
  const p = isObject(attrs['payload']) ? attrs['payload'] : {};
  const name = typeof attrs['name'] === 'string' ? attrs['name'] : '';
  const [typeOfName, actionOfName] = webhookEventName(name).split('.');
  const type = typeof p['type'] === 'string' ? p['type'] : typeOfName;
  const action = typeof p['action'] === 'string' ? p['action'] : actionOfName;
  const id = typeof p['id'] === 'number' || typeof p['id'] === 'string' ? p['id'] : undefined;
  if (!type || !action || id === undefined) return { skip: `event ${String(event.id)} (${name || 'no name'}) names no record` };
  const data: Record<string, unknown> = { type, id, attributes: isObject(p['attributes']) ? p['attributes'] : {} };
  if (action === 'destroyed' && isObject(p['relationships'])) data['relationships'] = p['relationships'];
  const body: Record<string, unknown> = { data };
  if (opts.payloadVersion === 2 && action !== 'created' && action !== 'destroyed')
    body['beforeUpdate'] = { type, id, ...(isObject(p['before']) ? p['before'] : {}) };
  const eventName = `${type}.${action}`;
  body['meta'] = { deliveredAt: new Date(opts.now).toISOString(), eventName };
  const text = JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/vnd.api+json',
    'user-agent': 'svc-events',
    [EVENT_ID_HEADER]: String(event.id),
  };
  if (opts.secret) headers[SIGNATURE_HEADER] = signBody(opts.secret, text);
  return { eventId: String(event.id), eventName, body: text, headers };
}

/** Options of {@link sendUntilTaken}. */
interface SendOptions {
  sleep: (ms: number) => Promise<void>;
  /** True once the run is stopping (Ctrl-C): no further attempt. */
  stopped: () => boolean;
  /** Told of each attempt the receiver did not take, with the pause before the next. */
  onRetry?: (result: ForwardResult, attempt: number, waitMs: number) => void;
  /** Attempts before giving up; unlimited by default (`listen` holds its cursor until it is taken). */
  maxAttempts?: number;
  /** First pause. @default 250 ms, doubling up to 30 s */
  firstDelayMs?: number;
  timeoutMs?: number;
}

/** True when the receiver took the delivery: a 2xx answer. */
function taken(r: ForwardResult): boolean {
  return 'status' in r && r.status >= 200 && r.status < 300;
}

/**
 * Posts a delivery until the receiver takes it.
 * @returns the last result (taken, or the one the attempts or a stop ended on)
 */
export async function sendUntilTaken(
  url: URL,
  d: RebuiltDelivery,
  opts: SendOptions,
): Promise<{ result: ForwardResult; attempts: number }> {
  let wait = opts.firstDelayMs ?? 250;
  for (let attempt = 1; ; attempt++) {
    const result = await postBody(url, d.body, d.headers, opts.timeoutMs ?? 5000);
    if (taken(result) || opts.stopped() || (opts.maxAttempts !== undefined && attempt >= opts.maxAttempts))
      return { result, attempts: attempt };
    opts.onRetry?.(result, attempt, wait);
    await opts.sleep(wait);
    if (opts.stopped()) return { result, attempts: attempt };
    wait = Math.min(wait * 2, 30_000);
  }
}

/** Words for a result: `500`, `no answer within 5000 ms`, `ECONNREFUSED`. */
export function describeResult(r: ForwardResult): string {
  return 'error' in r ? r.error : String(r.status);
}

/** What a receiver did with a delivery: `answered 503`, or `could not be reached (ECONNREFUSED)` (it read "answered ECONNREFUSED", a trial). */
export function receiverDid(r: ForwardResult): string {
  return 'error' in r ? `could not be reached (${r.error})` : `answered ${r.status}`;
}
