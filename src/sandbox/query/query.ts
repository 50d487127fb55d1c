/**
 * Parsing of the query parameters of the spec's "Query parameters" table into a structure the
 * engine can run. Syntax errors become 422 `validationError` naming the parameter.
 */
import { paramError } from '../errors.js';

/** Limits of the spec's Limits table. */
const PAGE_DEFAULT = 50;
const PAGE_MAX = 1000;
export const OFFSET_MAX = 10_000;

/** One `filter[...]` clause. */
export interface FilterClause {
  /** `['title']`, `['account', 'id']`, `['account', 'name']`. */
  path: string[];
  /** Exactly one of: a list of accepted values, or a range with optional open ends. */
  values?: string[];
  range?: { lo?: string; hi?: string };
  /** The parameter as sent, for error sources. */
  param: string;
}

/** One sort key. */
export interface SortKey {
  path: string[];
  desc: boolean;
}

/** Everything a collection or single-resource request can ask for. */
export interface ParsedQuery {
  filters: FilterClause[];
  sort: SortKey[];
  limit: number;
  offset: number;
  count: boolean;
  /** Relationship paths (`['sequenceStates', 'sequence']`). */
  include: string[][];
  /** `fields[type]` → names; an empty set returns no fields. */
  fields: Map<string, Set<string>>;
  authorizationMeta: boolean;
  dataConnections: boolean;
  actionParams: Map<string, string>;
  /** The raw pairs, kept to build pagination links. */
  pairs: [string, string][];
}

/** Splits `filter[a][b][]` into `['filter', 'a', 'b', '']`; undefined when malformed. */
function segments(key: string): string[] | undefined {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) return undefined;
  const out = [m[1]!];
  for (const s of m[2]!.matchAll(/\[([^[\]]*)\]/g)) out.push(s[1]!);
  return out;
}

function flag(v: string | undefined): boolean {
  return v !== undefined && v !== 'false' && v !== '0';
}

function intParam(name: string, v: string, min: number, max: number): number {
  if (!/^\d+$/.test(v)) throw paramError(name, `${name} must be an integer.`);
  const n = Number(v);
  if (n < min || n > max) throw paramError(name, `${name} must be between ${min} and ${max} (got ${n}).`);
  return n;
}

/** Parses a raw query string (without `?`). */
export function parseQuery(raw: string): ParsedQuery {
  const pairs = [...new URLSearchParams(raw)];
  const get = (k: string) => pairs.find(([key]) => key === k)?.[1];
  const newSyntax = flag(get('newFilterSyntax'));
  const q: ParsedQuery = {
    filters: [],
    sort: [],
    limit: PAGE_DEFAULT,
    offset: 0,
    count: get('count') === 'true',
    include: [],
    fields: new Map(),
    authorizationMeta: flag(get('provideAuthorizationMeta')),
    dataConnections: flag(get('provideDataConnections')),
    actionParams: new Map(),
    pairs,
  };
  const bracketed = new Map<string, FilterClause>();
  for (const [key, value] of pairs) {
    const seg = segments(key);
    if (!seg) continue;
    const [head, ...rest] = seg;
    if (head === 'filter') {
      if (!rest.length || rest.some((s, i) => s === '' && i !== rest.length - 1))
        throw paramError(key, `Malformed filter parameter ${key}.`);
      if (newSyntax) {
        const last = rest[rest.length - 1]!;
        if (last === '' || last === 'gte' || last === 'lte') {
          const path = rest.slice(0, -1);
          const id = path.join('.');
          let c = bracketed.get(id);
          if (!c) {
            c = { path, param: `filter[${path.join('][')}]` };
            bracketed.set(id, c);
            q.filters.push(c);
          }
          if (last === '') {
            if (c.range) throw paramError(key, `Cannot mix a list and a range in ${c.param}.`);
            (c.values ??= []).push(value);
          } else {
            if (c.values) throw paramError(key, `Cannot mix a list and a range in ${c.param}.`);
            c.range ??= {};
            if (last === 'gte') c.range.lo = value;
            else c.range.hi = value;
          }
          continue;
        }
        // Plain equality: in the bracket syntax a value may contain commas and `..`.
        q.filters.push({ path: rest, values: [value], param: key });
        continue;
      }
      const dots = value.indexOf('..');
      if (dots >= 0) {
        const lo = value.slice(0, dots);
        const hi = value.slice(dots + 2);
        const range: { lo?: string; hi?: string } = {};
        if (lo !== '' && lo !== 'neginf') range.lo = lo;
        if (hi !== '' && hi !== 'inf') range.hi = hi;
        q.filters.push({ path: rest, range, param: key });
      } else {
        q.filters.push({ path: rest, values: value.split(','), param: key });
      }
    } else if (head === 'page' && rest.length === 1) {
      const p = rest[0]!;
      if (p === 'limit' || p === 'size') q.limit = intParam(key, value, 1, PAGE_MAX);
      else if (p === 'offset') q.offset = intParam(key, value, 0, OFFSET_MAX);
      else throw paramError(key, `Unknown page parameter ${key}.`);
    } else if (head === 'sort' && !rest.length) {
      for (const part of value.split(',').filter(Boolean)) {
        const desc = part.startsWith('-');
        q.sort.push({ path: (desc ? part.slice(1) : part).split('.'), desc });
      }
    } else if (head === 'include' && !rest.length) {
      q.include = value
        .split(',')
        .filter(Boolean)
        .map((p) => p.split('.'));
    } else if (head === 'fields' && rest.length === 1) {
      q.fields.set(rest[0]!, new Set(value.split(',').filter(Boolean)));
    } else if (head === 'actionParams' && rest.length === 1) {
      q.actionParams.set(rest[0]!, value);
    } else if (head === 'actionParams') {
      throw paramError(key, `Malformed action parameter ${key}.`);
    }
  }
  return q;
}
