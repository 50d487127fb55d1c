/**
 * JSON:API resource objects → flat records (CLI.md § Output):
 * `{ id, type, ...attributes, <relationship>: id | [ids] | null }`, an included resource
 * replacing its id with its own (flat) record.
 */
import type { JsonApiDocument, ResourceObject } from '../api/jsonapi.js';

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
  for (const [k, v] of Object.entries(resource.attributes ?? {})) record[k] = v;
  for (const [name, rel] of Object.entries(resource.relationships ?? {})) {
    if (!rel || !('data' in rel)) continue;
    const data = rel.data;
    if (data === null || data === undefined) {
      record[name] = null;
    } else if (Array.isArray(data)) {
      record[name] = data.map((d) => resolveId(d.type, d.id, included, depth));
    } else {
      record[name] = resolveId(data.type, data.id, included, depth);
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
 * a plain safe integer stays as sent.
 */
export function recordId(id: number | string): number | string {
  if (typeof id !== 'string' || !/^[1-9]\d{0,15}$/.test(id)) return id;
  const n = Number(id);
  return Number.isSafeInteger(n) ? n : id;
}

/** Flattens every primary record of a document. */
export function flattenDocument(doc: JsonApiDocument): FlatRecord[] {
  const included = indexIncluded(doc);
  const data = doc.data;
  if (!data) return [];
  return (Array.isArray(data) ? data : [data]).map((r) => flatten(r, included));
}
