/**
 * How the mirror names and types what it stores (README.md, "Questions about your org"): one rule
 * for every name, so a person can type it.
 *
 * - A table is the collection path in snake_case: `sequenceStates` → `sequence_states`.
 * - A column is the attribute in snake_case: `firstName` → `first_name`; custom fields keep their
 *   field names (`custom1`), and the view `<table>_labelled` adds them under the org's labels.
 * - A to-one relationship is `<relationship>_id` (`account` → `account_id`), indexed.
 * - A to-many relationship the API embeds is a link table `<table>_<relationship>` with
 *   `<type>_id` and `<target>_id` (`prospects_email_addresses`: `prospect_id`, `email_address_id`).
 * - Types as SQLite stores them: integers, real numbers, 0/1 booleans, ISO date-times as text,
 *   lists and objects as JSON text.
 */
import type { ResourceObject } from '../api/jsonapi.js';
import { allAttributes, RESOURCES, type AttrType, type AttributeSpec, type ResourceType } from '../registry/index.js';
import { ValueKind } from './attribute-values.js';

/** `firstName` → `first_name`, `socialNet2` → `social_net2`, `sequenceStates` → `sequence_states`. */
export function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/^_/, '');
}

/** One column of a type's table and where its value comes from. */
interface ColumnSpec {
  /** Column name (snake_case). */
  name: string;
  /** An attribute, or a to-one relationship's id. */
  from: { attribute: string; type: AttrType } | { relationship: string; target: string | undefined };
}

/** A to-many relationship's link table. */
interface LinkSpec {
  relationship: string;
  table: string;
  /** The owning record's id column, then the member's. */
  ownerColumn: string;
  memberColumn: string;
  /** The members' type, where the registry knows it. */
  target: string | undefined;
}

/** A type's table: its name, its columns after `id`, its link tables. */
export interface TableSpec {
  type: string;
  path: string;
  table: string;
  columns: ColumnSpec[];
  links: LinkSpec[];
  /** Custom-field labels for the `<table>_labelled` view, by column. */
  labels: Record<string, string>;
  /** Columns of custom fields that hold numbers (as text, as the API sends them): numbers in that view. */
  numeric: string[];
  /** The org's schema could not be read: its fields and labels may be missing here, not gone. */
  orgUnread: boolean;
}

/** What the org adds to a type: attributes the registry does not know, custom-field labels. */
interface OrgAdditions {
  extraAttributes?: readonly AttributeSpec[];
  labels?: Record<string, string>;
  /** Custom fields whose values are numbers (numerical, percentage, currency). */
  numeric?: readonly string[];
  /** The org's schema could not be read this time. */
  unread?: boolean;
}

/** The table of one resource type: attributes the API returns, then to-one relationships with data. */
export function tableSpec(rt: ResourceType, org: OrgAdditions = {}): TableSpec {
  const table = snake(rt.path);
  const columns: ColumnSpec[] = [];
  const taken = new Set(['id']);
  const add = (c: ColumnSpec) => {
    // Two fields that snake to one name would hide each other: the first wins, the rule stays one.
    if (taken.has(c.name)) return;
    taken.add(c.name);
    columns.push(c);
  };
  for (const a of [...allAttributes(rt), ...(org.extraAttributes ?? [])]) {
    if (a.writeOnly || a.onlyOnRequest || a.name === 'id') continue;
    add({ name: snake(a.name), from: { attribute: a.name, type: a.type } });
  }
  for (const r of rt.relationships) {
    if (r.kind !== 'one' || !r.data) continue;
    add({ name: `${snake(r.name)}_id`, from: { relationship: r.name, target: r.target } });
  }
  const owner = `${snake(rt.type)}_id`;
  const links: LinkSpec[] = rt.relationships
    .filter((r) => r.kind === 'many' && r.data)
    .map((r) => {
      const member = `${snake(r.target ?? r.name)}_id`;
      return {
        relationship: r.name,
        table: `${table}_${snake(r.name)}`,
        ownerColumn: owner,
        memberColumn: member === owner ? `member_${member}` : member,
        target: r.target,
      };
    });
  const labels: Record<string, string> = {};
  for (const [field, label] of Object.entries(org.labels ?? {})) if (taken.has(snake(field)) && label.trim()) labels[snake(field)] = label;
  const numeric = (org.numeric ?? []).map(snake).filter((c) => taken.has(c));
  return { type: rt.type, path: rt.path, table, columns, links, labels, numeric, orgUnread: org.unread === true };
}

/** The view that names a table's custom fields by their labels. */
export function labelledViewOf(table: string): string {
  return `${table}_labelled`;
}

/**
 * Whether a relation of this name is one a mirror makes: a type's table, its link tables and its
 * labelled view, or svc's own `_svc_` tables. `svc sync --rebuild` drops these and nothing else.
 */
export function isMirrorRelation(name: string): boolean {
  if (name.startsWith('_svc_')) return true;
  for (const rt of RESOURCES) {
    const table = snake(rt.path);
    if (name === table || name === labelledViewOf(table)) return true;
    if (rt.relationships.some((r) => r.kind === 'many' && r.data && name === `${table}_${snake(r.name)}`)) return true;
  }
  return false;
}

/** An identifier quoted for SQL (`"to"` is a keyword; every name is quoted the same way). */
export function quoteId(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** An id as SQLite stores it: a number, or a BigInt past 2^53 (ids are digit strings). */
export function sqlId(id: unknown): number | bigint | null {
  if (id === undefined || id === null) return null;
  const s = String(id);
  if (!/^\d+$/.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : BigInt(s);
}

/** A value read from the page's bytes (attribute-values.ts) as the column stores it: as {@link columnValue} would. */
export function storedValue(c: ColumnSpec, kind: ValueKind, v: unknown): number | bigint | string | null {
  if (kind === ValueKind.Missing || kind === ValueKind.Null || 'relationship' in c.from) return null;
  const type = c.from.type;
  const composite = type === 'string[]' || type === 'object' || type === 'array';
  switch (kind) {
    case ValueKind.True:
    case ValueKind.False:
      return type === 'boolean' ? (kind === ValueKind.True ? 1 : 0) : kind === ValueKind.True ? 'true' : 'false';
    case ValueKind.Number:
      return (type === 'integer' || type === 'number') && typeof v === 'number' ? v : String(v);
    case ValueKind.String:
      return composite ? JSON.stringify(v) : (v as string);
    default:
      // JSON text, kept as the server wrote it.
      return v as string;
  }
}

/**
 * A value of a record as the column stores it, from the record's `attributes` and
 * `relationships` read once per record by the caller (a parsed page decodes them when read).
 */
export function columnValue(
  c: ColumnSpec,
  attributes: Record<string, unknown> | undefined,
  relationships: Record<string, unknown> | undefined,
): number | bigint | string | null {
  if ('relationship' in c.from) {
    const rel = relationships?.[c.from.relationship] as { data?: { id?: unknown } | null } | undefined;
    return sqlId(rel?.data?.id);
  }
  const v = attributes?.[c.from.attribute];
  if (v === undefined || v === null) return null;
  switch (c.from.type) {
    case 'boolean':
      return typeof v === 'boolean' ? (v ? 1 : 0) : String(v);
    case 'integer':
    case 'number':
      return typeof v === 'number' ? v : String(v);
    case 'string[]':
    case 'object':
    case 'array':
      return JSON.stringify(v);
    default:
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
}

/** The member ids of a to-many relationship a record embeds; undefined when it sent none. */
export function linkIds(r: ResourceObject, relationship: string): (number | bigint)[] | undefined {
  const rel = r.relationships?.[relationship] as { data?: unknown } | undefined;
  if (!rel || !Array.isArray(rel.data)) return undefined;
  const ids: (number | bigint)[] = [];
  for (const m of rel.data as { id?: unknown }[]) {
    const id = sqlId(m?.id);
    if (id !== null) ids.push(id);
  }
  return ids;
}
