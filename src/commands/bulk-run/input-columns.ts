/**
 * Every column of a bulk input file resolved before the first write (src/bulk/input/header-map.ts): an
 * attribute, a relationship (`account`, `account.id`), a column of an included record that is
 * left out (`account.name`), a custom-field label or org-only field (the org schema), a header as
 * people write it (`First Name`, `E-mail`, `Phone`), a `--map` entry, or unknown. A column
 * that is none of these would make every row fail alike, one request each; it is refused up
 * front (exit 2, nothing sent) with a near miss, unless `--ignore-columns` names it. When a
 * column is not a known name and the profile has no schema cached, the schema is pulled once
 * (two requests) first: a label such as `Lead Score` is then known.
 */
import fs from 'node:fs';
import { parseColumnMap, renamedColumns, resolveHeaders } from '../../bulk/input/header-map.js';
import { readRows, type InputDialect, type InputFormat } from '../../bulk/input/readers.js';
import { ERROR_COLUMN } from '../../bulk/run/failed-rows.js';
import { ignoredCsvColumn, type RowNames } from '../../bulk/rows/resource-rows.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { findAttribute, type ResourceType } from '../../registry/index.js';
import { matchFieldName, type FieldMatch } from '../../registry/name-match.js';
import { orgTypeView, type OrgTypeView } from '../../org-schema/org-schema.js';
import { nearMiss } from '../../suggest.js';

/** Most distinct keys collected from NDJSON or JSON rows (a file of free-form objects stops there). */
const MAX_KEYS = 1000;

/**
 * The columns of an input file: the CSV header, or the keys of the NDJSON or JSON objects (one
 * streaming pass, no requests).
 */
async function inputColumns(file: string, format: InputFormat, dialect: InputDialect): Promise<string[]> {
  const keys = new Set<string>();
  for await (const raw of readRows(file, { format, dialect })) {
    if (raw.csv) return raw.header ?? [];
    if (typeof raw.value !== 'object' || raw.value === null || Array.isArray(raw.value)) continue;
    for (const k of Object.keys(raw.value)) keys.add(k);
    if (keys.size >= MAX_KEYS) break;
  }
  return [...keys];
}

/** Names a near miss is looked for among. */
function candidates(rt: ResourceType, view: OrgTypeView | undefined): string[] {
  const out = [...rt.attributes.map((a) => a.name), ...rt.relationships.map((r) => r.name)];
  for (const f of view?.customFields ?? []) if (f.label) out.push(f.label);
  for (const a of view?.extraAttributes ?? []) out.push(a.name);
  return out;
}

/** What {@link checkInputColumns} found. */
interface CheckedColumns {
  /**
   * The names the rows are read with: each column's field (headers as people write them,
   * `--map`, custom-field labels) and the org's checks of custom values.
   */
  view: RowNames | undefined;
  /** Columns the rows leave out: `--ignore-columns`, and the error column of a failed-rows file. */
  skip: ReadonlySet<string>;
}

/** The rows' names: the resolved columns first, then the org's view (NDJSON keys beyond the first 1000). */
function rowNames(rt: ResourceType, columns: ReadonlyMap<string, FieldMatch>, view: OrgTypeView | undefined): RowNames | undefined {
  if (!view && renamedColumns(columns).length === 0) return undefined;
  return {
    column: (key) => {
      const m = columns.get(key);
      return m ? { name: m.field, ...(m.named ? { named: m.named } : {}) } : undefined;
    },
    resolve: (key) => {
      const m = columns.get(key);
      if (!m) return view?.resolve(key);
      return { name: m.field, spec: findAttribute(rt, m.field) ?? view?.resolve(m.field)?.spec ?? { name: m.field, type: 'string' } };
    },
    apply: (attributes, forUpdate, semicolonFile) => view?.apply(attributes, forUpdate, semicolonFile) ?? [],
    label: (field) => view?.customFields.find((f) => f.name === field)?.label || undefined,
  };
}

/** `--map` values read, or a usage error. */
export function columnMap(values: readonly string[] | undefined): Map<string, string> {
  const map = parseColumnMap(values ?? [], (file) => fs.readFileSync(file, 'utf8'));
  if ('problem' in map) {
    const err = new UsageError(map.problem);
    throw map.hint ? err.hint(map.hint) : err;
  }
  return map;
}

/**
 * Resolves the columns of a bulk create or update file, pulling the schema when needed, and says
 * on stderr which columns are read under another name.
 * @param map `--map`: header → field or label
 * @throws UsageError naming every unknown column, with near misses, or an ambiguous one
 */
export async function checkInputColumns(
  ctx: Context,
  rt: ResourceType,
  file: string,
  format: InputFormat,
  dialect: InputDialect,
  ignore: ReadonlySet<string>,
  map: ReadonlyMap<string, string> = new Map(),
): Promise<CheckedColumns> {
  const all = await inputColumns(file, format, dialect);
  const unnamed = all.flatMap((c, i) => (c === '' ? [i + 1] : []));
  if (unnamed.length)
    ctx.info(
      `--input ${file}: column${unnamed.length > 1 ? 's' : ''} ${unnamed.join(', ')} of the header row ${unnamed.length > 1 ? 'have' : 'has'} no name: left out (a row with a value there is refused)`,
    );
  const columns = all.filter((c) => c !== '');
  const orgSchema = await ctx.orgSchema();
  let schema = await orgSchema.cached();
  let view = schema ? orgTypeView(schema, rt) : undefined;
  // A failed-rows file (`--failed`) fed back in carries its error column; `account.name` (a
  // column of an included record) is left out by the rows with a warning.
  const skip = (c: string) => ignore.has(c) || (c === ERROR_COLUMN && !findAttribute(rt, c));
  const leftOut = (c: string) => skip(c) || (!map.has(c) && ignoredCsvColumn(rt, c));
  let resolved = resolveHeaders(rt, columns, view, map, leftOut);
  // A label is known only to the org: its schema is pulled once when a column is still unknown.
  const needsOrg = () => resolved.unknown.length > 0 || [...map.values()].some((f) => !matchFieldName(rt, f));
  if (needsOrg() && !schema) {
    const what = resolved.unknown.length ? resolved.unknown : [...map.values()].filter((f) => !matchFieldName(rt, f));
    ctx.info(
      `${resolved.unknown.length ? 'column' : '--map field'}${what.length > 1 ? 's' : ''} ${what.map((c) => `"${c}"`).join(', ')} not known: pulling the org schema (custom-field labels) once`,
    );
    try {
      schema = (await orgSchema.pull()).schema;
      view = orgTypeView(schema, rt);
      resolved = resolveHeaders(rt, columns, view, map, leftOut);
    } catch (err) {
      ctx.warn(`could not pull the org schema: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  for (const c of ignore) if (!columns.includes(c)) ctx.warn(`--ignore-columns: ${file} has no column "${c}"`);
  for (const k of resolved.unusedKeys) ctx.warn(`--map: ${file} has no column "${k}"`);
  if (resolved.problems.length) {
    const err = new UsageError(`--input ${file}: ${resolved.problems[0]}; nothing was sent`);
    for (const p of resolved.problems.slice(1)) err.hint(p);
    throw err;
  }
  if (resolved.unknown.length)
    throw unknownColumns(rt, file, resolved.unknown, candidates(rt, view), dialect, schema !== undefined, svcAgain(ctx));
  const renamed = renamedColumns(resolved.columns);
  if (renamed.length) ctx.info(`columns read as: ${renamed.join(', ')}`);
  return { view: rowNames(rt, resolved.columns, view), skip: new Set(columns.filter(skip)) };
}

function unknownColumns(
  rt: ResourceType,
  file: string,
  unknown: string[],
  names: string[],
  dialect: InputDialect,
  pulled: boolean,
  svc: string,
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
    `say which field ${one ? 'it holds' : 'each holds'} with --map ${one ? `"${unknown[0]}=FIELD"` : '"Header=FIELD" (repeatable) or --map map.json'}, or rename ${one ? 'it' : 'them'} in the file`,
  );
  err.hint(`to drop ${one ? 'it' : 'them'} and ${one ? 'its' : 'their'} data instead: --ignore-columns ${unknown.map(csvName).join(',')}`);
  err.hint(
    pulled
      ? `\`${svc} schema show ${rt.type}\` lists the fields, custom-field labels included`
      : `\`${svc} schema show ${rt.type}\` lists the fields; \`${svc} schema pull\` adds your org's custom-field labels`,
  );
  return err;
}

/** A column name as a shell word inside a comma list. */
function csvName(c: string): string {
  return /^[\w.-]+$/.test(c) ? c : `'${c.replace(/'/g, "'\\''")}'`;
}
