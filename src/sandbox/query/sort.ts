/**
 * Sorting of collection results: comparators over sort keys (integer ranks per attribute for
 * plain keys), and selection of the first `k` records of a large result without sorting it.
 */
import { findAttribute, findRelationship, resourceByType, type ResourceType } from '../../registry/index.js';
import { paramError } from '../errors.js';
import type { SortKey } from './query.js';
import type { Rec, Ref, Store } from '../data/store.js';

/** Orders two attribute values of one type (numbers, or ISO date and plain strings). */
export function cmp(a: unknown, b: unknown): number {
  return a === b ? 0 : (a as number) < (b as number) ? -1 : 1;
}

type Getter = (rec: Rec) => unknown;

function sortable(rt: ResourceType, name: string): boolean {
  return name === 'id' || !!findAttribute(rt, name)?.sortable;
}

function getter(store: Store, rt: ResourceType, key: SortKey, param: string): Getter {
  const [head, sub, ...extra] = key.path;
  if (!head || extra.length) throw paramError(param, `Unsupported sort key ${key.path.join('.')}.`);
  if (sub === undefined) {
    if (head !== 'id' && !findAttribute(rt, head)) throw paramError(param, `${rt.type} has no attribute '${head}'.`);
    if (!sortable(rt, head)) throw paramError(param, `${rt.type}.${head} is not sortable.`);
    return head === 'id' ? (r) => r.id : (r) => r.attributes[head];
  }
  // `rel.attr` (deprecated, still served): the value of the related record.
  const rel = findRelationship(rt, head);
  const target = rel?.kind === 'one' && rel.target ? resourceByType(rel.target) : undefined;
  if (!rel || !target) throw paramError(param, `${rt.type} has no to-one relationship '${head}' to sort on.`);
  if (!sortable(target, sub)) throw paramError(param, `${target.type}.${sub} is not sortable.`);
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
export function comparator(store: Store, rt: ResourceType, keys: SortKey[]): (a: Rec, b: Rec) => number {
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

/**
 * The `k` first records under `compare`, in order, without sorting the whole list: a bounded
 * max-heap (O(n log k) whatever the input order; `compare` is total, ties broken by id).
 */
export function topK(list: Rec[], k: number, compare: (a: Rec, b: Rec) => number): Rec[] {
  const heap: Rec[] = [];
  const swap = (i: number, j: number) => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  for (const r of list) {
    if (heap.length < k) {
      heap.push(r);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (compare(heap[i]!, heap[p]!) <= 0) break;
        swap(i, p);
        i = p;
      }
    } else if (compare(r, heap[0]!) < 0) {
      heap[0] = r;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        let m = i;
        if (l < k && compare(heap[l]!, heap[m]!) > 0) m = l;
        if (l + 1 < k && compare(heap[l + 1]!, heap[m]!) > 0) m = l + 1;
        if (m === i) break;
        swap(i, m);
        i = m;
      }
    }
  }
  return heap.sort(compare);
}
