/** Helpers shared by the rules. */
import { findAttribute, resourceByType } from '../../registry/index.js';
import { ruleError } from '../errors.js';
import type { Rec, Ref, Store } from '../data/store.js';
import { isoSeconds } from '../data/time.js';

/** The to-one identifier stored under `rel`, if any. */
export function refOf(rec: Rec | undefined, rel: string): Ref | undefined {
  const v = rec?.rels[rel];
  return v && !Array.isArray(v) ? v : undefined;
}

/** The record a to-one relationship points at. */
export function follow(store: Store, rec: Rec | undefined, rel: string): Rec | undefined {
  const r = refOf(rec, rel);
  return r ? store.get(r.type, r.id) : undefined;
}

/** Adds `by` to an integer counter when the type has it (the registry decides which exist). */
export function bump(store: Store, type: string, rec: Rec | undefined, counter: string, by = 1, extra: Record<string, unknown> = {}): void {
  if (!rec) return;
  const rt = resourceByType(type);
  const attrs: Record<string, unknown> = {};
  if (rt && findAttribute(rt, counter)) attrs[counter] = ((rec.attributes[counter] as number | undefined) ?? 0) + by;
  for (const [k, v] of Object.entries(extra)) if (rt && findAttribute(rt, k)) attrs[k] = v;
  store.update(type, rec.id, attrs);
}

/** Current time in the payload format. */
export function nowText(store: Store): string {
  return isoSeconds(store.now());
}

/** Throws a 422 unless a relationship is present in a create. */
export function requireRel(rels: Record<string, unknown>, name: string, what: string): Ref {
  const v = rels[name];
  if (!v || Array.isArray(v)) throw ruleError(`${what} needs the relationship '${name}'.`, `/data/relationships/${name}`);
  return v as Ref;
}

/** Interned identifiers, so that thousands of records pointing at one user share one object. */
export function refCache(): (type: string, id: number) => Ref {
  // By type, then id: no key string joined and hashed per call (a seed asks some 100,000 times).
  const byType = new Map<string, Map<number, Ref>>();
  return (type, id) => {
    let m = byType.get(type);
    if (!m) byType.set(type, (m = new Map()));
    let r = m.get(id);
    if (!r) m.set(id, (r = Object.freeze({ type, id }) as Ref));
    return r;
  };
}
