/**
 * Webhook deliveries: every store change that matches an active webhook is POSTed to its URL
 * with the spec's payload (version 1, or 2 with `beforeUpdate`), signature and cleanup-token
 * headers, a 5 s timeout, and up to 4 attempts 1 s apart on network failures only. Any HTTP
 * status acknowledges; redirects are not followed (node:http never follows them).
 */
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { WEBHOOK_RESOURCE_ACTIONS } from '../../registry/data/index.js';
import { findAttribute, resourceByType, type ResourceType } from '../../registry/index.js';
import { relModels } from '../data/model.js';
import type { Change, Rec, Store } from '../data/store.js';

/** One delivery attempt series, kept for tests and `svc webhooks` rehearsals. */
export interface DeliveryRecord {
  webhookId: number;
  url: string;
  eventName: string;
  body: string;
  headers: Record<string, string>;
  attempts: number;
  /** HTTP status that acknowledged it, or undefined when every attempt failed. */
  status?: number;
  error?: string;
}

/** Timings (the spec's values by default; tests shorten the retry delay). */
export interface DeliveryTiming {
  timeoutMs: number;
  attempts: number;
  retryDelayMs: number;
}

export const SPEC_TIMING: DeliveryTiming = { timeoutMs: 5000, attempts: 4, retryDelayMs: 1000 };

/** Date-times in deliveries use fractional seconds and `Z` (spec, Conventions). */
function deliveryValue(rt: ResourceType, name: string, v: unknown): unknown {
  if (typeof v === 'string' && findAttribute(rt, name)?.type === 'date-time' && !v.endsWith('Z')) return `${v}.000Z`;
  return v ?? null;
}

function attributes(rt: ResourceType, rec: Rec, names: Iterable<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of names) {
    const spec = findAttribute(rt, n);
    if (!spec || spec.writeOnly) continue;
    out[n] = deliveryValue(rt, n, rec.attributes[n]);
  }
  return out;
}

/** The delivery body of a change for one payload version (also what an `event` records of it: rules/events.ts). */
export function payload(c: Change, version: number, deliveredAt: string): Record<string, unknown> | undefined {
  const rt = resourceByType(c.type);
  if (!rt) return undefined;
  const data: Record<string, unknown> = { type: c.type, id: c.id };
  if (c.action === 'destroyed') {
    // Last known attributes and relationships.
    data['attributes'] = attributes(rt, c.record, rt.attributes.map((a) => a.name).concat(Object.keys(c.record.attributes)));
    const rels: Record<string, unknown> = {};
    for (const m of relModels(rt).values())
      if (m.source.kind !== 'many-derived' && c.record.rels[m.spec.name] !== undefined)
        rels[m.spec.name] = { data: c.record.rels[m.spec.name] };
    data['relationships'] = rels;
  } else {
    data['attributes'] = attributes(rt, c.record, c.changed);
  }
  const body: Record<string, unknown> = { data };
  if (version === 2 && c.action !== 'created' && c.action !== 'destroyed') {
    const before: Record<string, unknown> = { type: c.type, id: c.id };
    for (const [k, v] of Object.entries(c.before)) {
      const spec = findAttribute(rt, k);
      if (spec && !spec.writeOnly) before[k] = deliveryValue(rt, k, v);
    }
    body['beforeUpdate'] = before;
  }
  body['meta'] = { deliveredAt, eventName: `${c.type}.${c.action}` };
  return body;
}

/** True when a webhook's resource and action select a change. */
function matches(hook: Rec, c: Change): boolean {
  const resource = String(hook.attributes['resource'] ?? '*');
  const action = String(hook.attributes['action'] ?? '*');
  const own = WEBHOOK_RESOURCE_ACTIONS[c.type];
  if (!own?.includes(c.action)) return false;
  if (resource === '*') return action === '*' || action === c.action;
  return resource === c.type && (action === '*' || action === c.action);
}

/** Sends deliveries for store changes. */
export class WebhookDispatcher {
  readonly deliveries: DeliveryRecord[] = [];
  private pending = new Set<Promise<void>>();
  private timers = new Set<NodeJS.Timeout>();
  private closed = false;
  private unsubscribe: () => void;

  constructor(
    private readonly store: Store,
    private readonly timing: DeliveryTiming = SPEC_TIMING,
  ) {
    this.unsubscribe = store.onChange((c) => this.onChange(c));
  }

  private onChange(c: Change): void {
    if (this.closed || c.type === 'webhook') return;
    for (const hook of this.store.table('webhook').values()) {
      if (hook.attributes['active'] !== true || !matches(hook, c)) continue;
      const version = hook.attributes['payloadVersion'] === 2 ? 2 : 1;
      const body = payload(c, version, new Date(this.store.now()).toISOString());
      if (!body) continue;
      const text = JSON.stringify(body);
      const headers: Record<string, string> = {
        'Content-Type': 'application/vnd.api+json',
        'service-webhook-cleanup-token': String(hook.attributes['cleanupToken'] ?? ''),
      };
      const secret = hook.attributes['secret'];
      if (typeof secret === 'string' && secret)
        headers['Service-Webhook-Signature'] = createHmac('sha256', secret).update(text).digest('hex');
      const rec: DeliveryRecord = {
        webhookId: hook.id,
        url: String(hook.attributes['url']),
        eventName: `${c.type}.${c.action}`,
        body: text,
        headers,
        attempts: 0,
      };
      this.deliveries.push(rec);
      if (this.deliveries.length > 1000) this.deliveries.shift();
      const p = this.send(rec).finally(() => this.pending.delete(p));
      this.pending.add(p);
    }
  }

  private attempt(rec: DeliveryRecord): Promise<number> {
    return new Promise((resolve, reject) => {
      const u = new URL(rec.url);
      const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, {
        method: 'POST',
        headers: { ...rec.headers, 'Content-Length': String(Buffer.byteLength(rec.body)) },
        timeout: this.timing.timeoutMs,
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error(`no response within ${this.timing.timeoutMs} ms`), { code: 'TIMEOUT' })));
      req.on('error', reject);
      req.end(rec.body);
    });
  }

  private async send(rec: DeliveryRecord): Promise<void> {
    for (let i = 0; i < this.timing.attempts && !this.closed; i++) {
      rec.attempts++;
      try {
        rec.status = await this.attempt(rec);
        delete rec.error;
        return;
      } catch (e) {
        rec.error = e instanceof Error ? e.message : String(e);
        // A timeout means the receiver got the request: only network failures are retried.
        if ((e as { code?: string }).code === 'TIMEOUT') return;
      }
      if (i + 1 < this.timing.attempts)
        await new Promise<void>((r) => {
          const t = setTimeout(() => {
            this.timers.delete(t);
            r();
          }, this.timing.retryDelayMs);
          this.timers.add(t);
        });
    }
  }

  /** Waits for in-flight deliveries (tests). */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
    for (const t of this.timers) clearTimeout(t);
  }
}
