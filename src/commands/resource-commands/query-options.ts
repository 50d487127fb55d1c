/**
 * `--filter`, `--sort`, `--include`, `--fields` checked against the registry and turned into a
 * ListQuery. Known fields without the F or S mark are usage errors before anything is sent, and
 * so is the `rel` of a `rel.attr` that is no relationship (field-names.ts says when that is known);
 * other unknown names pass through; deprecated forms are sent with a warning.
 */
import { parseFilter, refuseComparison, type Filter } from '../../api/filter.js';
import type { ListQuery } from '../../api/query.js';
import { asciiForms } from '../../ascii-forms.js';
import { UsageError } from '../../errors.js';
import {
  findAttribute,
  findRelationship,
  isKnownField,
  resourceByType,
  findResource,
  type AttributeSpec,
  type ResourceType,
} from '../../registry/index.js';
import { matchFieldName } from '../../registry/name-match.js';
import type { Context } from '../../runtime/context.js';
import { nearMiss } from '../../suggest.js';
import { resolveZone, type Zone } from '../../time-zone.js';
import type { AttributeNames } from './attr-flags.js';
import { sortableNames, unknownRelationship } from './field-names.js';
import { checkFilterValues, refuseRepeatedFields, type FilterDays } from './filter-checks.js';

/**
 * Days in a command's filters: counted from the command's clock, in the machine's zone (`TZ`, else
 * the system's: src/time-zone.ts), which is looked up once, and only for a filter that names a day.
 */
export function machineDays(ctx: Pick<Context, 'clock' | 'env' | 'warn'>): FilterDays {
  let zone: Zone | undefined;
  return { now: ctx.clock.now(), zone: () => (zone ??= resolveZone(undefined, ctx.env, (m) => ctx.warn(m), 'TZ=')) };
}

/** Raw list/get options as commander gives them. */
export interface QueryFlags {
  filter?: string[];
  sort?: string;
  include?: string;
  fields?: string[];
  newFilterSyntax?: boolean;
}

/** True when the registry knows `name` as written for `rt` (so the org schema is not needed). */
const knownName = isKnownField;

/** The name a filter expression starts with (before `=`, or before `.` of `rel.attr`). */
function filterHead(expr: string): string {
  const name = expr.slice(0, Math.max(expr.indexOf('='), 0)).trim();
  return /^[A-Za-z_]\w*\./.test(name) ? name.slice(0, name.indexOf('.')) : name;
}

/**
 * The name a user gave, or the field it means: spelled another way (`firstname`, `Lead score`)
 * or a custom-field label (the org schema), by the one resolver of names (registry/name-match.ts).
 */
export function resolveName(rt: ResourceType, name: string, names: AttributeNames | undefined): string {
  if (knownName(rt, name)) return name;
  const m = matchFieldName(rt, name);
  if (m && 'match' in m) return m.match.field;
  return names?.resolve(name)?.name ?? name;
}

/**
 * True when a list/get flag names a field the registry does not know as written, which may be
 * a custom-field label: only then is the org-schema cache read, so that list and get cost
 * nothing more when labels are not used.
 * @param loosely count names the registry knows spelled another way as known (then only labels
 *   and unknown names remain: what only the org schema can answer)
 */
export function namesUnknownFields(rt: ResourceType, flags: QueryFlags & { columns?: string }, loosely = false): boolean {
  return unknownNames(rt, flags, loosely).length > 0;
}

/** The names of {@link namesUnknownFields}, as given. */
export function unknownNames(rt: ResourceType, flags: QueryFlags & { columns?: string }, loosely = true): string[] {
  // `loosely`: a name the registry knows spelled another way (`firstname`) counts as known.
  const out: string[] = [];
  const check = (n: string, t: ResourceType = rt) => {
    if (n !== '' && !knownName(t, n) && !(loosely && matchFieldName(t, n))) out.push(n);
  };
  for (const e of flags.filter ?? []) check(filterHead(e));
  for (const k of flags.sort?.split(',') ?? []) if (!k.includes('.')) check(k.trim().replace(/^-/, ''));
  for (const f of flags.fields ?? []) {
    const eq = f.indexOf('=');
    const t = eq < 0 ? rt : (resourceByType(f.slice(0, eq).trim()) ?? findResource(f.slice(0, eq).trim()));
    if (t) for (const n of f.slice(eq + 1).split(',')) check(n.trim(), t);
  }
  for (const c of flags.columns?.split(',') ?? []) {
    const [head, tail] = c.trim().split('.');
    const target = tail === undefined ? undefined : findRelationship(rt, head!)?.target;
    const t = target ? resourceByType(target) : undefined;
    if (t) check(tail!, t);
    else check(head!);
  }
  return [...new Set(out)];
}

/** `--columns a,b` as a list, custom-field labels turned into their field names. */
export function parseColumns(rt: ResourceType, columns: string | undefined, names?: AttributeNames): string[] | undefined {
  return columnsAsGiven(columns)?.map((c) => (c.includes('.') ? c : resolveName(rt, c, names)));
}

/**
 * `--columns` as typed, for a CSV header: a label (`Lead Score`) heads its column, not the field
 * it names (`custom2`, which the manager's spreadsheet showed, a trial). svc reads either back.
 */
export function columnsAsGiven(columns: string | undefined): string[] | undefined {
  return columns
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Parses and checks filters; a custom-field label names its field (`names`, the org schema). */
function checkFilters(rt: ResourceType, exprs: string[], warn: (m: string) => void, days: FilterDays, names?: AttributeNames): Filter[] {
  const parsed = exprs.map((given) => ({ given, filter: checkFilter(rt, given, warn, names) }));
  refuseRepeatedFields(parsed);
  return parsed.map(({ given, filter }) => {
    if (filter.trimmed) {
      warn(
        `filter "${given}": spaces around a value are not part of it; filtering on ${filter.path.join('.')}=${filter.values.join(',')} (write "\\ " to keep a space)`,
      );
    }
    return checkFilterValues(filterSpec(rt, filter.path, names), filter, given, days);
  });
}

/** The attribute a filter path names, when the registry or the org schema knows it. */
function filterSpec(rt: ResourceType, [head, tail]: string[], names?: AttributeNames): AttributeSpec | undefined {
  if (tail === undefined) {
    // The org's view first where it knows more: a picklist custom field's options, a custom
    // field's date or date-time type (whose relative days are resolved as the registry's are).
    const org = names?.resolve(head!)?.spec;
    const knowsMore = org?.enum || org?.type === 'date' || org?.type === 'date-time';
    return knowsMore ? org : (findAttribute(rt, head!) ?? org);
  }
  const target = findRelationship(rt, head!)?.target;
  const trt = target ? resourceByType(target) : undefined;
  return tail === 'id' || !trt ? undefined : findAttribute(trt, tail);
}

/**
 * True when a filter's field holds numbers: a number or integer attribute, or a custom field the
 * org schema types as numerical, a percentage or a currency (its values are text to the API).
 */
function readsNumbers(rt: ResourceType, path: string[], names?: AttributeNames): boolean {
  const spec = filterSpec(rt, path, names);
  if (spec?.type === 'number' || spec?.type === 'integer') return true;
  return path.length === 1 && names?.resolve(path[0]!)?.holdsNumbers === true;
}

/** Parses one filter and checks its names against the registry. */
function checkFilter(rt: ResourceType, given: string, warn: (m: string) => void, names?: AttributeNames): Filter {
  // Before the name is matched loosely, which drops the `>` of `score>=5`.
  refuseComparison(given);
  let expr = given;
  const given0 = filterHead(given);
  if (names && given0 && !knownName(rt, given0) && !matchFieldName(rt, given0)) {
    const resolved = names.resolve(given0);
    if (resolved) expr = `${resolved.name}${given.slice(given.indexOf('=')).replace(/^\s*/, '')}`;
  }
  // A name spelled another way (`FirstName=Ada`); a dotted `rel.attr` name keeps its form.
  if (given0 && !knownName(rt, given0) && expr === given && given.slice(0, given.indexOf('=')).trim() === given0) {
    const loose = resolveName(rt, given0, undefined);
    if (loose !== given0) expr = `${loose}${given.slice(given.indexOf('=')).replace(/^\s*/, '')}`;
  }
  let f: Filter;
  try {
    f = parseFilter(expr);
    // A number typed full-width (`８５`, `１．．５`: a Japanese IME's) is read as `--attr` reads it,
    // its ASCII forms (asciiForms), and sent so: `８５` was sent as typed and matched nothing, and
    // `１..５` was refused by the service (exit 1). Parsed again, so that `．．` and `，` are a
    // range and a list; the name is ASCII already. Dates and text keep what was typed.
    if (readsNumbers(rt, f.path, names)) f = parseFilter(asciiForms(expr));
  } catch (err) {
    // A name with spaces is most likely a custom-field label the cache does not hold.
    if (err instanceof UsageError && /\s/.test(given0) && rt.customFields && !names)
      err.hint('custom-field labels are names after `svc schema pull`');
    throw err;
  }
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
  checkRelationshipPath(rt, head!, tail, warn);
  return f;
}

/** The `rel` of a `rel.attr` filter is a relationship of the type; `rel.attr` (not `rel.id`) warns. */
function checkRelationshipPath(rt: ResourceType, head: string, tail: string, warn: (m: string) => void): void {
  if (!findRelationship(rt, head) && findAttribute(rt, head))
    throw new UsageError(`"${head}" is an attribute of ${rt.type}, not a relationship: filter ${head}=value`);
  const unknown = unknownRelationship('--filter', rt, head);
  if (unknown) throw unknown;
  if (tail !== 'id') {
    warn(
      `filtering by a relationship attribute (${head}.${tail}) is deprecated by the service; filter by ${head}.id, or query the related type and include ${rt.path}`,
    );
  }
}

function filterable(rt: ResourceType): string[] {
  return rt.attributes.filter((a) => a.filterable).map((a) => a.name);
}

/** Parses `--sort a,-b`, checking S marks. */
function checkSort(rt: ResourceType, sort: string, warn: (m: string) => void, names?: AttributeNames): string[] {
  const keys = sort
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((k) => (k.includes('.') ? k : k.replace(/^(-?)(.*)$/, (_, dir: string, n: string) => dir + resolveName(rt, n.trim(), names))));
  if (keys.length === 0) throw new UsageError('--sort: no keys given');
  for (const key of keys) {
    const name = key.replace(/^-/, '');
    if (name.includes('.')) {
      const unknown = unknownRelationship('--sort', rt, name.slice(0, name.indexOf('.')));
      if (unknown) throw unknown;
      warn(`sorting by a relationship attribute (${name}) is deprecated by the service; include the relationship and sort on the client`);
      continue;
    }
    if (name === 'id') continue;
    const attr = findAttribute(rt, name);
    // Custom fields: which ones sort is the org's business (as for filters); the service decides.
    if (attr && !attr.sortable && !/^custom\d+$/.test(name)) {
      throw new UsageError(`cannot sort ${rt.command} by "${name}": the API does not allow sorting on it`).hint(sortableHint(rt, name));
    }
    // A relationship is no sort key: the API refused `--sort updater` (exit 1) after svc had
    // suggested it for `--sort updated` (a new user's trial).
    if (!attr && findRelationship(rt, name)) {
      throw new UsageError(`cannot sort ${rt.command} by "${name}": it is a relationship, not a field`).hint(sortableHint(rt, name));
    }
  }
  return keys;
}

/** The sortable fields, the nearest to `name` first when there is one. */
function sortableHint(rt: ResourceType, name: string): string {
  const sortable = sortableNames(rt);
  const near = nearMiss(name, sortable);
  return `${near ? `did you mean ${near}? ` : ''}sortable: ${sortable.join(', ')}`;
}

/** `--fields a,b` (primary type) or `--fields type=a,b`, repeatable. */
function parseFields(rt: ResourceType, flags: string[], names?: AttributeNames): Record<string, string[]> {
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
    // Labels resolve for the primary type only (the org view loaded is that type's).
    const fields = list
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((n) => (type === rt.type ? resolveName(rt, n, names) : n))
      // Every record carries its id and type: the API refuses them as fields (422).
      .filter((n) => n !== 'id' && n !== 'type');
    out[type] = [...(out[type] ?? []), ...fields];
  }
  return out;
}

/**
 * All query flags of list/get as a ListQuery; `days` says when and where a filter's day is (see
 * {@link machineDays}), `names` (the org schema) resolves custom-field labels.
 */
export function buildListQuery(
  rt: ResourceType,
  flags: QueryFlags,
  warn: (m: string) => void,
  days: FilterDays,
  names?: AttributeNames,
): ListQuery {
  const q: ListQuery = {};
  if (flags.filter?.length) q.filters = checkFilters(rt, flags.filter, warn, days, names);
  if (flags.newFilterSyntax) q.newFilterSyntax = true;
  if (flags.sort) q.sort = checkSort(rt, flags.sort, warn, names);
  if (flags.include)
    q.include = flags.include
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (flags.fields?.length) q.fields = parseFields(rt, flags.fields, names);
  if (q.fields && q.include) keepIncludedRelationships(rt, q.include, q.fields);
  return q;
}

/**
 * A sparse fieldset that leaves out a relationship `--include` follows keeps it: without it the
 * included records come but nothing links them to a record (`--include account --fields
 * firstName` printed no account, a trial), as `--columns account.name` already adds `account`.
 */
function keepIncludedRelationships(rt: ResourceType, include: readonly string[], fields: Record<string, string[]>): void {
  for (const path of include) {
    let type: ResourceType | undefined = rt;
    for (const step of path.split('.')) {
      if (!type) break;
      const rel: ReturnType<typeof findRelationship> = findRelationship(type, step);
      // A step that is no relationship is left to the include's own check (a typo there was
      // blamed on --fields, a review).
      if (!rel) break;
      const list = fields[type.type];
      if (list && !list.includes(step)) list.push(step);
      type = rel.target ? resourceByType(rel.target) : undefined;
    }
  }
}
