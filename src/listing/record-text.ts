/**
 * JSON:API resource objects → flat records (README.md § Output):
 * `{ id, type, ...attributes, <relationship>: id | [ids] | null }`, an included resource
 * replacing its id with its own (flat) record.
 */
import type { JsonApiDocument, ResourceObject } from '../api/jsonapi.js';
import { attributesRegion, relationshipsText, type Region } from './page-parse.js';
import { setField } from '../own-field.js';
import { idValue } from '../lossless-json.js';

/** A flat record: what scripts parse and bulk inputs accept. */
export type FlatRecord = { id: number | string; type: string } & Record<string, unknown>;

/**
 * Index of `included` by `type:id`; `nested` holds the include paths of two or more steps
 * (`prospect.account`), along which included records are placed inside included records.
 */
export type IncludedIndex = Map<string, ResourceObject> & { nested?: ReadonlySet<string> };

/**
 * Builds the index of a document's `included` array. `include` is what was asked for: a path such
 * as `prospect.account` places the account inside the prospect (an id there before, so that
 * `--columns prospect.account.name` printed nothing though the account had come, a trial).
 */
export function indexIncluded(doc: JsonApiDocument, include?: readonly string[]): IncludedIndex {
  const map: IncludedIndex = new Map();
  const nested = new Set<string>();
  for (const path of include ?? []) {
    const steps = path.split('.');
    for (let i = 2; i <= steps.length; i++) nested.add(steps.slice(0, i).join('.'));
  }
  if (nested.size) {
    map.nested = nested;
    // A path that leads back to the primary records (`account.prospects`) finds them here: a
    // document never repeats its primary data in `included`, and a list mixed ids and records.
    const data = doc.data;
    for (const r of Array.isArray(data) ? data : data ? [data] : []) map.set(`${r.type}:${r.id}`, r);
  }
  for (const r of doc.included ?? []) map.set(`${r.type}:${r.id}`, r);
  return map;
}

/**
 * Flattens one resource object. Relationships that carry only links (no `data`) are left out:
 * their ids are unknown. Included records are flattened one level deep (their own
 * relationships stay ids), deeper only along an include path asked for (`included.nested`), so
 * cycles cannot recurse. `path` is the relationship path to this record (`prospect.`).
 */
export function flatten(resource: ResourceObject, included?: IncludedIndex, depth = 0, path = ''): FlatRecord {
  const record: FlatRecord = { id: recordId(resource.id), type: resource.type };
  for (const [k, v] of Object.entries(resource.attributes ?? {})) setField(record, k, v);
  for (const [name, rel] of Object.entries(resource.relationships ?? {})) {
    if (!rel || !('data' in rel)) continue;
    const data = rel.data;
    if (data === null || data === undefined) {
      setField(record, name, null);
    } else if (Array.isArray(data)) {
      setField(
        record,
        name,
        data.map((d) => resolveId(d.type, d.id, included, depth, path + name)),
      );
    } else {
      setField(record, name, resolveId(data.type, data.id, included, depth, path + name));
    }
  }
  if (resource.meta && Object.keys(resource.meta).length > 0) record.meta = resource.meta;
  return record;
}

function resolveId(type: string, id: number | string, included: IncludedIndex | undefined, depth: number, path: string): unknown {
  const inc = depth === 0 || included?.nested?.has(path) ? included?.get(`${type}:${id}`) : undefined;
  return inc ? flatten(inc, included, depth + 1, `${path}.`) : recordId(id);
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
export function recordText(resource: ResourceObject, included?: IncludedIndex): string {
  const parts = flatParts(resource, included);
  if (typeof parts === 'string') return parts;
  const m = parts.members;
  if (typeof m !== 'string') return joinedText(parts.head, m, parts.tail);
  return m === '' ? parts.head + parts.tail : `${parts.head},${m}${parts.tail}`;
}

// Performance machinery (src/README.md, Build): the record text joined as bytes, decoded once.
/**
 * `head,members tail` with the members still a range of the page's bytes, decoded once as one
 * string: decoding the members alone and joining the three made a string that was copied again
 * the first time it was read (~4 KB a record made twice, for json, csv and table). Joined in the
 * listing's record buffer (its scanner's, relationship-scan.ts), grown as needed.
 */
function joinedText(head: string, m: Region, tail: string): string {
  // UTF-8 takes at most 3 bytes per UTF-16 unit.
  const need = (head.length + tail.length) * 3 + m.end - m.start;
  const scanner = m.scanner;
  if (scanner.recordBuffer.length < need)
    scanner.recordBuffer = Buffer.allocUnsafe(Math.max(need, scanner.recordBuffer.length * 2, 1 << 14));
  const joined = scanner.recordBuffer;
  let at = joined.write(head, 0);
  joined[at++] = 44;
  at += m.page.copy(joined, at, m.start + 1, m.end - 1);
  at += joined.write(tail, at);
  return joined.toString('utf8', 0, at);
}

/** Where {@link recordLine} writes: text, and ranges of a page's bytes. */
export interface LineSink {
  text(s: string): void;
  bytes(page: Buffer, start: number, end: number): void;
}

/**
 * `recordText(resource, included) + '\n'` written to `sink`, the attributes of a listing page copied
 * from the page's bytes as they are (never decoded to a string: ndjson's fast path).
 */
export function recordLine(resource: ResourceObject, included: IncludedIndex | undefined, sink: LineSink): void {
  const parts = flatParts(resource, included);
  if (typeof parts === 'string') {
    sink.text(`${parts}\n`);
    return;
  }
  const m = parts.members;
  if (typeof m === 'string') sink.text(m === '' ? `${parts.head}${parts.tail}\n` : `${parts.head},${m}${parts.tail}\n`);
  else {
    sink.text(`${parts.head},`);
    sink.bytes(m.page, m.start + 1, m.end - 1);
    sink.text(`${parts.tail}\n`);
  }
}

/**
 * The flat record's JSON text in three parts: `{"id":…,"type":…`, the attributes' members (the
 * text between their braces: '' when there are none, a range of the page's bytes when they are
 * still unparsed) and the rest (relationships, meta, `}`); or the whole text when the record goes
 * through `flatten`.
 */
function flatParts(
  resource: ResourceObject,
  included: IncludedIndex | undefined,
): string | { head: string; members: string | Region; tail: string } {
  if (typeof resource.type !== 'string' || resource.id === undefined) return JSON.stringify(flatten(resource, included));
  // Attributes still as the server wrote them (a page parsed by page-parse.ts), keys checked.
  const region = attributesRegion(resource);
  let members: string | Region;
  if (region) members = blankObject(region) ? '' : region;
  else {
    const attrs = resource.attributes ?? {};
    if (typeof attrs !== 'object' || attrs === null || Array.isArray(attrs)) return JSON.stringify(flatten(resource, included));
    for (const k in attrs) if (!plainKey(k)) return JSON.stringify(flatten(resource, included));
    const inner = JSON.stringify(attrs).slice(1, -1);
    members = inner.trim() === '' ? '' : inner;
  }
  const unparsed = region !== undefined;
  // Relationships as the page's scanner read them, when no included record can stand for an id.
  let tail = unparsed && (included === undefined || included.size === 0) ? relationshipsText(resource) : undefined;
  if (tail === undefined) {
    tail = relationshipsTextOf(resource, included, unparsed);
    if (tail === undefined) return JSON.stringify(flatten(resource, included));
  }
  if (resource.meta && Object.keys(resource.meta).length > 0) tail += `,"meta":${JSON.stringify(resource.meta)}`;
  return { head: `{"id":${JSON.stringify(recordId(resource.id))},"type":${JSON.stringify(resource.type)}`, members, tail: `${tail}}` };
}

/** The relationships text of a record (its part of the record text); undefined when the record must go through `flatten`. */
function relationshipsTextOf(resource: ResourceObject, included: IncludedIndex | undefined, unparsed: boolean): string | undefined {
  const rels = resource.relationships;
  let tail = '';
  for (const name in rels) {
    const rel = rels[name];
    if (!rel || !('data' in rel)) continue;
    // (Raw attributes have no key named like a relationship: page-parse.ts checks.)
    if (!plainKey(name) || (!unparsed && Object.hasOwn(resource.attributes ?? {}, name))) return undefined;
    const data = rel.data;
    const value =
      data === null || data === undefined
        ? null
        : Array.isArray(data)
          ? data.map((d) => resolveId(d.type, d.id, included, 0, name))
          : resolveId(data.type, data.id, included, 0, name);
    tail += `,${JSON.stringify(name)}:${JSON.stringify(value)}`;
  }
  return tail;
}

/** True when the object text in `r` has no members (`{}`, `{ }`). */
function blankObject(r: Region): boolean {
  for (let i = r.start + 1; i < r.end - 1; i++) if (r.page[i] !== 32) return false;
  return true;
}

/** A key that `flatten` places in insertion order after `id` and `type`, not elsewhere. */
function plainKey(k: string): boolean {
  const c = k.charCodeAt(0);
  // Array-index-like keys go first in a JS object; digits cover them (and a few more: safe).
  if (c >= 48 && c <= 57) return false;
  return k !== 'id' && k !== 'type' && k !== 'meta' && k !== '__proto__';
}

/** Flattens every primary record of a document. */
export function flattenDocument(doc: JsonApiDocument, include?: readonly string[]): FlatRecord[] {
  const included = indexIncluded(doc, include);
  const data = doc.data;
  if (!data) return [];
  return (Array.isArray(data) ? data : [data]).map((r) => flatten(r, included));
}
