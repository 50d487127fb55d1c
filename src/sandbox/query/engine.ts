/**
 * The query engine: filters, sort and paging over one type's table. Equality filters and
 * relationship filters are answered from indexes (per-attribute value lists, the store's reverse
 * indexes) and the smallest candidate list is the one walked; requests in id order walk the
 * type's sorted ids between the bounds of any `filter[id]` range; other clauses are tested per
 * record, and a page of a large sorted result is selected without sorting everything (sort.ts).
 */
import { findAttribute, findRelationship, resourceByType, type AttributeSpec, type ResourceType } from '../../registry/index.js';
import { paramError } from '../errors.js';
import { relModels } from '../data/model.js';
import type { FilterClause, ParsedQuery, SortKey } from './query.js';
import type { TypeRules } from '../rules/types.js';
import { normalizeDateTime } from '../data/time.js';
import { cmp, comparator, topK } from './sort.js';
import type { Rec, Ref, Store } from '../data/store.js';

type Pred = (rec: Rec) => boolean;
/** Ids in ascending order, without duplicates. */
type IdList = ArrayLike<number>;

/** A compiled filter clause. */
interface Compiled {
  pred: Pred;
  /** Ids of the matching records, when the clause can be answered from an index. */
  candidates?: () => IdList;
  /** Bounds of a `filter[id]` range (inclusive), which id-ordered requests use directly. */
  idRange?: { lo: number; hi: number };
}

const ID_SPEC: AttributeSpec = { name: 'id', type: 'integer', filterable: true, sortable: true };

function coerce(spec: AttributeSpec, raw: string, param: string, bound?: 'lo' | 'hi'): unknown {
  switch (spec.type) {
    case 'integer':
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || Number.isNaN(n)) throw paramError(param, `${param}: '${raw}' is not a number.`);
      return n;
    }
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') throw paramError(param, `${param}: '${raw}' is not true or false.`);
      return raw === 'true';
    case 'date-time': {
      // A date alone as a bound covers the whole day (bounds are inclusive).
      if (/^\d{4}-\d{2}-\d{2}$/.test(raw)) return raw + (bound === 'hi' ? 'T23:59:59' : 'T00:00:00');
      const v = normalizeDateTime(raw);
      if (!v) throw paramError(param, `${param}: '${raw}' is not an ISO 8601 date-time.`);
      return v;
    }
    default:
      return raw;
  }
}

/** A predicate on one value (list attributes match when any element matches). */
function valuePred(spec: AttributeSpec, c: FilterClause): (v: unknown) => boolean {
  let one: (v: unknown) => boolean;
  if (c.values) {
    const set = new Set(c.values.map((v) => coerce(spec, v, c.param)));
    one = (v) => set.has(v);
  } else {
    const lo = c.range?.lo === undefined ? undefined : coerce(spec, c.range.lo, c.param, 'lo');
    const hi = c.range?.hi === undefined ? undefined : coerce(spec, c.range.hi, c.param, 'hi');
    one = (v) => v != null && (lo === undefined || cmp(v, lo) >= 0) && (hi === undefined || cmp(v, hi) <= 0);
  }
  return (v) => (Array.isArray(v) ? v.some(one) : v != null && one(v));
}

function attrSpec(rt: ResourceType, name: string): AttributeSpec | undefined {
  return name === 'id' ? ID_SPEC : findAttribute(rt, name);
}

/** value → ids of one attribute (list attributes index every element). */
function valueIndex(store: Store, rt: ResourceType, name: string): Map<unknown, number[]> {
  return store.cached(`values\0${rt.type}\0${name}`, rt.type, () => {
    const m = new Map<unknown, number[]>();
    const add = (v: unknown, id: number) => {
      const l = m.get(v);
      if (l) l.push(id);
      else m.set(v, [id]);
    };
    for (const rec of store.table(rt.type).values()) {
      const v = rec.attributes[name];
      if (Array.isArray(v)) for (const x of new Set(v)) add(x, rec.id);
      else if (v != null) add(v, rec.id);
    }
    return m;
  });
}

/** Ids of `rt` records matching one attribute clause (used for `filter[rel][attr]`). */
function matchingIds(store: Store, rt: ResourceType, spec: AttributeSpec, c: FilterClause): number[] {
  const p = valuePred(spec, c);
  const out: number[] = [];
  for (const rec of store.table(rt.type).values()) if (p(spec.name === 'id' ? rec.id : rec.attributes[spec.name])) out.push(rec.id);
  return out;
}

/** Compiles a clause; `candidates` is set when the clause can be answered from an index. */
function compile(store: Store, rt: ResourceType, c: FilterClause): Compiled {
  const [head, sub, ...extra] = c.path;
  if (extra.length || !head) throw paramError(c.param, `Unsupported filter ${c.param}.`);
  if (sub === undefined) {
    if (rt.extraFilters?.includes(head)) {
      const p = valuePred({ name: head, type: 'string' }, c);
      return { pred: (r) => p(r.attributes[head]) };
    }
    const spec = attrSpec(rt, head);
    if (!spec) {
      if (findRelationship(rt, head)) throw paramError(c.param, `Filter a relationship by id: filter[${head}][id].`);
      throw paramError(c.param, `${rt.type} has no attribute '${head}'.`);
    }
    if (!spec.filterable) throw paramError(c.param, `${rt.type}.${head} is not filterable.`);
    const p = valuePred(spec, c);
    if (head === 'id') {
      if (c.values) {
        // Ids are positive 32-bit integers; any other value matches nothing.
        const wanted = c.values.map((v) => coerce(spec, v, c.param) as number).filter((v) => Number.isInteger(v) && v > 0 && v < 2 ** 31);
        return { pred: (r) => p(r.id), candidates: () => sortedUnique(wanted) };
      }
      const lo = c.range?.lo === undefined ? -Infinity : (coerce(spec, c.range.lo, c.param) as number);
      const hi = c.range?.hi === undefined ? Infinity : (coerce(spec, c.range.hi, c.param) as number);
      return { pred: (r) => p(r.id), idRange: { lo, hi } };
    }
    if (c.values) {
      // Equality and lists: answered from a value index built once per change of the type.
      const values = c.values.map((v) => coerce(spec, v, c.param));
      return {
        pred: (r) => p(r.attributes[head]),
        candidates: () => {
          const index = valueIndex(store, rt, head);
          // Each value's list is in id order; several are merged (a record whose list
          // attribute holds two of the values is in both).
          return values.map((v) => index.get(v) ?? []).reduce<IdList>((a, b) => merge(a, b), []);
        },
      };
    }
    return { pred: (r) => p(r.attributes[head]) };
  }
  const rel = findRelationship(rt, head);
  if (!rel) throw paramError(c.param, `${rt.type} has no relationship '${head}'.`);
  const model = relModels(rt).get(head)!;
  const target = rel.target ? resourceByType(rel.target) : undefined;
  let targetIds: () => number[];
  if (sub === 'id') {
    targetIds = () => {
      if (c.values) return c.values.map((v) => coerce(ID_SPEC, v, c.param) as number);
      if (!target) throw paramError(c.param, `Ranges are not supported on ${c.param}.`);
      return matchingIds(store, target, ID_SPEC, c);
    };
  } else {
    if (!target) throw paramError(c.param, `${rt.type}.${head} has no single target type to filter on.`);
    const spec = findAttribute(target, sub);
    if (!spec) throw paramError(c.param, `${target.type} has no attribute '${sub}'.`);
    if (!spec.filterable) throw paramError(c.param, `${target.type}.${sub} is not filterable.`);
    targetIds = () => matchingIds(store, target, spec, c);
  }
  const tType = target?.type;
  if (model.source.kind === 'many-derived') {
    // Owner ids are the `via` values of the matching members.
    const { type, via } = model.source;
    const candidates = () => {
      const out: number[] = [];
      for (const id of targetIds()) {
        const v = store.get(type, id)?.rels[via];
        for (const r of Array.isArray(v) ? v : v ? [v] : []) if (r.type === rt.type) out.push(r.id);
      }
      return sortedUnique(out);
    };
    return lazy(candidates);
  }
  if (!tType) {
    // Polymorphic relationship: compare the stored identifier directly.
    const ids = () => new Set(targetIds());
    let cache: Set<number> | undefined;
    return {
      pred: (r) => {
        const v = r.rels[head];
        cache ??= ids();
        return Array.isArray(v) ? v.some((x) => cache!.has(x.id)) : !!v && cache.has((v as Ref).id);
      },
    };
  }
  return lazy(() => {
    const out: number[] = [];
    for (const id of targetIds()) {
      const s = store.referrers(rt.type, head, { type: tType, id });
      if (s) for (const x of s) out.push(x);
    }
    return sortedUnique(out);
  });
}

/** A clause answered from an index: its predicate tests membership of the candidates. */
function lazy(candidates: () => IdList): Compiled {
  let list: IdList | undefined;
  let set: Set<number> | undefined;
  const get = () => (list ??= candidates());
  return {
    pred: (r) => (set ??= new Set(Array.from(get()))).has(r.id),
    candidates: get,
  };
}

/** Union of two ascending id lists. */
function merge(a: IdList, b: IdList): IdList {
  if (!a.length) return b;
  if (!b.length) return a;
  const out = new Int32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    out[n++] = Math.min(x, y);
    if (x <= y) i++;
    if (y <= x) j++;
  }
  while (i < a.length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return out.subarray(0, n);
}

function sortedUnique(ids: number[]): IdList {
  const a = Int32Array.from(ids).sort();
  let n = 0;
  for (let i = 0; i < a.length; i++) if (!i || a[i] !== a[i - 1]) a[n++] = a[i]!;
  return a.subarray(0, n);
}

/** Ids of a type in ascending order: the table's insertion order (ids only grow). */
function tableIds(store: Store, rt: ResourceType): Int32Array {
  return store.cached(`ids\0${rt.type}`, rt.type, () => {
    const ids = Int32Array.from(store.table(rt.type).keys());
    for (let i = 1; i < ids.length; i++) if (ids[i - 1]! > ids[i]!) return ids.sort();
    return ids;
  });
}

/** First position in `ids` (ascending) whose id is at least `v` (above `v` when `after`). */
function bound(ids: Int32Array, v: number, after = false): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid]! < v || (after && ids[mid] === v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** 1 for id order (no sort, or `sort=id`), -1 for `sort=-id`, 0 otherwise. */
function idOrder(sort: SortKey[]): number {
  if (!sort.length) return 1;
  const [k] = sort;
  return sort.length === 1 && k!.path.length === 1 && k!.path[0] === 'id' ? (k!.desc ? -1 : 1) : 0;
}

/** Result of a collection query. */
interface CollectionResult {
  page: Rec[];
  total: number;
}

/**
 * A request in id order with no indexed clause: walks the type's sorted ids between the bounds
 * of any `filter[id]` range (what the CLI's keyset paging past the offset cap sends), testing
 * the other clauses; with none, the page is read directly at its position.
 */
function runIdOrdered(store: Store, rt: ResourceType, q: ParsedQuery, compiled: Compiled[], preds: Pred[], dir: number): CollectionResult {
  const table = store.table(rt.type);
  const ids = tableIds(store, rt);
  let a = 0;
  let b = ids.length;
  for (const c of compiled) {
    if (!c.idRange) continue;
    a = Math.max(a, bound(ids, c.idRange.lo));
    b = Math.min(b, bound(ids, c.idRange.hi, true));
  }
  const at = (i: number) => table.get(ids[dir > 0 ? a + i : b - 1 - i]!)!;
  const n = Math.max(0, b - a);
  const end = q.offset + q.limit;
  const page: Rec[] = [];
  if (!preds.length) {
    for (let i = q.offset; i < end && i < n; i++) page.push(at(i));
    return { page, total: n };
  }
  let total = 0;
  for (let i = 0; i < n; i++) {
    const rec = at(i);
    let ok = true;
    for (const p of preds)
      if (!p(rec)) {
        ok = false;
        break;
      }
    if (!ok) continue;
    if (total >= q.offset && total < end) page.push(rec);
    total++;
  }
  return { page, total };
}

/** Runs filters, sort and paging of a collection request. */
export function runCollection(store: Store, rt: ResourceType, q: ParsedQuery, rules?: TypeRules): CollectionResult {
  const compiled = q.filters.map((c) => compile(store, rt, c));
  const visible = rules?.visibleInIndex;
  const visiblePred: Pred[] = visible ? [(r) => visible(r, q)] : [];
  const dir = idOrder(q.sort);
  // The smallest candidate list of the clauses answered from indexes, if any.
  let indexed: Compiled | undefined;
  let best: IdList | undefined;
  for (const c of compiled) {
    if (!c.candidates) continue;
    const ids = c.candidates();
    if (!best || ids.length < best.length) {
      best = ids;
      indexed = c;
    }
  }
  if (dir && !best)
    return runIdOrdered(store, rt, q, compiled, [...visiblePred, ...compiled.filter((c) => !c.idRange).map((c) => c.pred)], dir);
  const compare = dir ? undefined : comparator(store, rt, q.sort);
  const table = store.table(rt.type);
  const preds = [...visiblePred, ...compiled.filter((c) => c !== indexed).map((c) => c.pred)];
  const matched: Rec[] = [];
  const test = (rec: Rec) => {
    for (const p of preds) if (!p(rec)) return;
    matched.push(rec);
  };
  if (best) {
    for (let i = 0; i < best.length; i++) {
      const rec = table.get(best[i]!);
      if (rec) test(rec);
    }
  } else for (const rec of table.values()) test(rec);
  const end = q.offset + q.limit;
  if (!compare) {
    if (dir < 0) matched.reverse();
    return { page: matched.slice(q.offset, end), total: matched.length };
  }
  const sorted = matched.length > 4 * end ? topK(matched, end, compare) : matched.sort(compare);
  return { page: sorted.slice(q.offset, end), total: matched.length };
}

/** Checks filters and sort of a request without running it (single-resource requests). */
export function checkQuery(store: Store, rt: ResourceType, q: ParsedQuery): void {
  for (const c of q.filters) compile(store, rt, c);
  if (idOrder(q.sort) === 0) comparator(store, rt, q.sort);
}
