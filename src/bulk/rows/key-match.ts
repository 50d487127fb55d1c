/**
 * Values of one filterable attribute → the records that have them, in batches: one list request
 * (`filter[attr]=a,b,…`, pages of 1,000) per batch of values, never one per row. A batch holds up
 * to 500 values and at most about 6,000 characters of them, so the URL stays under the 8 KB many
 * servers and proxies accept. Outer spaces are ignored, and text is sent as written and in lower
 * case; a value with `,` or `..` goes in the bracket syntax, where it is not read as a list or a
 * range.
 *
 * The API matches filters exactly, so a stored `Mia.Case@Corp.test` is not found by
 * `filter[emails]=mia.case@corp.test`, and sending a second, lower-cased copy finds only that
 * spelling. E-mail addresses are therefore matched ignoring case for real ({@link foldedLookup}):
 * the type's addresses are read once (a sparse fieldset, pages of 1,000), compared lower-cased
 * with the addresses of the file, and the records they point to are then read by id in batches.
 * Used by enroll's e-mail resolver and by upsert / update by key.
 */
import { paginate, type PageClient } from '../../api/paginate.js';
import { wellFormed } from '../../api/query.js';
import type { Filter } from '../../api/filter.js';

/** A record as a lookup returns it. */
export interface MatchedRecord {
  id: number | string;
  attributes: Record<string, unknown>;
  relationships: Record<string, unknown>;
}

/** Finds the records having some values: normalised value → records. */
export type KeyLookup = (values: string[]) => Promise<Map<string, MatchedRecord[]>>;

/** Limits of one batch. */
const KEY_BATCH = { maxValues: 500, maxChars: 6000 };

/** How values are compared: trimmed, lower case. */
export const normKey = (v: string): string => v.trim().toLowerCase();

/** Options of {@link keyLookup}. */
interface KeyLookupOptions {
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

/** The client, telling `onRequest` of each request sent (for the bill of a plan). */
function countedClient(client: PageClient, onRequest: (() => void) | undefined): PageClient {
  if (!onRequest) return client;
  return {
    ...client,
    request: (req) => {
      onRequest();
      return client.request(req);
    },
  };
}

/** A lookup through the list endpoint. */
export function keyLookup(client: PageClient, o: KeyLookupOptions): KeyLookup {
  const counted = countedClient(client, o.onRequest);
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

/** True for attributes that hold e-mail addresses, which are matched ignoring case. */
export function isEmailAttribute(attr: string): boolean {
  return attr === 'emails' || attr === 'email';
}

/**
 * Attributes matched ignoring case and outer spaces: e-mail addresses, and names as people type
 * them (`ATLAS SYSTEMS`, `blue foods ` for the account Atlas Systems, Blue Foods: matched exactly,
 * an upsert by name created each again, a trial). Ids and codes (`externalId`) stay exact.
 */
export function isFoldedAttribute(attr: string): boolean {
  return isEmailAttribute(attr) || attr === 'name';
}

/** Options of {@link foldedLookup}. */
interface FoldedLookupOptions extends KeyLookupOptions {
  /**
   * Every value the run may ask for, normalised ({@link normKey}): only those are kept from the
   * scan, so memory follows the file, not the org. Undefined keeps every address of the type.
   */
  wanted?: ReadonlySet<string>;
}

/** Ids a request reads at once by `filter[id]=…` (well inside the URL budget). */
const IDS_PER_READ = 500;

/**
 * A lookup that compares lower-cased: the attribute of every record of the type is read once
 * (at the first batch: a run whose rows are all done reads nothing), then each batch's records
 * are read by id. Costs ⌈records of the type / 1,000⌉ requests once, plus one per batch.
 */
export function foldedLookup(client: PageClient, o: FoldedLookupOptions): KeyLookup {
  const counted = countedClient(client, o.onRequest);
  let index: Promise<Map<string, (number | string)[]>> | undefined;
  const scan = async () => {
    const m = new Map<string, (number | string)[]>();
    const pages = paginate(counted, o.path, { query: { fields: { [o.type]: [o.attr] } }, all: true, pageSize: 1000, signal: o.signal });
    for await (const page of pages) {
      for (const r of page.records) {
        const v = o.attr === 'id' ? r.id : r.attributes?.[o.attr];
        for (const one of Array.isArray(v) ? v : [v]) {
          if (typeof one !== 'string') continue;
          const k = normKey(one);
          if (o.wanted && !o.wanted.has(k)) continue;
          const list = m.get(k) ?? [];
          if (!list.some((id) => String(id) === String(r.id))) list.push(r.id);
          m.set(k, list);
        }
      }
    }
    return m;
  };
  return async (values) => {
    index ??= scan();
    const idx = await index;
    const ids = new Map<string, number | string>();
    for (const v of values) for (const id of idx.get(normKey(v)) ?? []) ids.set(String(id), id);
    const records = new Map<string, MatchedRecord>();
    const all = [...ids.values()];
    for (let i = 0; i < all.length; i += IDS_PER_READ) {
      const chunk = all.slice(i, i + IDS_PER_READ).map(String);
      const filter: Filter = { path: ['id'], kind: 'list', values: chunk, escaped: false };
      const pages = paginate(counted, o.path, {
        query: { filters: [filter], ...(o.fields ? { fields: { [o.type]: o.fields } } : {}) },
        all: true,
        pageSize: 1000,
        signal: o.signal,
      });
      for await (const page of pages)
        for (const r of page.records)
          records.set(String(r.id), {
            id: r.id,
            attributes: r.attributes ?? {},
            relationships: (r as { relationships?: Record<string, unknown> }).relationships ?? {},
          });
    }
    const found = new Map<string, MatchedRecord[]>();
    for (const v of values) {
      const k = normKey(v);
      // A record deleted between the scan and this read is not there any more.
      const list = (idx.get(k) ?? []).map((id) => records.get(String(id))).filter((r): r is MatchedRecord => r !== undefined);
      if (list.length) found.set(k, list);
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
interface BatchRules<T> {
  /** The value(s) to look up, or undefined when the item needs no lookup (decided, no key). */
  keyOf(item: T): string | readonly string[] | undefined;
  /**
   * Called for each item of a looked-up batch with the records of its values (each record once)
   * and, for items of several values, the records of each value in order.
   */
  apply(item: T, records: MatchedRecord[], byValue: MatchedRecord[][]): void;
}

const keysOf = <T>(rules: BatchRules<T>, item: T): readonly string[] => {
  const k = rules.keyOf(item);
  return k === undefined ? [] : typeof k === 'string' ? [k] : k;
};

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
        const ks = keysOf(rules, item);
        if (ks.length === 0) continue;
        const byValue = ks.map((k) => found.get(normKey(k)) ?? []);
        const all = new Map<string, MatchedRecord>();
        for (const list of byValue) for (const r of list) if (!all.has(String(r.id))) all.set(String(r.id), r);
        rules.apply(item, [...all.values()], byValue);
      }
    }
    yield* batch;
    batch = [];
    values = new Map();
    chars = 0;
  };
  for await (const item of items) {
    const keys = new Map(keysOf(rules, item).map((v) => [normKey(v), v]));
    const fresh = () => [...keys].filter(([k]) => !values.has(k));
    let vs = fresh();
    if (vs.length) {
      const price = () => vs.reduce((n, [, v]) => n + cost(v), 0);
      if (values.size + vs.length > KEY_BATCH.maxValues || (values.size > 0 && chars + price() > KEY_BATCH.maxChars)) {
        yield* flush();
        vs = fresh();
      }
      chars += price();
      for (const [k, v] of vs) values.set(k, v);
    }
    batch.push(item);
    if (batch.length >= 2 * KEY_BATCH.maxValues) yield* flush();
  }
  yield* flush();
}
