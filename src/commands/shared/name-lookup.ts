/**
 * Records named by what people call them instead of by id: a sequence by its name, a mailbox by
 * its address, the target of `--rel account=name:Acme`. A name that matches no record, or more
 * than one, is a usage error listing candidates with their ids, so nothing is written to the
 * wrong record. Names match whole, ignoring case and surrounding spaces.
 */
import { paginate, type PageClient } from '../../api/paginate.js';
import type { Filter } from '../../api/filter.js';
import { UsageError } from '../../errors.js';
import { findAttribute, resourceByType, type ResourceType } from '../../registry/index.js';

/** A record as a lookup sees it: id, the attribute that names it, and the attributes asked for. */
export interface NamedRecord {
  id: number | string;
  /** The naming attribute as shown (a list attribute such as `emails` joined with `, `). */
  name: string;
  /** Each value that names the record (several for a list attribute). */
  names?: string[];
  attributes: Record<string, unknown>;
}

/** How a lookup reads a type. */
export interface NameSource {
  rt: ResourceType;
  /** The attribute that names a record (`name`, `email`). */
  attr: string;
  /** More attributes to read along (a mailbox's sending limits). */
  more?: string[];
}

/** Candidates listed in an error. */
const SHOWN = 10;

const norm = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Reads the records of a type with their names: every record when `value` is undefined or the
 * attribute cannot be filtered on (pages of 1,000, sparse fields), else those the service
 * matches with `filter[attr]=value`.
 * Requests: 1 with a filter; ⌈records / 1,000⌉ without.
 */
export async function readNamed(
  client: PageClient,
  src: NameSource,
  value?: string,
  signal?: AbortSignal,
  limit?: number,
): Promise<NamedRecord[]> {
  const spec = findAttribute(src.rt, src.attr);
  const filters: Filter[] = [];
  let newFilterSyntax = false;
  if (value !== undefined && spec?.filterable) {
    // A name with "," or ".." would read as a list or a range in the original syntax.
    newFilterSyntax = /,|\.\./.test(value);
    filters.push({ path: [src.attr], kind: 'eq', values: [value.trim()], escaped: newFilterSyntax });
  }
  const out: NamedRecord[] = [];
  const pages = paginate(client, src.rt.path, {
    query: { filters, newFilterSyntax, fields: { [src.rt.type]: [src.attr, ...(src.more ?? [])] } },
    all: limit === undefined,
    limit,
    pageSize: 1000,
    signal,
  });
  for await (const page of pages) {
    for (const r of page.records) {
      const attrs = r.attributes ?? {};
      const n = attrs[src.attr];
      const names = Array.isArray(n) ? n.map(String) : [typeof n === 'string' ? n : String(n ?? '')];
      out.push({ id: r.id, name: names.join(', '), names, attributes: attrs });
    }
  }
  return out;
}

/** `id 3 "Outbound Enterprise"` lines for an error. */
function candidateList(records: readonly NamedRecord[]): string {
  const shown = records.slice(0, SHOWN).map((r) => `id ${r.id} ${JSON.stringify(r.name)}`);
  if (records.length > SHOWN) shown.push(`… and ${records.length - SHOWN} more`);
  return shown.join('; ');
}

/**
 * The one record of `records` named `value`.
 * @param what how the error names the thing looked for (`--sequence`, `--rel account`)
 * @throws UsageError when none or several are named so, listing candidates with ids
 */
export function pickNamed(records: readonly NamedRecord[], value: string, what: string, src: NameSource): NamedRecord {
  const wanted = norm(value);
  const named = (r: NamedRecord) => (r.names ?? [r.name]).some((x) => norm(x) === wanted);
  const hits = records.filter(named);
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1) {
    throw new UsageError(
      `${what} ${JSON.stringify(value)}: ${hits.length} ${src.rt.command} have that ${src.attr}: ${candidateList(hits)}`,
    ).hint(`give the id instead`);
  }
  // Close ones first: names containing the value or contained in it, then the rest.
  const near = records.filter((r) => norm(r.name).includes(wanted) || (norm(r.name) !== '' && wanted.includes(norm(r.name))));
  const err = new UsageError(`${what} ${JSON.stringify(value)}: no ${src.rt.type} has that ${src.attr}`);
  if (near.length) err.hint(`did you mean: ${candidateList(near)}`);
  else if (records.length) err.hint(`${src.rt.command}: ${candidateList(records)}`);
  throw err;
}

/**
 * The record a `--rel` value written `name:<value>` or `email:<value>` points to, as `type:id`;
 * other values are returned unchanged. The related type must have a filterable `name` (or
 * `email`, or a list of `emails`) attribute.
 * Requests: one or two (a miss reads the related list once for candidates).
 * @throws UsageError when the type has no such attribute, or the value names no single record
 */
export async function resolveRelValue(
  client: PageClient,
  rt: ResourceType,
  rel: string,
  value: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  if (typeof value !== 'string') return value;
  const m = /^(name|email):([\s\S]+)$/.exec(value.trim());
  if (!m) return value;
  const src = namedTarget(rt, rel, m[1] as 'name' | 'email');
  if (typeof src === 'string') throw new UsageError(`--rel ${rel}=${value}: ${src}`);
  const hit = await resolveName(client, src, m[2]!, `--rel ${rel}=${m[1]}:`, signal);
  return `${src.rt.type}:${hit.id}`;
}

/**
 * Where a relationship's records are found by name (`name`) or e-mail (`email`, or a list of
 * `emails`): the related type and its filterable attribute, or why they cannot be.
 */
export function namedTarget(rt: ResourceType, rel: string, kind: 'name' | 'email'): NameSource | string {
  const spec = rt.relationships.find((r) => r.name === rel);
  const target = spec?.target ? resourceByType(spec.target) : undefined;
  if (!target) return `${spec ? `the spec does not say what ${rel} points to` : `${rt.type} has no relationship "${rel}"`}; give an id`;
  const attr = (kind === 'name' ? ['name'] : ['email', 'emails']).find((a) => findAttribute(target, a)?.filterable);
  if (!attr) return `${target.command} cannot be found by ${kind} (no filterable ${kind} attribute); give an id`;
  return { rt: target, attr };
}

/** Records read for candidates after a filtered lookup found none (one page). */
export const CANDIDATE_PAGE = 1000;

/**
 * Resolves a name to its record: reads with a filter when the attribute can be filtered, else
 * the whole list. The service may match a filter exactly, so a filtered miss reads one page of
 * the list (up to 1,000 records) to match case-insensitively and to offer candidates.
 */
export async function resolveName(
  client: PageClient,
  src: NameSource,
  value: string,
  what: string,
  signal?: AbortSignal,
): Promise<NamedRecord> {
  const filtered = findAttribute(src.rt, src.attr)?.filterable === true;
  let records = await readNamed(client, src, value, signal);
  if (filtered && !records.some((r) => (r.names ?? [r.name]).some((x) => norm(x) === norm(value))))
    records = await readNamed(client, src, undefined, signal, CANDIDATE_PAGE);
  return pickNamed(records, value, what, src);
}
