/**
 * Values of one filterable attribute → the records that have them, in batches: one list request
 * (`filter[attr]=a,b,…`, pages of 1,000) per batch of values, never one per row. A batch holds up
 * to 500 values and at most about 6,000 characters of them, so the URL stays under the 8 KB many
 * servers and proxies accept. Text is matched case-insensitively and with outer spaces ignored
 * (each value is sent as written and in lower case, since a server may match exactly); a value
 * with `,` or `..` goes in the bracket syntax, where it is not read as a list or a range.
 * Used by enroll's e-mail resolver and by upsert / update by key.
 */
import { paginate, type PageClient } from '../api/paginate.js';
import { wellFormed } from '../api/query.js';
import type { Filter } from '../api/filter.js';

/** A record as a lookup returns it. */
export interface MatchedRecord {
  id: number | string;
  attributes: Record<string, unknown>;
  relationships: Record<string, unknown>;
}

/** Finds the records having some values: normalised value → records. */
export type KeyLookup = (values: string[]) => Promise<Map<string, MatchedRecord[]>>;

/** Limits of one batch. */
export const KEY_BATCH = { maxValues: 500, maxChars: 6000 };

/** How values are compared: trimmed, lower case. */
export const normKey = (v: string): string => v.trim().toLowerCase();

/** Options of {@link keyLookup}. */
export interface KeyLookupOptions {
  /** Collection path (`prospects`). */
  path: string;
  /** Resource type, for the sparse fieldset. */
  type: string;
  attr: string;
  /** Attributes to read back; undefined reads whole records. */
  fields?: string[];
  signal?: AbortSignal;
  /** Told of each request sent (for the bill of a plan). */
  onRequest?: () => void;
}

/** A lookup through the list endpoint. */
export function keyLookup(client: PageClient, o: KeyLookupOptions): KeyLookup {
  const counted: PageClient = o.onRequest
    ? {
        ...client,
        request: (req) => {
          o.onRequest!();
          return client.request(req);
        },
      }
    : client;
  return async (values) => {
    const found = new Map<string, MatchedRecord[]>();
    const wanted = new Set(values.map(normKey));
    const sent = [...new Set(values.flatMap((v) => [v.trim(), v.trim().toLowerCase()]))];
    const escaped = sent.some((v) => /,|\.\./.test(v));
    const filter: Filter = { path: [o.attr], kind: 'list', values: sent, escaped };
    const pages = paginate(counted, o.path, {
      query: { filters: [filter], newFilterSyntax: escaped, ...(o.fields ? { fields: { [o.type]: o.fields } } : {}) },
      all: true,
      pageSize: 1000,
      signal: o.signal,
    });
    for await (const page of pages) {
      for (const r of page.records) {
        const v = o.attr === 'id' ? r.id : r.attributes?.[o.attr];
        for (const one of Array.isArray(v) ? v : [v]) {
          if (one === null || one === undefined) continue;
          const k = normKey(String(one));
          if (!wanted.has(k)) continue;
          const list = found.get(k) ?? [];
          if (!list.some((m) => String(m.id) === String(r.id))) {
            list.push({
              id: r.id,
              attributes: r.attributes ?? {},
              relationships: (r as { relationships?: Record<string, unknown> }).relationships ?? {},
            });
          }
          found.set(k, list);
        }
      }
    }
    return found;
  };
}

/**
 * A lookup in an anonymised rehearsal copy: each value is looked up as the copy holds it
 * (`mask`), and its records are returned under the value as written, so that the rows and their
 * messages keep the user's own values.
 */
export function maskedLookup(look: KeyLookup, mask: (v: string) => string): KeyLookup {
  return async (values) => {
    const fakes = new Map(values.map((v) => [v, mask(v)]));
    const found = await look([...new Set(fakes.values())]);
    const out = new Map<string, MatchedRecord[]>();
    for (const [v, fake] of fakes) {
      const records = found.get(normKey(fake));
      if (records) out.set(normKey(v), records);
    }
    return out;
  };
}

/** What a batch resolver needs to know of its items. */
export interface BatchRules<T> {
  /** The value to look up, or undefined when the item needs no lookup (decided, no key). */
  keyOf(item: T): string | undefined;
  /** Called for each item of a looked-up batch with the records of its value. */
  apply(item: T, records: MatchedRecord[]): void;
}

/** Cost of a value in the URL (as written and, when it differs, in lower case). */
function cost(v: string): number {
  const t = v.trim();
  const one = encodeURIComponent(wellFormed(t)).length + 1;
  return t === t.toLowerCase() ? one : 2 * one;
}

/**
 * Resolves the values of the items flowing through, a batch at a time, keeping their order.
 * Items that need no lookup pass through; they never wait long for a batch to fill.
 */
export async function* resolveInBatches<T>(items: AsyncIterable<T>, lookup: KeyLookup, rules: BatchRules<T>): AsyncGenerator<T> {
  let batch: T[] = [];
  let values = new Map<string, string>();
  let chars = 0;
  const flush = async function* (): AsyncGenerator<T> {
    if (values.size) {
      const found = await lookup([...values.values()]);
      for (const item of batch) {
        const k = rules.keyOf(item);
        if (k !== undefined) rules.apply(item, found.get(normKey(k)) ?? []);
      }
    }
    yield* batch;
    batch = [];
    values = new Map();
    chars = 0;
  };
  for await (const item of items) {
    const v = rules.keyOf(item);
    if (v !== undefined && !values.has(normKey(v))) {
      const c = cost(v);
      if (values.size >= KEY_BATCH.maxValues || (values.size > 0 && chars + c > KEY_BATCH.maxChars)) yield* flush();
      values.set(normKey(v), v);
      chars += c;
    }
    batch.push(item);
    if (batch.length >= 2 * KEY_BATCH.maxValues) yield* flush();
  }
  yield* flush();
}
