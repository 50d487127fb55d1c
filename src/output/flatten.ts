/**
 * JSON:API resource objects → flat records (README.md § Output):
 * `{ id, type, ...attributes, <relationship>: id | [ids] | null }`, an included resource
 * replacing its id with its own (flat) record.
 */
import type { JsonApiDocument, ResourceObject } from '../api/jsonapi.js';
import { rawAttributes } from '../api/page-parse.js';
import { setField } from '../own-field.js';
import { idValue } from '../lossless-json.js';

/** A flat record: what scripts parse and bulk inputs accept. */
export type FlatRecord = { id: number | string; type: string } & Record<string, unknown>;

/** Index of `included` by `type:id`. */
export type IncludedIndex = Map<string, ResourceObject>;

/** Builds the index of a document's `included` array. */
export function indexIncluded(doc: JsonApiDocument): IncludedIndex {
  const map: IncludedIndex = new Map();
  for (const r of doc.included ?? []) map.set(`${r.type}:${r.id}`, r);
  return map;
}

/**
 * Flattens one resource object. Relationships that carry only links (no `data`) are left out:
 * their ids are unknown. Included records are flattened one level deep (their own
 * relationships stay ids), so cycles cannot recurse.
 */
export function flatten(resource: ResourceObject, included?: IncludedIndex, depth = 0): FlatRecord {
  const record: FlatRecord = { id: recordId(resource.id), type: resource.type };
  for (const [k, v] of Object.entries(resource.attributes ?? {})) setField(record, k, v);
  for (const [name, rel] of Object.entries(resource.relationships ?? {})) {
    if (!rel || !('data' in rel)) continue;
    const data = rel.data;
    if (data === null || data === undefined) {
      setField(record, name, null);
    } else if (Array.isArray(data)) {
      setField(record, name, data.map((d) => resolveId(d.type, d.id, included, depth)));
    } else {
      setField(record, name, resolveId(data.type, data.id, included, depth));
    }
  }
  if (resource.meta && Object.keys(resource.meta).length > 0) record.meta = resource.meta;
  return record;
}

function resolveId(type: string, id: number | string, included: IncludedIndex | undefined, depth: number): unknown {
  const inc = depth === 0 ? included?.get(`${type}:${id}`) : undefined;
  return inc ? flatten(inc, included, depth + 1) : recordId(id);
}

/**
 * Ids are integers in this API, but JSON:API servers (and gateways that re-encode) may send
 * them as strings: `"12"` is printed as `12` so that scripts see one shape. Anything that is not
 * a plain safe integer stays as sent: an id past 2^53 (a string since parsing) keeps its digits.
 */
export const recordId: (id: number | string) => number | string = idValue;

/**
 * `JSON.stringify(flatten(resource, included))`, built from the attributes' own JSON text instead
 * of a flat object: ~5× faster for records with hundreds of fields (150 custom fields), which is
 * what `list --all -o ndjson` spends its time on. When a name would not land where `flatten` puts
 * it (an attribute named `id`, `type`, `meta`, `__proto__` or like an array index, or shared with
 * a relationship), the record goes through `flatten` instead.
 */
export function flatJson(resource: ResourceObject, included?: IncludedIndex): string {
  if (typeof resource.type !== 'string' || resource.id === undefined) return JSON.stringify(flatten(resource, included));
  // Attributes still as the server wrote them (a page parsed by api/page-parse.ts), keys checked.
  const raw = rawAttributes(resource);
  let a = raw;
  if (a === undefined) {
    const attrs = resource.attributes ?? {};
    if (typeof attrs !== 'object' || attrs === null || Array.isArray(attrs)) return JSON.stringify(flatten(resource, included));
    for (const k in attrs) if (!plainKey(k)) return JSON.stringify(flatten(resource, included));
    a = JSON.stringify(attrs);
  }
  const rels = resource.relationships;
  let json = `{"id":${JSON.stringify(recordId(resource.id))},"type":${JSON.stringify(resource.type)}`;
  const inner = a.slice(1, -1);
  if (inner.trim() !== '') json += `,${inner}`;
  for (const name in rels) {
    const rel = rels[name];
    if (!rel || !('data' in rel)) continue;
    // (Raw attributes have no key named like a relationship: page-parse.ts checks.)
    if (!plainKey(name) || (raw === undefined && Object.hasOwn(resource.attributes ?? {}, name))) {
      return JSON.stringify(flatten(resource, included));
    }
    const data = rel.data;
    const value =
      data === null || data === undefined
        ? null
        : Array.isArray(data)
          ? data.map((d) => resolveId(d.type, d.id, included, 0))
          : resolveId(data.type, data.id, included, 0);
    json += `,${JSON.stringify(name)}:${JSON.stringify(value)}`;
  }
  if (resource.meta && Object.keys(resource.meta).length > 0) json += `,"meta":${JSON.stringify(resource.meta)}`;
  return `${json}}`;
}

/** A key that `flatten` places in insertion order after `id` and `type`, not elsewhere. */
function plainKey(k: string): boolean {
  const c = k.charCodeAt(0);
  // Array-index-like keys go first in a JS object; digits cover them (and a few more: safe).
  if (c >= 48 && c <= 57) return false;
  return k !== 'id' && k !== 'type' && k !== 'meta' && k !== '__proto__';
}

/** Flattens every primary record of a document. */
export function flattenDocument(doc: JsonApiDocument): FlatRecord[] {
  const included = indexIncluded(doc);
  const data = doc.data;
  if (!data) return [];
  return (Array.isArray(data) ? data : [data]).map((r) => flatten(r, included));
}
