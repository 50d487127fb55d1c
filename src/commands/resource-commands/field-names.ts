/**
 * `--fields` and `--columns` names checked against the type before anything is sent: a field the
 * type does not have would come back as an empty column or a missing key, silently. Names the
 * registry does not know pass when the org schema (`svc schema pull`) knows them. The spec shows
 * some types only in part: without a pulled schema, a name on such a type is refused only when it
 * is a near miss of a known one (other names may be real and pass through). A `rel.attr` column
 * gets the include (and sparse field) it reads.
 */
import type { ListQuery } from '../../api/query.js';
import { UsageError } from '../../errors.js';
import { nearMiss } from '../../suggest.js';
import { findAttribute, findRelationship, resourceByType, type ResourceType } from '../../registry/index.js';
import type { AttributeNames } from './attr-flags.js';

/** What the org schema cached for the profile says about names. */
export interface OrgNames {
  /** The org's names of a type (undefined: the org adds nothing to it, or nothing is cached). */
  view(rt: ResourceType): AttributeNames | undefined;
  /** A schema was pulled: with the registry it lists every field the service has. */
  pulled: boolean;
  /** How hints write svc: with the command's `--sandbox` or `--profile` (runtime/svc-again.ts). */
  svc: string;
}

/** Names a record of the type can have (custom fields by pattern, not listed). */
export function fieldNamesOf(rt: ResourceType): string[] {
  return [...rt.attributes.map((a) => a.name), ...rt.relationships.map((r) => r.name)];
}

/** What `--sort` takes: `id` and the attributes the spec marks sortable (S). */
export function sortableNames(rt: ResourceType): string[] {
  return ['id', ...rt.attributes.filter((a) => a.sortable).map((a) => a.name)];
}

/**
 * The error for a name the type does not have, or undefined when the name may be real: known
 * to the registry or the org, or (a type the spec shows in part, no schema pulled) no near miss.
 * @param suggested the names a near miss may point to, when not every field will do: `--sort`
 *   takes sortable ones (`--sort updated` suggested the relationship `updater`, which the API
 *   then refused: a new user's trial)
 */
function unknownField(flag: string, rt: ResourceType, name: string, org: OrgNames, suggested?: string[]): UsageError | undefined {
  const names = org.view(rt);
  if (name === 'id' || findAttribute(rt, name) || findRelationship(rt, name) || names?.resolve(name)) return undefined;
  const near = nearMiss(name, suggested ?? fieldNamesOf(rt));
  // A near miss of a field that cannot be suggested (`--sort nme`: name does not sort) still
  // shows that the name is a typo.
  const typo = near ?? (suggested && nearMiss(name, fieldNamesOf(rt)));
  if (rt.partial && !org.pulled && !typo) return undefined;
  const err = new UsageError(`${flag}: ${rt.type} has no field "${name}"`);
  if (near) return err.hint(`did you mean ${near}? (\`${org.svc} schema show ${rt.type}\` lists the fields)`);
  if (typo) return err.hint(`${flag} takes ${suggested!.join(', ')}`);
  return err.hint(
    org.pulled
      ? `\`${org.svc} schema show ${rt.type}\` lists the fields, custom-field labels included`
      : `\`${org.svc} schema show ${rt.type}\` lists the fields; for a field or label only your org has, run \`${org.svc} schema pull\` first`,
  );
}

/**
 * The error for the head of a `rel.attr` path in `--filter` or `--sort` that names no
 * relationship of the type (`acount.id`): the server would refuse it (exit 1), or a server that
 * ignores unknown filters would list everything. Undefined when the name may be real: a
 * relationship or attribute of the type, or no near miss of one on a type the spec shows in
 * part (the org schema names attributes, not relationships, so a pull does not make it whole).
 */
export function unknownRelationship(flag: string, rt: ResourceType, name: string): UsageError | undefined {
  if (findRelationship(rt, name) || findAttribute(rt, name)) return undefined;
  const near = nearMiss(
    name,
    rt.relationships.map((r) => r.name),
  );
  if (rt.partial && !near) return undefined;
  const err = new UsageError(`${flag}: ${rt.type} has no relationship "${name}"`);
  const where = `\`svc ${rt.command} --help\` lists the relationships`;
  return err.hint(near ? `did you mean ${near}? (${where})` : where);
}

/**
 * Refuses `--fields` names a type does not have.
 * @param org the org schema's names (custom-field labels are already resolved)
 * @throws UsageError naming the field, with a near miss when there is one
 */
export function checkFieldNames(fields: Record<string, string[]>, org: OrgNames): void {
  for (const [type, list] of Object.entries(fields)) {
    const rt = resourceByType(type);
    if (!rt) continue;
    for (const name of list) {
      const err = unknownField('--fields', rt, name, org);
      if (err) throw err;
    }
  }
}

/**
 * Refuses `--filter` and `--sort` names the type does not have, by the rule of `--fields`: known
 * to be no field once the registry is whole for the type or the org schema was pulled (a name
 * only the server knows still goes to it otherwise, and its refusal gets name-hints.ts's hint).
 * Nothing is sent: a list on a field that is not there is a usage error (exit 2), not the
 * server's 400.
 */
export function checkQueryNames(rt: ResourceType, query: ListQuery, org: OrgNames): void {
  for (const f of query.filters ?? []) {
    const [head, tail] = f.path;
    if (tail !== undefined || head === undefined || head === 'id' || rt.extraFilters?.includes(head)) continue;
    const err = unknownField('--filter', rt, head, org);
    if (err) throw err;
  }
  for (const key of query.sort ?? []) {
    const name = key.replace(/^-/, '');
    if (name.includes('.') || name === 'id') continue;
    const err = unknownField('--sort', rt, name, org, sortableNames(rt));
    if (err) throw err;
  }
}

/**
 * Checks `--columns` against the type and, when the output shows them (`shown`: table, csv),
 * makes the query return what they read: `account.name` adds `account` to the includes (an id
 * cannot show a name), and a column left out of a sparse `--fields` list is added to it. Other
 * formats print whole records, whose shape `--columns` does not change.
 * @param flag the option named in errors (`--json` checks its names the same way)
 * @throws UsageError for a column the type (or the included type) does not have
 */
export function applyColumns(rt: ResourceType, columns: string[], query: ListQuery, org: OrgNames, shown = true, flag = '--columns'): void {
  const q: ListQuery = shown ? query : structuredClone(query);
  for (const column of columns) {
    const dot = column.indexOf('.');
    const head = dot < 0 ? column : column.slice(0, dot);
    if (head === 'id' || head === 'type' || head === 'meta') continue;
    const err = unknownField(flag, rt, head, org);
    if (err) throw err;
    let rel = findRelationship(rt, head);
    addSparse(q, rt.type, head);
    if (dot < 0 || !rel) continue;
    // `prospect.account.name`: each step but the last a relationship, checked in turn.
    const steps = column.split('.');
    for (let i = 1; i < steps.length && rel; i++) {
      const target: ResourceType | undefined = rel.target ? resourceByType(rel.target) : undefined;
      const step = steps[i]!;
      if (!target || step === 'id' || step === 'type') break;
      const terr = unknownField(`${flag} ${column}`, target, step, org);
      if (terr) throw terr;
      addSparse(q, target.type, step);
      rel = i + 1 < steps.length ? findRelationship(target, step) : undefined;
    }
    includePath(rt, column, q);
  }
}

/**
 * Includes what a `rel.attr` column reads: the relationships of its path as one include path
 * (`prospect.account.name` → `include=prospect.account`), so that the account comes inside the
 * prospect (only `prospect` was included, and the column was empty: a trial).
 */
export function includePath(rt: ResourceType, column: string, query: ListQuery): void {
  const steps = column.split('.');
  let type: ResourceType | undefined = rt;
  let path = '';
  for (const step of steps.slice(0, -1)) {
    const rel: ReturnType<typeof findRelationship> = type ? findRelationship(type, step) : undefined;
    if (!rel) break;
    path = path ? `${path}.${step}` : step;
    type = rel.target ? resourceByType(rel.target) : undefined;
  }
  if (path && !(query.include ?? []).some((i) => i === path || i.startsWith(`${path}.`))) query.include = [...(query.include ?? []), path];
}

/** Adds a field to a sparse fieldset the user gave (none given: every field comes anyway). */
function addSparse(query: ListQuery, type: string, name: string): void {
  const list = query.fields?.[type];
  if (list && !list.includes(name)) list.push(name);
}

/**
 * The sparse fieldset `--json a,b,c` asks for: its names other than `id` and `type`, when every
 * one is an attribute or relationship of the type. Otherwise (a dotted name, a custom-field
 * label, a name the registry does not know) undefined: whole records come and are cut down on
 * output, so that no asked-for field goes missing.
 */
export function jsonSparseFields(rt: ResourceType, fields: readonly string[] | undefined): string[] | undefined {
  if (!fields) return undefined;
  const names = fields.filter((f) => f !== 'id' && f !== 'type');
  if (names.length === 0 || !names.every((n) => findAttribute(rt, n) || findRelationship(rt, n))) return undefined;
  return [...new Set(names)];
}
