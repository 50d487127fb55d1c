/**
 * Finding a record that a create may have made when its answer was lost (a network failure
 * after sending, a 5xx, or a run killed between sending and journaling). Nothing is created
 * twice: a create is sent again only when this lookup, repeated to the end of the settle window
 * (settle.ts), says the record does not exist.
 *
 * The lookup lists the type with a filter made from the row itself: every filterable text,
 * whole-number or yes/no attribute the row sets (equality; a list attribute by its first item),
 * every to-one relationship id it sets, and `createdAt` from ten minutes before the attempt
 * (allowing for clock skew). Dates, times and decimals are left out: the server may write them
 * back in another form, and an equality that misses would pass for "not created". The lookup
 * is made only when the row gives at least one such attribute or at least two relationship ids
 * — only then does "nothing found" prove the record absent; otherwise the row is reported
 * `unknown` and never re-sent blindly. Records already claimed by other rows of the run
 * (journal) are not taken.
 */
import { encodeQuery } from '../../api/query.js';
import type { WriteData } from '../../api/write-body.js';
import { apiTime } from '../../api-time.js';
import { findAttribute, findRelationship, type ResourceType } from '../../registry/index.js';
import type { JournalEntry } from '../run/journal.js';
import type { Requester } from '../run/requester.js';
import { MAX_SETTLE_SECONDS } from '../run/settle.js';

/** Ten minutes: server and client clocks may disagree. */
export const SKEW_MS = 10 * 60_000;

/** Attribute types whose values the server keeps as sent, so that equality finds them. */
const VERBATIM: ReadonlySet<string> = new Set(['string', 'string[]', 'integer', 'boolean']);

/**
 * When a create an earlier run left in doubt was sent, at the earliest: a `pending` entry is
 * written as the request leaves; an `unknown` one at the end of that run's window, up to the
 * longest window after the request.
 */
export function sentAtOf(e: JournalEntry, now: number): number {
  const at = Date.parse(e.at) || now;
  return e.status === 'unknown' ? at - MAX_SETTLE_SECONDS * 1000 : at;
}

/**
 * A record may be the one a create sent at `sentAt` made: created no earlier than the lookup's
 * `filter[createdAt]` allows (a record that does not say when it was created may be).
 */
export function createdSince(attributes: Record<string, unknown>, sentAt: number): boolean {
  const t = apiTime(attributes['createdAt']);
  return Number.isNaN(t) || t >= sentAt - SKEW_MS;
}

/** A lookup query for a create, or undefined when the row cannot be recognised. */
export function lookupQuery(rt: ResourceType, data: WriteData, sentAt: number): [string, string][] | undefined {
  const pairs: [string, string][] = [];
  let attrs = 0;
  let rels = 0;
  const usable = (v: string) => v !== '' && !v.includes(',') && !v.includes('..');
  for (const [name, value] of Object.entries(data.attributes)) {
    const spec = findAttribute(rt, name);
    if (!spec?.filterable || spec.readOnly || !VERBATIM.has(spec.type)) continue;
    const v = Array.isArray(value) ? value[0] : value;
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') continue;
    if (!usable(String(v))) continue;
    pairs.push([`filter[${name}]`, String(v)]);
    attrs++;
  }
  for (const [name, rel] of Object.entries(data.relationships)) {
    const d = rel.data;
    if (!d || Array.isArray(d) || findRelationship(rt, name)?.kind === 'many') continue;
    pairs.push([`filter[${name}][id]`, String(d.id)]);
    rels++;
  }
  if (attrs === 0 && rels < 2) return undefined;
  if (findAttribute(rt, 'createdAt')?.filterable) {
    const since = new Date(sentAt - SKEW_MS).toISOString().slice(0, 19);
    pairs.push(['filter[createdAt]', `${since}..inf`]);
  }
  pairs.push(['page[limit]', '10'], [`fields[${rt.type}]`, '']);
  return pairs;
}

/** Ids of records done by rows of the run, numbers kept as numbers (small for many rows). */
export class IdSet {
  private nums = new Set<number>();
  private others = new Set<string>();
  add(id: number | string): void {
    const n = Number(id);
    if (Number.isSafeInteger(n) && String(n) === String(id)) this.nums.add(n);
    else this.others.add(String(id));
  }
  has(id: number | string): boolean {
    const n = Number(id);
    return Number.isSafeInteger(n) && String(n) === String(id) ? this.nums.has(n) : this.others.has(String(id));
  }
}

/** What the lookup found. */
type LookupResult = { found: number | string } | { none: true } | { ambiguous: (number | string)[] };

/**
 * Runs a lookup. Records whose ids are in `claimed` (done by other rows) do not count.
 * A full page with nothing unclaimed is ambiguous too: the answer may be on a later page.
 */
export async function findCreated(
  requester: Requester,
  rt: ResourceType,
  pairs: [string, string][],
  claimed: IdSet,
): Promise<LookupResult> {
  const res = await requester.send({ method: 'GET', path: rt.path, query: encodeQuery(pairs) }, 'read');
  const data = Array.isArray(res.doc.data) ? res.doc.data : [];
  const ids = data.map((r) => r.id).filter((id) => !claimed.has(id));
  if (ids.length === 1) return { found: ids[0]! };
  if (ids.length === 0 && data.length < 10) return { none: true };
  return { ambiguous: ids };
}
