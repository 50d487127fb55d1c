/**
 * How the sandbox stores each relationship of the registry. A to-one relationship is stored on
 * the record; a to-many one is, where possible, derived from the inverse to-one relationship of
 * the target (an account's `prospects` are the prospects whose `account` is that account), so
 * that the two sides can never disagree.
 */
import { allAttributes, resourceByType, type AttributeSpec, type RelationshipSpec, type ResourceType } from '../../registry/index.js';

/** Where the members of a relationship come from. */
type RelSource =
  | { kind: 'one' }
  | { kind: 'many-stored' }
  /** Members are the `type` records whose `via` relationship points at this record. */
  | { kind: 'many-derived'; type: string; via: string };

/** A relationship together with its storage. */
export interface RelModel {
  spec: RelationshipSpec;
  source: RelSource;
}

const cache = new Map<string, Map<string, RelModel>>();

function inverseOf(owner: ResourceType, rel: RelationshipSpec): RelSource {
  const target = rel.target ? resourceByType(rel.target) : undefined;
  if (!target) return { kind: 'many-stored' };
  const ones = target.relationships.filter((r) => r.kind === 'one' && r.target === owner.type);
  // Prefer the relationship named after the owner type (`prospect`), then `owner`, then a lone candidate.
  const via = ones.find((r) => r.name === owner.type) ?? ones.find((r) => r.name === 'owner') ?? (ones.length === 1 ? ones[0] : undefined);
  if (via) return { kind: 'many-derived', type: target.type, via: via.name };
  const manies = target.relationships.filter((r) => r.kind === 'many' && r.target === owner.type);
  // Many-to-many: one side stores the list (the type that sorts first), the other derives it.
  const back = manies[0];
  if (back && target.type < owner.type) return { kind: 'many-derived', type: target.type, via: back.name };
  return { kind: 'many-stored' };
}

/** Storage model of every relationship of a type, by name. */
export function relModels(rt: ResourceType): Map<string, RelModel> {
  let m = cache.get(rt.type);
  if (!m) {
    m = new Map();
    for (const spec of rt.relationships) {
      m.set(spec.name, { spec, source: spec.kind === 'one' ? { kind: 'one' } : inverseOf(rt, spec) });
    }
    cache.set(rt.type, m);
  }
  return m;
}

const attributeMaps = new Map<string, Map<string, AttributeSpec>>();

/**
 * Whether a type has an attribute, as `findAttribute` answers it but with one map lookup: the
 * seed and the store ask it millions of times at start-up.
 */
export function hasAttribute(rt: ResourceType, name: string): boolean {
  let m = attributeMaps.get(rt.type);
  if (!m) attributeMaps.set(rt.type, (m = new Map(allAttributes(rt).map((a) => [a.name, a]))));
  return m.has(name);
}

/** Relationships whose values live on the record (to-one and stored to-many). */
export function storedRels(rt: ResourceType): RelationshipSpec[] {
  return [...relModels(rt).values()].filter((m) => m.source.kind !== 'many-derived').map((m) => m.spec);
}
