/**
 * Resource objects of the real org → records of the sandbox's store, with their real ids, only
 * the attributes the API returns to a reader (write-only ones are never asked for, and dropped
 * should a server send them), anonymised unless told otherwise.
 */
import type { RelationshipObject, ResourceObject } from '../../api/jsonapi.js';
import { allAttributes, resourceByType, secretAttributeNames, type ResourceType } from '../../registry/index.js';
import type { Anonymiser } from '../../anonymise.js';
import { storedRels } from '../../sandbox/data/model.js';
import type { CustomFieldValidation } from '../../sandbox/data/org.js';
import type { Rec, Ref, RelValue } from '../../sandbox/data/store.js';

/** Attributes a copy asks for: everything readable, nothing write-only or costly. */
export function readableFields(rt: ResourceType): string[] | undefined {
  const attrs = allAttributes(rt);
  // Without a fieldset the API returns the default attributes, which never hold write-only
  // ones; a fieldset is sent only where the type has such fields, to say so explicitly.
  if (!attrs.some((a) => a.writeOnly || a.sensitive)) return undefined;
  return [
    ...attrs.filter((a) => !a.writeOnly && !a.sensitive && !a.onlyOnRequest).map((a) => a.name),
    ...storedRels(rt).map((r) => r.name),
  ];
}

function numericId(id: unknown): number | undefined {
  const n = typeof id === 'number' ? id : typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function refOf(v: unknown): Ref | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as { type?: unknown; id?: unknown };
  const id = numericId(o.id);
  return typeof o.type === 'string' && id !== undefined ? { type: o.type, id } : undefined;
}

/** A to-one relationship given as a link only: its target's id is the last segment of the link. */
function refFromLink(rel: RelationshipObject, target: ResourceType | undefined): Ref | null | undefined {
  const related = rel.links?.related;
  if (!target || typeof related !== 'string') return undefined;
  const m = new RegExp(`/${target.path}(?:/(\\d+))?(?:\\?.*)?$`).exec(related);
  if (!m) return undefined;
  return m[1] ? { type: target.type, id: Number(m[1]) } : null;
}

/** One resource object as a store record; undefined for an object without a usable id. */
export function toRecord(
  rt: ResourceType,
  obj: ResourceObject,
  anon: Anonymiser | undefined,
  custom?: Record<string, CustomFieldValidation>,
): Rec | undefined {
  const id = numericId(obj.id);
  if (id === undefined) return undefined;
  const secret = secretAttributeNames(rt);
  const attrs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj.attributes ?? {})) if (v != null && !secret.has(k)) attrs[k] = v;
  const rels: Record<string, RelValue> = {};
  for (const spec of storedRels(rt)) {
    const rel = obj.relationships?.[spec.name];
    if (!rel) continue;
    if ('data' in rel && rel.data !== undefined) {
      if (spec.kind === 'one') rels[spec.name] = refOf(rel.data) ?? null;
      else if (Array.isArray(rel.data)) rels[spec.name] = rel.data.map(refOf).filter((r): r is Ref => r !== undefined);
    } else if (spec.kind === 'one') {
      const r = refFromLink(rel, spec.target ? resourceByType(spec.target) : undefined);
      if (r !== undefined) rels[spec.name] = r;
    }
  }
  return { id, attributes: anon ? anon.attributes(rt.type, attrs, custom) : attrs, rels };
}

/** Ids that the records' `rel` relationship points at. */
export function targets(recs: Iterable<Rec>, rel: string): number[] {
  const out = new Set<number>();
  for (const r of recs) {
    const v = r.rels[rel];
    if (v && !Array.isArray(v)) out.add(v.id);
  }
  return [...out];
}
