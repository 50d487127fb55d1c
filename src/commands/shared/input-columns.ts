/**
 * Every column of a bulk input file resolved before the first write: an attribute, a
 * relationship (`account`, `account.id`), a column of an included record that is left out
 * (`account.name`), a custom-field label or org-only field (the org schema), or unknown. A column
 * that is none of these would make every row fail alike, one request each; it is refused up
 * front (exit 2, nothing sent) with a near miss, unless `--ignore-columns` names it. When a
 * column is not a known name and the profile has no schema cached, the schema is pulled once
 * (two requests) first: a label such as `Lead Score` is then known.
 */
import { readRows, type InputDialect, type InputFormat } from '../../bulk/readers.js';
import { ERROR_COLUMN } from '../../bulk/failed-rows.js';
import { ignoredCsvColumn } from '../../bulk/resource-rows.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { findAttribute, findRelationship, type ResourceType } from '../../registry/index.js';
import { orgTypeView, type OrgTypeView } from '../../org-schema/org-schema.js';
import { nearMiss } from '../../suggest.js';
import { loadOrgSchema } from '../schema/load.js';
import { pullOrgSchema } from '../schema/pull.js';

/** Most distinct keys collected from NDJSON or JSON rows (a file of free-form objects stops there). */
const MAX_KEYS = 1000;

/**
 * The columns of an input file: the CSV header, or the keys of the NDJSON or JSON objects (one
 * streaming pass, no requests).
 */
export async function inputColumns(file: string, format: InputFormat, dialect: InputDialect): Promise<string[]> {
  const keys = new Set<string>();
  for await (const raw of readRows(file, { format, dialect })) {
    if (raw.csv) return raw.header ?? [];
    if (typeof raw.value !== 'object' || raw.value === null || Array.isArray(raw.value)) continue;
    for (const k of Object.keys(raw.value)) keys.add(k);
    if (keys.size >= MAX_KEYS) break;
  }
  return [...keys];
}

/** True when the registry or the org names the column (or it is one the writer leaves out). */
function known(rt: ResourceType, column: string, view: OrgTypeView | undefined): boolean {
  if (column === 'id' || column === 'type') return true;
  if (findAttribute(rt, column) || findRelationship(rt, column)) return true;
  if (column.endsWith('.id') && findRelationship(rt, column.slice(0, -3))) return true;
  if (ignoredCsvColumn(rt, column)) return true;
  return view?.resolve(column) !== undefined;
}

/** Names a near miss is looked for among. */
function candidates(rt: ResourceType, view: OrgTypeView | undefined): string[] {
  const out = [...rt.attributes.map((a) => a.name), ...rt.relationships.map((r) => r.name)];
  for (const f of view?.customFields ?? []) if (f.label) out.push(f.label);
  for (const a of view?.extraAttributes ?? []) out.push(a.name);
  return out;
}

/** What {@link checkInputColumns} found. */
export interface CheckedColumns {
  /** The org's view of the type for the rows (labels, custom-value checks), when it adds to it. */
  view: OrgTypeView | undefined;
  /** Columns the rows leave out: `--ignore-columns`, and the error column of a failed-rows file. */
  skip: ReadonlySet<string>;
}

/**
 * Resolves the columns of a bulk create or update file, pulling the schema when needed.
 * @throws UsageError naming every unknown column, with near misses
 */
export async function checkInputColumns(
  ctx: Context,
  rt: ResourceType,
  file: string,
  format: InputFormat,
  dialect: InputDialect,
  ignore: ReadonlySet<string>,
): Promise<CheckedColumns> {
  const columns = await inputColumns(file, format, dialect);
  let schema = await loadOrgSchema(ctx);
  let view = schema ? orgTypeView(schema, rt) : undefined;
  // A failed-rows file (`--failed`) fed back in carries its error column.
  const skip = (c: string) => ignore.has(c) || (c === ERROR_COLUMN && !findAttribute(rt, c));
  let unknown = columns.filter((c) => !skip(c) && !known(rt, c, view));
  if (unknown.length && !schema) {
    ctx.info(
      `column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `"${c}"`).join(', ')} not known: pulling the org schema (custom-field labels) once`,
    );
    try {
      schema = (await pullOrgSchema(ctx)).schema;
      view = orgTypeView(schema, rt);
      unknown = columns.filter((c) => !skip(c) && !known(rt, c, view));
    } catch (err) {
      ctx.warn(`could not pull the org schema: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  for (const c of ignore) if (!columns.includes(c)) ctx.warn(`--ignore-columns: ${file} has no column "${c}"`);
  if (unknown.length) throw unknownColumns(rt, file, unknown, candidates(rt, view), dialect, schema !== undefined);
  return { view, skip: new Set(columns.filter(skip)) };
}

function unknownColumns(
  rt: ResourceType,
  file: string,
  unknown: string[],
  names: string[],
  dialect: InputDialect,
  pulled: boolean,
): UsageError {
  const described = unknown.map((c) => {
    const near = nearMiss(c, names);
    return `"${c}"${near ? ` (did you mean ${near}?)` : ''}`;
  });
  const one = unknown.length === 1;
  const err = new UsageError(
    `--input ${file}: ${one ? 'column' : `${unknown.length} columns`} ${described.join(', ')} ${one ? 'is not a field' : 'are not fields'} of ${rt.type}; nothing was sent`,
  );
  // A header read with the wrong delimiter is one long column name holding the others.
  if (unknown.some((c) => /[,;\t|]/.test(c))) {
    err.hint(
      `the header was split at ${dialect.delimiter === '\t' ? 'tabs' : `'${dialect.delimiter}'`}: if the file uses another delimiter, give --delimiter`,
    );
  }
  err.hint(
    `rename ${one ? 'it' : 'them'} in the file, or leave ${one ? 'it' : 'them'} out with --ignore-columns ${unknown.map(csvName).join(',')}`,
  );
  err.hint(
    pulled
      ? `\`svc schema show ${rt.type}\` lists the fields, custom-field labels included`
      : `\`svc schema show ${rt.type}\` lists the fields; \`svc schema pull\` adds your org's custom-field labels`,
  );
  return err;
}

/** A column name as a shell word inside a comma list. */
function csvName(c: string): string {
  return /^[\w.-]+$/.test(c) ? c : `'${c.replace(/'/g, "'\\''")}'`;
}
