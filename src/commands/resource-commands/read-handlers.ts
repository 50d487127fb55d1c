/** Handlers of `list` and `get`. */
import { setField } from '../../own-field.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../api/paginate.js';
import { listPages } from '../../listing/pages.js';
import { singleResource, type JsonApiDocument, type ResourceObject } from '../../api/jsonapi.js';
import { Progress } from '../../bulk/run/progress.js';
import { buildQuery, type ListQuery } from '../../api/query.js';
import { exportColumns } from './export-columns.js';
import { printDryRun } from '../shared/dry-run.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { SvcError, UsageError } from '../../errors.js';
import { flattenDocument, indexIncluded, type FlatRecord, type IncludedIndex } from '../../listing/record-text.js';
import { keepHeapNearLiveSize } from '../../runtime/heap.js';
import { startSpinner } from '../../output/spinner.js';
import { allAttributes, resourceByType, type ResourceType } from '../../registry/index.js';
import { maskSensitive } from './mask.js';
import { nearMiss } from '../../suggest.js';
import {
  applyColumns,
  checkFieldNames,
  checkQueryNames,
  fieldNamesOf,
  includePath,
  jsonSparseFields,
  type OrgNames,
} from './field-names.js';
import {
  buildListQuery,
  columnsAsGiven,
  machineDays,
  namesUnknownFields,
  parseColumns,
  unknownNames,
  type QueryFlags,
} from './query-options.js';
import { parseId, parseWholeNumber as parsePositiveInt } from '../../runtime/option-parsers.js';
import { checkBom, printValue, recordWriter, writeBom } from '../shared/output.js';
import { grouped } from '../../grouped.js';

/** Options of `list`. */
export interface ListFlags extends QueryFlags {
  limit?: string;
  all?: boolean;
  pageSize?: string;
  count?: boolean;
  columns?: string;
  /** Start CSV output with a UTF-8 byte order mark (Excel). */
  bom?: boolean;
  /** CSV: keep the custom fields the org does not use. */
  allColumns?: boolean;
}

export async function listHandler(ctx: Context, rt: ResourceType, flags: ListFlags): Promise<void> {
  if (flags.all && flags.limit !== undefined) throw new UsageError('--limit and --all cannot be used together');
  // A listing is many requests, each page's made from the last: said, not silently ignored (a trial).
  if (ctx.globals.dryRun) ctx.warn('--dry-run prints the requests of writes and get; a listing is read as usual (it changes nothing)');
  const limit = flags.limit !== undefined ? parsePositiveInt(flags.limit, '--limit', 0) : undefined;
  const pageSize = flags.pageSize !== undefined ? parsePositiveInt(flags.pageSize, '--page-size', 1) : undefined;
  if (pageSize !== undefined && pageSize > MAX_PAGE_SIZE) throw new UsageError(`--page-size: at most ${MAX_PAGE_SIZE}`);
  checkBom(ctx, flags.bom);
  const org = await orgNames(ctx, rt, withJsonFields(ctx, flags));
  const names = org.view(rt);
  const query = buildListQuery(rt, flags, (m) => ctx.warn(m), machineDays(ctx), names);
  checkQueryNames(rt, query, org);
  // A rehearsal on an anonymised copy: values filtered on are matched as its fakes.
  if (ctx.globals.sandboxData !== undefined) await (await import('../shared/rehearsal.js')).maskQueryFilters(ctx, rt.type, query);
  askJsonFields(ctx, rt, query, org);
  if (flags.count) query.count = true;
  if (query.fields) checkFieldNames(query.fields, org);
  const columns = parseColumns(rt, flags.columns, names);
  // JSON and NDJSON show the columns too (as `--json a,b` would): never dropped without a word.
  const jsonLike = ctx.output === 'json' || ctx.output === 'ndjson';
  if (columns && jsonLike && ctx.globals.jsonFields) ctx.warn('--columns is not used: --json a,b,c names the fields of JSON output');
  else if (columns && jsonLike) ctx.shape = { ...ctx.shape, fields: columns };
  if (columns) applyColumns(rt, columns, query, org, ctx.output === 'table' || ctx.output === 'csv' || jsonLike);
  if (flags.allColumns && (columns || ctx.output !== 'csv'))
    throw new UsageError('--all-columns is for CSV output (-o csv) without --columns');
  const omitColumn = ctx.output === 'csv' && !columns && !flags.allColumns ? await unusedCustomFields(ctx, rt) : undefined;
  const api = await ctx.api();
  // More than one page streams through: keep the heap near what is live (runtime/heap.ts).
  if (flags.all || (limit ?? 0) > MAX_PAGE_SIZE) keepHeapNearLiveSize();
  // `--all` with stdout redirected and stderr on a terminal shows records, total, rate and ETA;
  // the total comes from counting on the first page. With both on the terminal, the spinner
  // (which steps aside before data) is used instead: a redrawn bar would mix with the rows.
  const progress =
    flags.all && limit === undefined && ctx.io.stderrIsTTY && !ctx.io.stdoutIsTTY && !ctx.globals.verbose
      ? listProgress(ctx, rt)
      : undefined;
  const askedCount = query.count === true;
  if (progress) query.count = true;
  const spinner = progress
    ? { update() {}, clear() {}, dataIO: (io: typeof ctx.io) => io, stop: () => progress.stop() }
    : startSpinner(ctx.io, `Fetching ${rt.command}…`, ctx.env);
  progress?.start();
  const writer = recordWriter(ctx, {
    format: ctx.output,
    io: spinner.dataIO(ctx.io),
    columns,
    defaultColumns: rt.defaultColumns,
    omitColumn,
    ...(ctx.output === 'csv' && columns ? { headerNames: columnsAsGiven(flags.columns)! } : {}),
    // As a page of records would give them: id, type, the attributes, the relationships' ids.
    ...(ctx.output === 'csv' && !columns && !query.fields ? { emptyColumns: () => exportColumns(rt, undefined, true).columns } : {}),
  });
  // The listing stopped at the service's offset cap: said as an error at the end, exit 1, when
  // more was asked for — `--all` had printed 11,000 of 11,600 and exit 0, so a script went on
  // with a wrong count (a trial).
  let capped: string | undefined;
  const warn = (m: string) => {
    spinner.clear();
    ctx.warn(m);
  };
  let total = 0;
  let countMeta: { count?: unknown; truncated?: unknown } | undefined;
  let lastDoc: JsonApiDocument | undefined;
  await writeBom(ctx, flags.bom);
  try {
    if (limit === 0) {
      // `--limit 0 --count` asks only for the total: one page of one record is the cheapest request.
      if (!flags.count) throw new UsageError('--limit 0 only makes sense with --count');
    }
    for await (const page of listPages(api, rt.path, {
      query,
      limit: limit === 0 ? 1 : limit,
      all: flags.all,
      pageSize,
      warn,
      capped: (m) => {
        if (flags.all || (limit !== undefined && limit > 0)) capped = m;
        else warn(m);
      },
      signal: ctx.signal,
    })) {
      if (countMeta === undefined && (flags.count || progress)) {
        countMeta = { count: page.doc.meta?.count, truncated: page.doc.meta?.count_truncated };
        if (progress && typeof countMeta.count === 'number') progress.setTotal(countMeta.count);
      }
      lastDoc = page.doc;
      if (limit === 0) break;
      const included = indexIncluded(page.doc, query.include);
      total += page.records.length;
      progress?.advance(page.records.length);
      spinner.update(`Fetched ${total} ${rt.command}…`);
      // Records are flattened one at a time as they are written (constant memory for --all).
      const prepare = hasSensitive(page.records, included) ? (r: FlatRecord) => maskSensitive([r])[0]! : undefined;
      await writer.resources({ doc: page.doc, resources: page.records, included, prepare });
    }
  } finally {
    spinner.stop();
  }
  if (limit !== 0) await writer.end();
  if (limit === undefined && !flags.all && lastDoc) moreHint(ctx, total, lastDoc, countMeta?.count);
  if (countMeta && askedCount) {
    const c = countMeta.count === null || countMeta.count === undefined ? 'unknown' : String(countMeta.count);
    const counted = { count: countMeta.count ?? null, count_truncated: countMeta.truncated ?? false };
    if (limit === 0 && ctx.shape) await printValue(ctx, ctx.output, counted, () => '');
    // A CSV of one row, as a script reading CSV asked (it got JSON, a trial).
    else if (limit === 0 && ctx.output === 'csv') await printValue(ctx, 'csv', [counted], () => '');
    else if (limit === 0 && ctx.output !== 'table') ctx.io.stdout.write(JSON.stringify(counted) + '\n');
    else ctx.info(`count: ${c}${countMeta.truncated ? ' (truncated: the service stopped counting)' : ''}`);
  }
  // After the count, which a script asked for all the same (it was lost, a review).
  if (capped !== undefined && (flags.all || total < (limit ?? 0)))
    throw new SvcError(`${capped}; ${grouped(total)} ${rt.command} printed, not all that were asked for`, 1);
}

/** Options of `get`. */
export interface GetFlags {
  include?: string;
  fields?: string[];
  /** Show null and empty fields in the table view too. */
  allFields?: boolean;
}

export async function getHandler(ctx: Context, rt: ResourceType, idArg: string, flags: GetFlags): Promise<void> {
  const id = parseId(idArg);
  const org = await orgNames(ctx, rt, withJsonFields(ctx, flags));
  const query = buildListQuery(rt, flags, (m) => ctx.warn(m), machineDays(ctx), org.view(rt));
  askJsonFields(ctx, rt, query, org);
  if (query.fields) checkFieldNames(query.fields, org);
  const api = await ctx.api();
  // As for a write: the request printed, nothing sent (it was sent, and the record printed, a trial).
  if (ctx.globals.dryRun) {
    const url = api.resolve(`${rt.path}/${id}`);
    url.search = buildQuery(query).slice(1);
    return printDryRun(ctx, [{ method: 'GET', url }]);
  }
  const res = await api.request({ method: 'GET', path: `${rt.path}/${id}`, query: buildQuery(query).slice(1) });
  singleResource(res.status, res.doc);
  const writer = recordWriter(ctx, { format: ctx.output, io: ctx.io, single: true });
  let records = maskSensitive(flattenDocument(res.doc, query.include));
  let hiddenFields = 0;
  if (ctx.output === 'table' && !flags.allFields) {
    // The table view is for reading one record: most of a record's fields are often empty.
    const { kept, hidden } = withoutEmptyFields(records[0]);
    if (kept) records = [kept];
    hiddenFields = hidden;
  }
  await writer.page(res.doc, records);
  await writer.end();
  // Said once the record is out (a note before a failed write would read as if it had been).
  if (hiddenFields > 0) ctx.info(`(${hiddenFields} empty field${hiddenFields === 1 ? '' : 's'} hidden; --all-fields shows them)`);
}

/** A record without its null and empty values (`id` and `type` stay), and how many went (empty custom fields not counted). */
export function withoutEmptyFields(r: FlatRecord | undefined): { kept: FlatRecord | undefined; hidden: number } {
  if (!r) return { kept: r, hidden: 0 };
  const kept = {} as FlatRecord;
  let hidden = 0;
  for (const [k, v] of Object.entries(r)) {
    const empty =
      v === null ||
      v === undefined ||
      v === '' ||
      (Array.isArray(v) && v.length === 0) ||
      (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);
    // Empty custom fields are never shown in the table view (render.ts): not counted as hidden here.
    if (empty && k !== 'id' && k !== 'type') hidden += /^custom\d+$/.test(k) ? 0 : 1;
    else setField(kept, k, v);
  }
  return { kept, hidden };
}

/**
 * `--json a,b,c` sent as the type's sparse fieldset, unless `--fields` already names one; a
 * `rel.attr` name includes the relationship (an id cannot show a name), as `--columns` does.
 */
function askJsonFields(ctx: Context, rt: ResourceType, query: ListQuery, org: OrgNames): void {
  const given = ctx.globals.jsonFields;
  if (!given) return;
  // Labels and other spellings name their fields (`Lead Score` → custom2), as in --columns.
  const fields = parseColumns(rt, given.join(','), org.view(rt)) ?? [];
  if (ctx.shape) ctx.shape = { ...ctx.shape, fields };
  // Checked like --columns (a typo would print a column of nulls), without changing the query.
  applyColumns(rt, fields, query, org, false, '--json');
  const sparse = jsonSparseFields(rt, fields);
  if (sparse && !query.fields?.[rt.type]) query.fields = { ...query.fields, [rt.type]: sparse };
  for (const f of fields) includePath(rt, f, query);
}

/** The flags with `--json a,b,c` counted as columns: a name only the org schema knows loads it. */
function withJsonFields(ctx: Context, flags: QueryFlags & { columns?: string }): QueryFlags & { columns?: string } {
  const fields = ctx.globals.jsonFields;
  if (!fields) return flags;
  return { ...flags, columns: [flags.columns, ...fields].filter(Boolean).join(',') };
}

/**
 * The org schema's names (custom-field labels, org-only fields) when a flag names a field the
 * registry does not know; otherwise nothing is read or loaded, so list and get start as fast as
 * without a cache.
 */
async function orgNames(ctx: Context, rt: ResourceType, flags: QueryFlags & { columns?: string }): Promise<OrgNames> {
  const svc = svcAgain(ctx);
  if (!namesUnknownFields(rt, flags)) {
    // A filter on a custom field by its name: the cached schema (never a pull) gives a picklist's
    // options, which fold the value's case or refuse it (`custom1=webinar` matched nothing, a review).
    if (!rt.customFields || !flags.filter?.some((f) => /^\s*custom\d+\s*=/.test(f))) return { view: () => undefined, pulled: false, svc };
    const cached = await (await ctx.orgSchema()).cached();
    if (!cached) return { view: () => undefined, pulled: false, svc };
    const { orgTypeView } = await import('../../org-schema/org-schema.js');
    return { view: (t) => orgTypeView(cached, t), pulled: false, svc };
  }
  // Performance machinery (src/README.md, Build): loaded with import() when first used.
  const { orgTypeView } = await import('../../org-schema/org-schema.js');
  // Without a cache, a name no spelling of the registry's answers is pulled for once: a label
  // then works, and a name that is no field is refused before the list is asked for.
  // Only for a type the org can add to without the spec showing it; a near miss of a field is
  // refused with the suggestion without asking.
  const ask = rt.partial || rt.customFields ? unknownNames(rt, flags).filter((n) => !nearMiss(n, fieldNamesOf(rt))) : [];
  const schema = await (await ctx.orgSchema()).cachedOrPulled(ask);
  return { view: (t) => (schema ? orgTypeView(schema, t) : undefined), pulled: !!schema, svc };
}

/** True when a record of the page, or one it includes, has an attribute to mask (webhook secrets). */
function hasSensitive(records: readonly ResourceObject[], included: IncludedIndex): boolean {
  const types = new Set<string>();
  for (const r of records) types.add(r.type);
  for (const r of included.values()) types.add(r.type);
  for (const t of types) if (resourceByType(t)?.attributes.some((a) => a.sensitive)) return true;
  return false;
}

/**
 * CSV without `--columns`: the custom fields the org has not labelled (from the cached schema)
 * are left out — 150 empty columns otherwise. Without a cached schema every field is kept.
 */
async function unusedCustomFields(ctx: Context, rt: ResourceType): Promise<((key: string) => boolean) | undefined> {
  if (!rt.customFields) return undefined;
  const schema = await (await ctx.orgSchema()).cached();
  if (!schema) return undefined;
  const used = schema.types[rt.type]?.customFields ?? {};
  // Said once, as export says it: 146 columns went from one nightly CSV to the next without a
  // word, one of them holding a value (a trial).
  const left = allAttributes(rt).filter((a) => /^custom\d+$/.test(a.name) && used[a.name] === undefined).length;
  if (left) ctx.info(`leaving out ${left} custom field(s) your org has not labelled (--all-columns keeps them)`);
  return (key) => /^custom\d+$/.test(key) && used[key] === undefined;
}

/** The progress display of `list --all` on a terminal. */
function listProgress(ctx: Context, rt: ResourceType): Progress {
  return new Progress({
    stderr: ctx.io.stderr,
    tty: true,
    label: `${rt.command} list`,
    columns: ctx.io.columns,
    now: () => ctx.clock.now(),
  });
}

/** A list that stopped at the default page says so on stderr (people read a full table of 50 as "that is all"). */
function moreHint(ctx: Context, shown: number, last: JsonApiDocument, count: unknown): void {
  // On a terminal or not: a script's log is where a listing cut at the default page is missed
  // (the README's recipe updated 50 of 222 CEOs without a word, a trial).
  if (shown < DEFAULT_PAGE_SIZE) return;
  const known = typeof count === 'number' ? count : undefined;
  const more = known !== undefined ? known > shown : last.links ? last.links.next !== undefined && last.links.next !== null : true;
  if (!more) return;
  const n = grouped;
  ctx.info(
    `${known !== undefined ? `${n(shown)} of ${n(known)}` : `first ${n(shown)}`} shown — \`--all\` or \`--limit N\` for more${known === undefined ? ' (--count for the total)' : ''}`,
  );
}
