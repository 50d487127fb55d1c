/**
 * Records named by what people call them instead of by id: a sequence by its name, a mailbox by
 * its address, the target of `--rel account=name:Acme`. A name that matches no record, or more
 * than one, is a usage error listing candidates with their ids, so nothing is written to the
 * wrong record. Names match whole, ignoring case and surrounding spaces.
 */
import { paginate, type PageClient } from '../../api/paginate.js';
import type { Filter } from '../../api/filter.js';
import { UsageError } from '../../errors.js';
import { findAttribute, type ResourceType } from '../../registry/index.js';

/** A record as a lookup sees it: id, the attribute that names it, and the attributes asked for. */
export interface NamedRecord {
  id: number | string;
  name: string;
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
export async function readNamed(client: PageClient, src: NameSource, value?: string, signal?: AbortSignal): Promise<NamedRecord[]> {
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
    all: true,
    pageSize: 1000,
    signal,
  });
  for await (const page of pages) {
    for (const r of page.records) {
      const attrs = r.attributes ?? {};
      const n = attrs[src.attr];
      out.push({ id: r.id, name: typeof n === 'string' ? n : Array.isArray(n) ? n.join(', ') : String(n ?? ''), attributes: attrs });
    }
  }
  return out;
}

/** `id 3 "Outbound Enterprise"` lines for an error. */
export function candidateList(records: readonly NamedRecord[]): string {
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
  const hits = records.filter((r) => norm(r.name) === wanted);
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1) {
    throw new UsageError(`${what} ${JSON.stringify(value)}: ${hits.length} ${src.rt.command} have that ${src.attr}: ${candidateList(hits)}`).hint(
      `give the id instead`,
    );
  }
  // Close ones first: names containing the value or contained in it, then the rest.
  const near = records.filter((r) => norm(r.name).includes(wanted) || (norm(r.name) !== '' && wanted.includes(norm(r.name))));
  const err = new UsageError(`${what} ${JSON.stringify(value)}: no ${src.rt.type} has that ${src.attr}`);
  if (near.length) err.hint(`did you mean: ${candidateList(near)}`);
  else if (records.length) err.hint(`${src.rt.command}: ${candidateList(records)}`);
  throw err;
}

/**
 * Resolves a name to its record: reads with a filter when the attribute can be filtered (the
 * service may match exactly, so a miss reads the whole list once for candidates), else the whole
 * list.
 */
export async function resolveName(client: PageClient, src: NameSource, value: string, what: string, signal?: AbortSignal): Promise<NamedRecord> {
  const filtered = findAttribute(src.rt, src.attr)?.filterable === true;
  let records = await readNamed(client, src, value, signal);
  if (filtered && !records.some((r) => norm(r.name) === norm(value))) records = await readNamed(client, src, undefined, signal);
  return pickNamed(records, value, what, src);
}
