/**
 * What an update would change: the fields of a row's write that differ from the record as the
 * service holds it, old → new. Only those fields are sent, and a row that changes nothing is not
 * sent at all — so a plan (`--plan`) and the run that follows it agree field for field.
 */
import { apiTime } from '../../api-time.js';
import type { WriteData } from '../../api/write-body.js';
import type { MatchedRecord } from './key-match.js';

/** One field that would change. */
export interface FieldChange {
  field: string;
  old: unknown;
  new: unknown;
}

/** Values compared as JSON, object keys in order; a number equals its text. */
function same(a: unknown, b: unknown): boolean {
  if (stable(a ?? null) === stable(b ?? null)) return true;
  // A date-time the service writes back in another form (`2026-01-05` → `2026-01-05T00:00:00.000Z`).
  return typeof a === 'string' && typeof b === 'string' && ISO.test(a) && ISO.test(b) && apiTime(a) === apiTime(b);
}

const ISO = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  // A number the service keeps as text (custom fields) is the same value.
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(String(v));
  return JSON.stringify(v);
}

/** The id of a to-one relationship as a record carries it, or null. */
function relId(rel: unknown): string | null {
  const d = (rel as { data?: unknown } | undefined)?.data;
  if (!d || Array.isArray(d)) return null;
  const id = (d as { id?: unknown }).id;
  return id === undefined || id === null ? null : String(id);
}

/**
 * The changes of `data` against `record`, and the write data holding only them. Relationships
 * are compared by the ids the record shows (a to-many one as a set); one the record does not show
 * counts as a change.
 */
export function diffRecord(data: WriteData, record: MatchedRecord): { changes: FieldChange[]; data: WriteData } {
  const changes: FieldChange[] = [];
  const out: WriteData = { type: data.type, id: record.id, attributes: {}, relationships: {} };
  for (const [k, v] of Object.entries(data.attributes)) {
    const old = record.attributes[k];
    if (same(old, v)) continue;
    changes.push({ field: k, old: old ?? null, new: v });
    out.attributes[k] = v;
  }
  for (const [k, rel] of Object.entries(data.relationships)) {
    const want = rel.data;
    if (Array.isArray(want)) {
      // A to-many relationship the record shows is the same when it holds the same ids.
      const shown = (record.relationships[k] as { data?: unknown } | undefined)?.data;
      const had = Array.isArray(shown) ? shown.map((d) => String((d as { id?: unknown }).id)) : undefined;
      const now = want.map((d) => String(d.id));
      if (had && had.length === now.length && [...had].sort().join(',') === [...now].sort().join(',')) continue;
      changes.push({ field: k, old: had ?? null, new: want.map((d) => d.id) });
      out.relationships[k] = rel;
      continue;
    }
    const had = k in record.relationships ? relId(record.relationships[k]) : undefined;
    const now = want ? String(want.id) : null;
    if (had === now) continue;
    changes.push({ field: k, old: had ?? null, new: now });
    out.relationships[k] = rel;
  }
  return { changes, data: out };
}
