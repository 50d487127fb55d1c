/**
 * E-mail addresses → prospect ids for `svc enroll --by email`, in batches: one list request
 * (`filter[emails]=a,b,…`) per batch of addresses, never one per row. A batch holds up to 500
 * addresses and at most about 6,000 characters of them, so the URL stays under the 8 KB many
 * servers and proxies accept. Addresses are matched case-insensitively (each is sent as written
 * and in lower case).
 */
import { paginate, type PageClient } from '../api/paginate.js';
import { wellFormed } from '../api/query.js';
import type { EnrollItem } from './enroll-rows.js';
import { idValue } from '../lossless-json.js';

/** Finds the prospects of some addresses: lower-cased address → ids. */
export type EmailLookup = (emails: string[]) => Promise<Map<string, (number | string)[]>>;

/** Limits of one batch. */
export const EMAIL_BATCH = { maxEmails: 500, maxChars: 6000 };

/** A lookup through the list endpoint. */
export function emailLookup(client: PageClient): EmailLookup {
  return async (emails) => {
    const found = new Map<string, (number | string)[]>();
    const wanted = new Set(emails.map((e) => e.toLowerCase()));
    // Each address as written and in lower case: a server that matches exactly still finds
    // `Ada@Example.com` in a file when it stores `ada@example.com`.
    const values = [...new Set(emails.flatMap((e) => [e, e.toLowerCase()]))];
    const pages = paginate(client, 'prospects', {
      query: { extra: [['filter[emails]', values.join(',')]], fields: { prospect: ['emails'] } },
      all: true,
      pageSize: 1000,
    });
    for await (const page of pages) {
      for (const r of page.records) {
        const list = r.attributes?.['emails'];
        for (const e of Array.isArray(list) ? list : []) {
          const k = String(e).toLowerCase();
          if (!wanted.has(k)) continue;
          const ids = found.get(k) ?? [];
          if (!ids.includes(r.id)) ids.push(r.id);
          found.set(k, ids);
        }
      }
    }
    return found;
  };
}

/**
 * Resolves the addresses of the items flowing through, a batch at a time, keeping their order.
 * Items already decided (invalid, done) pass through without a lookup; an address that no
 * prospect has, or that several have, becomes a failed row.
 */
export async function* resolveEmails(items: AsyncIterable<EnrollItem>, lookup: EmailLookup): AsyncGenerator<EnrollItem> {
  let batch: EnrollItem[] = [];
  /** Lower-cased address → the address as written (sent as written: servers may match exactly). */
  let emails = new Map<string, string>();
  let chars = 0;
  const flush = async function* (): AsyncGenerator<EnrollItem> {
    if (emails.size) {
      const found = await lookup([...emails.values()]);
      for (const item of batch) {
        if (item.outcome || item.prospectId !== undefined || !item.email) continue;
        const ids = found.get(item.email.toLowerCase()) ?? [];
        if (ids.length === 1) item.prospectId = idValue(String(ids[0]));
        else if (ids.length === 0) item.outcome = { status: 'failed', id: null, error: `not found: no prospect has the address ${item.email}`, extra: { email: item.email } };
        else {
          item.outcome = {
            status: 'failed',
            id: null,
            error: `ambiguous: ${ids.length} prospects have the address ${item.email} (ids ${ids.join(', ')}); enroll by id`,
            extra: { email: item.email },
          };
        }
      }
    }
    yield* batch;
    batch = [];
    emails = new Map();
    chars = 0;
  };
  for await (const item of items) {
    if (!item.outcome && item.email && item.prospectId === undefined) {
      const k = item.email.toLowerCase();
      if (!emails.has(k)) {
        const one = encodeURIComponent(wellFormed(item.email)).length + 1;
        const cost = item.email === k ? one : 2 * one;
        if (emails.size >= EMAIL_BATCH.maxEmails || chars + cost > EMAIL_BATCH.maxChars) yield* flush();
        emails.set(k, item.email);
        chars += cost;
      }
    }
    batch.push(item);
    // Rows that need no lookup (done, invalid) must not pile up waiting for a batch to fill.
    if (batch.length >= 2 * EMAIL_BATCH.maxEmails) yield* flush();
  }
  yield* flush();
}
