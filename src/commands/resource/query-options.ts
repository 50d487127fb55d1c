/**
 * `--filter`, `--sort`, `--include`, `--fields` checked against the registry and turned into a
 * ListQuery. Known fields without the F or S mark are usage errors before anything is sent;
 * unknown names pass through; deprecated forms are sent with a warning.
 */
import { parseFilter, type Filter } from '../../api/filter.js';
import type { ListQuery } from '../../api/query.js';
import { UsageError } from '../../errors.js';
import { findAttribute, findRelationship, resourceByType, findResource, type ResourceType } from '../../registry/index.js';

/** Raw list/get options as commander gives them. */
export interface QueryFlags {
  filter?: string[];
  sort?: string;
  include?: string;
  fields?: string[];
  newFilterSyntax?: boolean;
}

/** Parses and checks filters. */
export function checkFilters(rt: ResourceType, exprs: string[], warn: (m: string) => void): Filter[] {
  return exprs.map((expr) => {
    const f = parseFilter(expr);
    const [head, tail] = f.path;
    if (tail === undefined) {
      if (head === 'id' || rt.extraFilters?.includes(head!)) return f;
      const attr = findAttribute(rt, head!);
      if (attr && !attr.filterable && !/^custom\d+$/.test(head!)) {
        throw new UsageError(`cannot filter ${rt.command} by "${head}": the API does not allow filtering on it`).hint(
          `filterable: ${filterable(rt).join(', ')}`,
        );
      }
      if (!attr && findRelationship(rt, head!)) {
        throw new UsageError(`filter on relationship "${head}" needs a field: use ${head}.id=ID`);
      }
      return f;
    }
    const rel = findRelationship(rt, head!);
    if (!rel && findAttribute(rt, head!)) throw new UsageError(`"${head}" is an attribute of ${rt.type}, not a relationship: filter ${head}=value`);
    if (tail !== 'id') {
      warn(
        `filtering by a relationship attribute (${head}.${tail}) is deprecated by the service; filter by ${head}.id, or query the related type and include ${rt.path}`,
      );
    }
    return f;
  });
}

function filterable(rt: ResourceType): string[] {
  return rt.attributes.filter((a) => a.filterable).map((a) => a.name);
}

/** Parses `--sort a,-b`, checking S marks. */
export function checkSort(rt: ResourceType, sort: string, warn: (m: string) => void): string[] {
  const keys = sort.split(',').map((s) => s.trim()).filter(Boolean);
  if (keys.length === 0) throw new UsageError('--sort: no keys given');
  for (const key of keys) {
    const name = key.replace(/^-/, '');
    if (name.includes('.')) {
      warn(`sorting by a relationship attribute (${name}) is deprecated by the service; include the relationship and sort on the client`);
      continue;
    }
    if (name === 'id') continue;
    const attr = findAttribute(rt, name);
    if (attr && !attr.sortable) {
      throw new UsageError(`cannot sort ${rt.command} by "${name}": the API does not allow sorting on it`).hint(
        `sortable: ${rt.attributes.filter((a) => a.sortable).map((a) => a.name).join(', ')}`,
      );
    }
  }
  return keys;
}

/** `--fields a,b` (primary type) or `--fields type=a,b`, repeatable. */
export function parseFields(rt: ResourceType, flags: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    let type = rt.type;
    let list = flag;
    if (eq >= 0) {
      const name = flag.slice(0, eq).trim();
      const target = resourceByType(name) ?? findResource(name);
      if (!target) throw new UsageError(`--fields ${flag}: unknown type "${name}"`);
      type = target.type;
      list = flag.slice(eq + 1);
    }
    const names = list.split(',').map((s) => s.trim()).filter(Boolean);
    out[type] = [...(out[type] ?? []), ...names];
  }
  return out;
}

/** All query flags of list/get as a ListQuery. */
export function buildListQuery(rt: ResourceType, flags: QueryFlags, warn: (m: string) => void): ListQuery {
  const q: ListQuery = {};
  if (flags.filter?.length) q.filters = checkFilters(rt, flags.filter, warn);
  if (flags.newFilterSyntax) q.newFilterSyntax = true;
  if (flags.sort) q.sort = checkSort(rt, flags.sort, warn);
  if (flags.include) q.include = flags.include.split(',').map((s) => s.trim()).filter(Boolean);
  if (flags.fields?.length) q.fields = parseFields(rt, flags.fields);
  return q;
}
