/**
 * The query engine: filters, sort and paging over one type's table. Relationship-id filters are
 * answered from the store's reverse indexes; everything else is one pass over the table, and a
 * small page of a large sorted result is selected without sorting everything.
 */
import { findAttribute, findRelationship, resourceByType, type AttributeSpec, type ResourceType } from '../registry/index.js';
import { paramError } from './errors.js';
import { relModels } from './model.js';
import type { FilterClause, ParsedQuery, SortKey } from './query.js';
import type { TypeRules } from './rules/types.js';
import { normalizeDateTime } from './time.js';
import type { Rec, Ref, Store } from './store.js';

type Pred = (rec: Rec) => boolean;
type Getter = (rec: Rec) => unknown;

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

function cmp(a: unknown, b: unknown): number {
  return a === b ? 0 : (a as number) < (b as number) ? -1 : 1;
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
function compile(store: Store, rt: ResourceType, c: FilterClause): { pred: Pred; candidates?: () => Set<number> } {
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
    if (head === 'id') return { pred: (r) => p(r.id) };
    if (c.values) {
      // Equality and lists: answered from a value index built once per change of the type.
      const values = c.values.map((v) => coerce(spec, v, c.param));
      return {
        pred: (r) => p(r.attributes[head]),
        candidates: () => {
          const index = valueIndex(store, rt, head);
          const out = new Set<number>();
          for (const v of values) for (const id of index.get(v) ?? []) out.add(id);
          return out;
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
      const out = new Set<number>();
      for (const id of targetIds()) {
        const v = store.get(type, id)?.rels[via];
        for (const r of Array.isArray(v) ? v : v ? [v] : []) if (r.type === rt.type) out.add(r.id);
      }
      return out;
    };
    return lazy(candidates);
  }
  const candidates = () => {
    const out = new Set<number>();
    for (const id of targetIds()) {
      const types = tType ? [tType] : ['*'];
      for (const t of types) {
        const s = t === '*' ? undefined : store.referrers(rt.type, head, { type: t, id });
        if (s) for (const x of s) out.add(x);
      }
    }
    return out;
  };
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
  return lazy(candidates);
}

function lazy(candidates: () => Set<number>): { pred: Pred; candidates: () => Set<number> } {
  let set: Set<number> | undefined;
  const get = () => (set ??= candidates());
  return { pred: (r) => get().has(r.id), candidates: get };
}

function getter(store: Store, rt: ResourceType, key: SortKey, param: string): Getter {
  const [head, sub, ...extra] = key.path;
  if (!head || extra.length) throw paramError(param, `Unsupported sort key ${key.path.join('.')}.`);
  if (sub === undefined) {
    const spec = attrSpec(rt, head);
    if (!spec) throw paramError(param, `${rt.type} has no attribute '${head}'.`);
    if (!spec.sortable) throw paramError(param, `${rt.type}.${head} is not sortable.`);
    return head === 'id' ? (r) => r.id : (r) => r.attributes[head];
  }
  // `rel.attr` (deprecated, still served): the value of the related record.
  const rel = findRelationship(rt, head);
  const target = rel?.kind === 'one' && rel.target ? resourceByType(rel.target) : undefined;
  if (!rel || !target) throw paramError(param, `${rt.type} has no to-one relationship '${head}' to sort on.`);
  const spec = attrSpec(target, sub);
  if (!spec?.sortable) throw paramError(param, `${target.type}.${sub} is not sortable.`);
  return (r) => {
    const ref = r.rels[head] as Ref | null | undefined;
    const t = ref ? store.get(ref.type, ref.id) : undefined;
    return t ? (sub === 'id' ? t.id : t.attributes[sub]) : undefined;
  };
}

const NULL_RANK = 2 ** 31 - 1;

/**
 * Rank of every record of a type under one attribute (equal values share a rank; nulls last),
 * indexed by id. Built once per change of the type, it turns sorting into integer compares.
 */
function ranks(store: Store, rt: ResourceType, name: string): Int32Array {
  return store.cached(`rank\0${rt.type}\0${name}`, rt.type, () => {
    const table = store.table(rt.type);
    let max = 0;
    const pairs: [unknown, number][] = [];
    for (const rec of table.values()) {
      if (rec.id > max) max = rec.id;
      const v = name === 'id' ? rec.id : rec.attributes[name];
      if (v != null) pairs.push([v, rec.id]);
    }
    pairs.sort((a, b) => cmp(a[0], b[0]));
    const out = new Int32Array(max + 1).fill(NULL_RANK);
    let rank = 0;
    for (let i = 0; i < pairs.length; i++) {
      if (i && cmp(pairs[i - 1]![0], pairs[i]![0]) !== 0) rank = i;
      out[pairs[i]![1]] = rank;
    }
    return out;
  });
}

/** A comparator over sort keys; nulls sort last ascending (first descending); ties by id. */
function comparator(store: Store, rt: ResourceType, keys: SortKey[]): (a: Rec, b: Rec) => number {
  const gs = keys.map((k) => ({ g: getter(store, rt, k, 'sort'), dir: k.desc ? -1 : 1, plain: k.path.length === 1 }));
  if (gs.every((g) => g.plain)) {
    const rs = keys.map((k) => ranks(store, rt, k.path[0]!));
    const dirs = gs.map((g) => g.dir);
    return (a, b) => {
      for (let i = 0; i < rs.length; i++) {
        const r = rs[i]!;
        const d = (r[a.id] ?? NULL_RANK) - (r[b.id] ?? NULL_RANK);
        if (d) return d * dirs[i]!;
      }
      return a.id - b.id;
    };
  }
  return (a, b) => {
    for (const { g, dir } of gs) {
      const x = g(a);
      const y = g(b);
      if (x === y) continue;
      if (x == null) return dir;
      if (y == null) return -dir;
      const c = typeof x === 'string' && typeof y === 'string' ? (x < y ? -1 : x > y ? 1 : 0) : cmp(x, y);
      if (c) return c * dir;
    }
    return a.id - b.id;
  };
}

/** The `k` smallest records under `compare`, sorted, without sorting the whole list. */
function topK(list: Rec[], k: number, compare: (a: Rec, b: Rec) => number): Rec[] {
  const buf: Rec[] = [];
  for (const r of list) {
    if (buf.length === k && compare(r, buf[k - 1]!) >= 0) continue;
    let lo = 0;
    let hi = buf.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(buf[mid]!, r) <= 0) lo = mid + 1;
      else hi = mid;
    }
    buf.splice(lo, 0, r);
    if (buf.length > k) buf.pop();
  }
  return buf;
}

/** Result of a collection query. */
export interface CollectionResult {
  page: Rec[];
  total: number;
}

/** Runs filters, sort and paging of a collection request. */
export function runCollection(store: Store, rt: ResourceType, q: ParsedQuery, rules?: TypeRules): CollectionResult {
  const compiled = q.filters.map((c) => compile(store, rt, c));
  const compare = q.sort.length ? comparator(store, rt, q.sort) : undefined;
  const table = store.table(rt.type);
  const visible = rules?.visibleInIndex;
  const end = q.offset + q.limit;
  // Fast path: no filter, id order: the table's own order, read only up to the page.
  if (!compiled.length && !compare && !visible) {
    const page: Rec[] = [];
    let i = 0;
    for (const rec of table.values()) {
      if (i >= end) break;
      if (i++ >= q.offset) page.push(rec);
    }
    return { page, total: table.size };
  }
  let indexed: (typeof compiled)[number] | undefined;
  let best: Set<number> | undefined;
  for (const c of compiled) {
    if (!c.candidates) continue;
    const ids = c.candidates();
    if (!best || ids.size < best.size) {
      best = ids;
      indexed = c;
    }
  }
  let source: Iterable<Rec> = table.values();
  if (indexed && best) {
    const ids = [...best].sort((a, b) => a - b);
    source = ids.map((id) => table.get(id)).filter((r): r is Rec => !!r);
  }
  const preds = compiled.filter((c) => c !== indexed).map((c) => c.pred);
  const matched: Rec[] = [];
  for (const rec of source) {
    if (visible && !visible(rec, q)) continue;
    let ok = true;
    for (const p of preds) if (!p(rec)) { ok = false; break; }
    if (ok) matched.push(rec);
  }
  if (!compare) return { page: matched.slice(q.offset, end), total: matched.length };
  const sorted = matched.length > 4 * end && end <= 2000 ? topK(matched, end, compare) : matched.sort(compare);
  return { page: sorted.slice(q.offset, end), total: matched.length };
}

/** Checks filters and sort of a request without running it (single-resource requests). */
export function checkQuery(store: Store, rt: ResourceType, q: ParsedQuery): void {
  q.filters.forEach((c) => compile(store, rt, c));
  if (q.sort.length) comparator(store, rt, q.sort);
}
