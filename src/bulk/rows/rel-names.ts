/**
 * Relationship cells of bulk rows written as names instead of ids: `account` = `name:Atlas
 * Systems`, `owner` = `email:ana@example.com`, a to-many cell as `name:A;name:B`. The command
 * resolves every distinct name before the first write (in batches) and hands the answers in as
 * {@link RelNames}; here the rows' values are swapped for `type:id`, or the row gets a problem
 * (unknown or ambiguous name, with candidates) and is never sent.
 */
import type { FieldProblem } from '../../api/validate.js';
import { findAttribute, findRelationship, type ResourceType } from '../../registry/index.js';

/** `name:<value>` or `email:<value>`. */
const NAMED = /^\s*(name|email):([\s\S]+)$/;

/** A relationship value written as a name, split into its kind and the name. */
export function parseNamed(value: unknown): { kind: 'name' | 'email'; value: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const m = NAMED.exec(value);
  return m ? { kind: m[1] as 'name' | 'email', value: m[2]!.trim() } : undefined;
}

/** The answers for named values. */
export interface RelNames {
  /** `type:id` of the one record a named value of relationship `rel` points to, or why not. */
  resolve(rel: string, named: { kind: 'name' | 'email'; value: string }): { ref: string } | { problem: string };
}

/** The relationship a record key sets (`account`, `account.id`), unless it is an attribute or read-only. */
function relOf(rt: ResourceType, key: string): string | undefined {
  const rel = key.endsWith('.id') ? key.slice(0, -3) : key;
  const spec = findRelationship(rt, rel);
  return spec && !spec.readOnly && !findAttribute(rt, key) ? rel : undefined;
}

/**
 * The items of a relationship value: an array's items; a to-many text cell split on `;` when it
 * holds names (a name may hold a comma, so `,` splits only lists of ids, as before); else the value.
 */
function itemsOf(rt: ResourceType, rel: string, value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string' && findRelationship(rt, rel)?.kind === 'many' && /(^|;)\s*(name|email):/.test(value)) {
    return value.split(';').filter((s) => s.trim() !== '');
  }
  return [value];
}

/** Every named value of a record, with the relationship it sets. */
export function namedValues(rt: ResourceType, record: Record<string, unknown>): { rel: string; kind: 'name' | 'email'; value: string }[] {
  const out: { rel: string; kind: 'name' | 'email'; value: string }[] = [];
  for (const [key, value] of Object.entries(record)) {
    const rel = relOf(rt, key);
    if (!rel) continue;
    for (const item of itemsOf(rt, rel, value)) {
      const n = parseNamed(item);
      if (n) out.push({ rel, ...n });
    }
  }
  return out;
}

/** Whether a record holds a named relationship value (most rows hold none and are not copied). */
export function hasNamedValue(rt: ResourceType, record: Record<string, unknown>): boolean {
  return namedValues(rt, record).length > 0;
}

/** Swaps the named values of `record` (in place) for `type:id`; the problems of the names that do not resolve. */
export function substituteNames(rt: ResourceType, record: Record<string, unknown>, names: RelNames): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [key, value] of Object.entries(record)) {
    const rel = relOf(rt, key);
    if (!rel) continue;
    const items = itemsOf(rt, rel, value);
    if (!items.some((i) => parseNamed(i))) continue;
    const out = items.map((item) => {
      const n = parseNamed(item);
      if (!n) return item;
      const r = names.resolve(rel, n);
      if ('problem' in r) {
        problems.push({ field: rel, reason: r.problem });
        return item;
      }
      return r.ref;
    });
    record[key] = Array.isArray(value) || out.length > 1 || findRelationship(rt, rel)?.kind === 'many' ? out : out[0];
  }
  return problems;
}
