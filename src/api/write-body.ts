/**
 * JSON:API request bodies for create and update, from the flat record shape (README.md § Output)
 * (`{ id, ...attributes, <relationship>: id | "type:id" | [ids] | null }`) or from a full
 * document. Shared by `create`/`update` flags, `--data` and bulk input rows.
 */
import { findAttribute, findRelationship, resourceByType, type ResourceType } from '../registry/index.js';
import { didYouMean } from '../suggest.js';
import type { RelationshipObject, ResourceIdentifier } from './jsonapi.js';
import { checkAttributes, type FieldProblem } from './validate.js';
import { setField } from '../own-field.js';
import { idValue } from '../lossless-json.js';

/** The `data` member of a write request. */
export interface WriteData {
  type: string;
  id?: number | string;
  attributes: Record<string, unknown>;
  relationships: Record<string, RelationshipObject>;
}

/** Result of converting one record: the body, or the problems that stop it. */
interface WriteBodyResult {
  data: WriteData;
  problems: FieldProblem[];
}

/** A relationship value as users write it: `5`, `"account:5"`, `[1,2]`, `null`, `{type,id}`. */
export function relationshipData(
  rt: ResourceType,
  name: string,
  value: unknown,
): { data: ResourceIdentifier | ResourceIdentifier[] | null } | { problem: string } {
  const spec = findRelationship(rt, name);
  if (value === null || value === 'null' || value === '') return { data: null };
  const one = (v: unknown): ResourceIdentifier | string => {
    if (typeof v === 'object' && v !== null && 'id' in v) {
      const o = v as { id: unknown; type?: unknown };
      return one(o.type ? `${String(o.type)}:${String(o.id)}` : o.id);
    }
    const s = String(v).trim();
    const m = /^(?:([A-Za-z][A-Za-z0-9]*):)?(\d+)$/.exec(s);
    if (!m) return `"${s}" is not an id (use id or type:id)`;
    const type = m[1] ?? spec?.target;
    if (!type) {
      // Most often a typo (`--rel acount=4`): say which relationships there are before asking for a type.
      const hint = didYouMean(
        name,
        rt.relationships.map((r) => r.name),
      );
      return `${rt.type} has no relationship "${name}"${hint}; for one the spec does not show, give its type: ${name}=type:id`;
    }
    if (m[1] && !resourceByType(m[1])) return `unknown type "${m[1]}"`;
    return { type, id: normalizeId(m[2]) };
  };
  const many = spec?.kind === 'many' || Array.isArray(value);
  if (many) {
    const items = Array.isArray(value) ? value : String(value).split(/[,;]/).filter(Boolean);
    const out: ResourceIdentifier[] = [];
    for (const item of items) {
      const r = one(item);
      if (typeof r === 'string') return { problem: r };
      out.push(r);
    }
    return { data: out };
  }
  const r = one(value);
  return typeof r === 'string' ? { problem: r } : { data: r };
}

/**
 * Splits a flat record into attributes and relationships of `rt`. Keys naming a relationship
 * (or `rel.id`) become relationships; `id`, `type` and `meta` are envelope; everything else is an
 * attribute (unknown ones pass through). With `readOnly: 'drop'` read-only fields are left out
 * instead of reported. Included records (objects with `id` and `type`) collapse
 * back to identifiers, so `list -o ndjson` output round-trips.
 */
export function recordToWriteData(
  rt: ResourceType,
  record: Record<string, unknown>,
  opts: { forUpdate?: boolean; readOnly?: 'error' | 'drop' } = {},
): WriteBodyResult {
  const drop = opts.readOnly === 'drop';
  const problems: FieldProblem[] = [];
  const attributes: Record<string, unknown> = {};
  const relationships: Record<string, RelationshipObject> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === 'id' || key === 'type' || key === 'meta') continue;
    const relName = key.endsWith('.id') ? key.slice(0, -3) : key;
    const rel = findRelationship(rt, relName);
    if (rel && !findAttribute(rt, key)) {
      if (rel.readOnly) {
        // Records read back from `list` carry read-only fields; bulk rows drop them so that the
        // output round-trips, while a flag that names one is a mistake worth reporting.
        if (!drop) problems.push({ field: relName, reason: `relationship is read-only on ${rt.type}` });
        continue;
      }
      const r = relationshipData(rt, relName, value);
      if ('problem' in r) problems.push({ field: relName, reason: r.problem });
      else setField(relationships, relName, { data: r.data });
      continue;
    }
    if (drop && findAttribute(rt, key)?.readOnly) continue;
    setField(attributes, key, value);
  }
  problems.push(...checkAttributes(rt, attributes));
  const data: WriteData = { type: rt.type, attributes, relationships };
  if (opts.forUpdate && record.id !== undefined && record.id !== null && record.id !== '') data.id = normalizeId(record.id);
  return { data, problems };
}

/**
 * Ids are integers in this API; keep strings that are not. An id past 2^53 is sent as the
 * string of its digits: a Number would round it to another record's id.
 */
export function normalizeId(id: unknown): number | string {
  const s = String(id).trim();
  return /^\d+$/.test(s) ? idValue(s.replace(/^0+(?=\d)/, '')) : s;
}

/** A request document with empty members dropped. */
export function toDocument(data: WriteData): { data: Record<string, unknown> } {
  const out: Record<string, unknown> = { type: data.type };
  if (data.id !== undefined) out.id = data.id;
  if (Object.keys(data.attributes).length) out.attributes = data.attributes;
  if (Object.keys(data.relationships).length) out.relationships = data.relationships;
  return { data: out };
}
