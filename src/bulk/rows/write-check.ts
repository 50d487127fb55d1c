/**
 * Reading an update back after its answer was lost: does the record now carry every value the
 * row sets? Then the update was done (by the attempt whose answer was lost, or it had those
 * values already) and nothing needs sending. Write-only attributes and relationships the server
 * shows only as links cannot be compared and are left out.
 */
import type { ResourceObject, ResourceIdentifier } from '../../api/jsonapi.js';
import type { WriteData } from '../../api/write-body.js';
import { findAttribute, type ResourceType } from '../../registry/index.js';

/** The sparse fieldset that reads back what an update sets (`fields[prospect]=title,account`). */
export function readBackQuery(rt: ResourceType, data: WriteData): string {
  const names = [...Object.keys(data.attributes).filter((n) => !findAttribute(rt, n)?.writeOnly), ...Object.keys(data.relationships)];
  return `fields[${rt.type}]=${names.map(encodeURIComponent).join(',')}`;
}

/** JSON with object keys in order, so that equal values compare equal. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

function ids(d: ResourceIdentifier | ResourceIdentifier[] | null): string {
  if (d === null) return 'null';
  return Array.isArray(d)
    ? d
        .map((r) => String(r.id))
        .sort()
        .join(',')
    : String(d.id);
}

/**
 * True when the record carries every value of the update that can be compared, false when one
 * differs, undefined when none can be compared (the record is read back in vain).
 */
export function updateApplied(rt: ResourceType, data: WriteData, record: ResourceObject): boolean | undefined {
  let compared = 0;
  for (const [name, value] of Object.entries(data.attributes)) {
    if (findAttribute(rt, name)?.writeOnly || !record.attributes || !(name in record.attributes)) continue;
    compared++;
    if (canonical(record.attributes[name]) !== canonical(value)) return false;
  }
  for (const [name, rel] of Object.entries(data.relationships)) {
    const got = record.relationships?.[name];
    if (rel.data === undefined || !got || got.data === undefined) continue;
    compared++;
    if (ids(got.data) !== ids(rel.data)) return false;
  }
  return compared > 0 ? true : undefined;
}
