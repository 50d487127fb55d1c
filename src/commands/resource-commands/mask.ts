/**
 * Secrets the service returns to their owner — a webhook's `secret` and `cleanupToken` — are
 * shown as `***` in record output (tables, JSON, CSV: what ends up in terminals and CI logs).
 * The record a create returns is the exception for what the service made (read-only): the cleanup
 * token is returned there, once, to be kept. What the user sent (the `secret`) stays `***` there
 * too: they have it, and a CI log of `webhooks create` showed it in clear (a trial). `-o raw` and
 * `svc api` print the server's documents untouched.
 */
import type { FlatRecord } from '../../listing/record-text.js';
import { resourceByType } from '../../registry/index.js';

/** What a masked value reads. */
const MASK = '***';

/** Replaces the sensitive attributes of records (and of their included records) in place. */
export function maskSensitive<T extends FlatRecord>(records: T[], created = false): T[] {
  for (const r of records) maskOne(r, created);
  return records;
}

function maskOne(r: Record<string, unknown>, created = false): void {
  const rt = typeof r.type === 'string' ? resourceByType(r.type) : undefined;
  for (const a of rt?.attributes ?? []) {
    if (created && a.readOnly) continue;
    if (a.sensitive && typeof r[a.name] === 'string' && r[a.name] !== '') r[a.name] = MASK;
  }
  // Included records replace ids, nested along the include paths asked for (record-text.ts): a
  // tree without cycles, so every level is masked (one level was, when records nested no deeper).
  for (const v of Object.values(r)) {
    if (Array.isArray(v)) for (const x of v) isRecord(x) && maskOne(x);
    else if (isRecord(v)) maskOne(v);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { type?: unknown }).type === 'string';
}
