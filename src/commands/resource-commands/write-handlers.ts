/** Handlers of `create`, `update`, `delete` and item actions (single records). */
import { setField } from '../../own-field.js';
import { confirmOrYes } from '../shared/confirm.js';
import type { ApiResponse } from '../../api/client.js';
import { printDryRun } from '../shared/dry-run.js';
import { singleResource } from '../../api/jsonapi.js';
import { encodeQuery } from '../../api/query.js';
import { checkAttributes } from '../../api/validate.js';
import { normalizeId, recordToWriteData, relationshipData, toDocument, type WriteData } from '../../api/write-body.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { ApiError, NetworkError, neverSent, UsageError } from '../../errors.js';
import { flattenDocument } from '../../listing/record-text.js';
import { maskSensitive } from './mask.js';
import { writeOut } from '../../output/io.js';
import { pick } from '../../output/render.js';
import { secretsMasked, type ActionSpec, type ResourceType } from '../../registry/index.js';
import { checkTypeRules } from './type-rules.js';
import { orgTypeView } from '../../org-schema/org-schema.js';
import { matchFieldName } from '../../registry/name-match.js';
import { resolveName } from './query-options.js';
import { resolveRelValue } from '../shared/name-lookup.js';
import { readDataArgument } from '../shared/read-data.js';
import { printJsonResult, recordWriter } from '../shared/output.js';
import { parseId } from '../../runtime/option-parsers.js';
import { attributesFromFlags, relationshipsFromFlags } from './attr-flags.js';
import { promptForFields } from './prompt-fields.js';

/** Options of `create` and `update`. */
interface WriteFlags {
  attr?: string[];
  rel?: string[];
  data?: string;
}

/** Builds the `data` of a write from `--data`, `--attr` and `--rel` (flags win over --data). */
async function writeData(ctx: Context, rt: ResourceType, flags: WriteFlags, forUpdate: boolean): Promise<WriteData> {
  const data: WriteData = { type: rt.type, attributes: {}, relationships: {} };
  // The org schema cached by `svc schema pull` (labels, custom validations), when there is one;
  // pulled once when an `--attr` name is none of the registry's (a label without a cache).
  const unknown = (flags.attr ?? [])
    .map((a) =>
      a
        .slice(0, Math.max(a.indexOf('='), 0))
        .replace(/:$/, '')
        .trim(),
    )
    .filter((k) => k !== '' && !matchFieldName(rt, k));
  const schema = await (await ctx.orgSchema()).cachedOrPulled(unknown);
  const org = schema ? orgTypeView(schema, rt) : undefined;
  // `--json id,Lead Score` prints the written record's field, as list does.
  if (ctx.shape?.fields) ctx.shape = { ...ctx.shape, fields: ctx.shape.fields.map((f) => (f.includes('.') ? f : resolveName(rt, f, org))) };
  if (flags.data !== undefined) {
    const value = await readDataArgument(ctx, flags.data);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('--data: expected a JSON object');
    const doc = value as Record<string, unknown>;
    if ('data' in doc && typeof doc.data === 'object' && doc.data !== null) {
      // A full JSON:API document: taken as written, its attributes still checked.
      const d = doc.data as { type?: string; attributes?: Record<string, unknown>; relationships?: Record<string, never> };
      if (d.type && d.type !== rt.type) throw new UsageError(`--data: document type "${d.type}" is not ${rt.type}`);
      Object.assign(data.attributes, d.attributes ?? {});
      Object.assign(data.relationships, d.relationships ?? {});
    } else {
      const r = recordToWriteData(rt, doc, { readOnly: 'drop' });
      reportProblems(rt, r.problems);
      Object.assign(data.attributes, r.data.attributes);
      Object.assign(data.relationships, r.data.relationships);
    }
  }
  Object.assign(data.attributes, attributesFromFlags(rt, flags.attr ?? [], org));
  for (const [name, given] of Object.entries(relationshipsFromFlags(flags.rel ?? []))) {
    const rel = rt.relationships.find((r) => r.name === name);
    if (rel?.readOnly) throw new UsageError(`relationship "${name}" of ${rt.type} is read-only`);
    // `name:<value>` / `email:<value>`: looked up (reads only) before anything is written.
    const value = isNamed(given) ? await resolveRelValue(await ctx.api(), rt, name, given, ctx.signal) : given;
    const r = relationshipData(rt, name, value);
    if ('problem' in r) throw new UsageError(`--rel ${name}: ${r.problem}`);
    data.relationships[name] = { data: r.data };
  }
  reportProblems(rt, checkAttributes(rt, data.attributes));
  reportProblems(rt, checkTypeRules(rt, data.attributes, forUpdate));
  if (org) reportProblems(rt, org.apply(data.attributes, forUpdate));
  const given = flags.attr?.length || flags.rel?.length || flags.data !== undefined;
  if (!forUpdate && !given && Object.keys(data.attributes).length + Object.keys(data.relationships).length === 0) {
    if (ctx.io.stdinIsTTY && ctx.io.stderrIsTTY) Object.assign(data.attributes, await promptForFields(ctx, rt));
    // Without a terminal to ask on, a create given no field at all is a script whose --attr list
    // came out empty: it made a blank record, exit 0 (a trial). `--data '{}'` still asks for one.
    else
      throw new UsageError(`nothing to create: give --attr, --rel or --data (or --input FILE for many)`).hint(
        `svc ${rt.command} create --help lists the fields; --data '{}' creates ${/^[aeiou]/i.test(rt.type) ? 'an' : 'a'} ${rt.type} with none`,
      );
  }
  return data;
}

function isNamed(v: unknown): boolean {
  return typeof v === 'string' && /^\s*(name|email):/.test(v);
}

function reportProblems(rt: ResourceType, problems: { field: string; reason: string }[]): void {
  const p = problems[0];
  if (!p) return;
  const err = new UsageError(`${rt.type} ${p.field}: ${p.reason}`);
  for (const more of problems.slice(1)) err.hint(`${rt.type} ${more.field}: ${more.reason}`);
  throw err;
}

/**
 * The answer to a create, update or action must carry the record (the spec answers 201 or 200
 * with the resource): an empty 2xx or a redirect is an error, never `null` printed with exit 0.
 */
function expectRecord(res: ApiResponse, what: string, mayExist: boolean): void {
  try {
    if (res.status >= 300) {
      throw new ApiError(res.status, [
        { title: 'bad response', detail: `server answered ${res.status} (a redirect, not followed) to the ${what}` },
      ]);
    }
    singleResource(res.status, res.doc);
  } catch (err) {
    if (mayExist && err instanceof ApiError)
      err.hint('the record may have been created all the same: look for it before creating it again');
    throw err;
  }
}

/**
 * Prints the record a write returned; only a create's shows the sensitive attributes the service made (mask.ts).
 * The table view of a create or update (`sent`) is a short confirmation: the id and the fields
 * the write set, as the service stored them; `-o json` and friends print the whole record.
 */
async function printRecord(ctx: Context, doc: Parameters<typeof flattenDocument>[0], created = false, sent?: WriteData): Promise<void> {
  const writer = recordWriter(ctx, { format: ctx.output, io: ctx.io, single: true });
  let records = flattenDocument(doc);
  records = maskSensitive(records, created);
  const r = records[0];
  if (ctx.output === 'table' && sent && r) {
    await writeOut(ctx.io.stdout, `${created ? 'Created' : 'Updated'} ${r.type} ${r.id}\n`);
    const changed = [...Object.keys(sent.attributes), ...Object.keys(sent.relationships)].filter((k) => k !== 'id' && k !== 'type');
    if (changed.length === 0) return;
    const short = {} as typeof r;
    for (const k of changed) setField(short, k, pick(r, k) ?? null);
    records = [short];
  }
  await writer.page(doc, records);
  await writer.end();
}

/**
 * The body `--dry-run` prints: write-only and sensitive values (a mailbox's `password`) as `***`,
 * as a run's record keeps them — output is no place for a secret (they were printed in clear, a trial).
 */
function shownBody(rt: ResourceType, data: WriteData): { data: Record<string, unknown> } {
  return toDocument({ ...data, attributes: secretsMasked(rt, data.attributes) });
}

export async function createHandler(ctx: Context, rt: ResourceType, flags: WriteFlags): Promise<void> {
  const data = await writeData(ctx, rt, flags, false);
  const body = toDocument(data);
  const api = await ctx.api();
  if (ctx.globals.dryRun) return printDryRun(ctx, [{ method: 'POST', url: api.resolve(rt.path), body: shownBody(rt, data) }]);
  // Never `include` on a write: the service deprecated it (fetch related records separately).
  let res: ApiResponse;
  try {
    res = await api.request({ method: 'POST', path: rt.path, body, noRetry: true });
  } catch (err) {
    // Sent, and no answer (a timeout, a cut connection): a script that retries on exit 1 made the
    // record twice; the bulk runs look such a row up first (a trial).
    if (err instanceof NetworkError && !neverSent(err))
      err.hint(
        `the record may have been created all the same: look for it before creating it again (${svcAgain(ctx)} ${rt.command} list --sort -id --limit 5)`,
      );
    throw err;
  }
  expectRecord(res, 'create', true);
  await printRecord(ctx, res.doc, true, data);
  const made = res.doc.data;
  if (made && !Array.isArray(made))
    await (await import('../bulk-run/run-recording.js')).recordSingleWrite(ctx, rt, 'create', String(made.id), data, undefined);
}

export async function updateHandler(ctx: Context, rt: ResourceType, idArg: string, flags: WriteFlags): Promise<void> {
  const id = parseId(idArg);
  const data = await writeData(ctx, rt, flags, true);
  if (Object.keys(data.attributes).length + Object.keys(data.relationships).length === 0) {
    throw new UsageError('nothing to update: give --attr, --rel or --data');
  }
  data.id = normalizeId(id);
  const body = toDocument(data);
  const api = await ctx.api();
  const path = `${rt.path}/${id}`;
  if (ctx.globals.dryRun) return printDryRun(ctx, [{ method: 'PATCH', url: api.resolve(path), body: shownBody(rt, data) }]);
  // svc runs: the fields' values before the write, so that it can be taken back.
  const recording = await import('../bulk-run/run-recording.js');
  const prior = await recording.priorRecord(ctx, path);
  const res = await api.request({ method: 'PATCH', path, body, idempotent: true });
  expectRecord(res, 'update', false);
  await printRecord(ctx, res.doc, false, data);
  await recording.recordSingleWrite(ctx, rt, 'update', String(id), data, prior);
}

export async function deleteHandler(ctx: Context, rt: ResourceType, idArg: string): Promise<void> {
  const id = parseId(idArg);
  const api = await ctx.api();
  const path = `${rt.path}/${id}`;
  if (ctx.globals.dryRun) return printDryRun(ctx, [{ method: 'DELETE', url: api.resolve(path) }]);
  if (!(await confirmOrYes(ctx, { refuse: `delete ${rt.type} ${id}`, question: `Delete ${rt.type} ${id}?`, declined: 'not deleted' })))
    return;
  // svc runs: the whole record before it goes, so that it can be re-created.
  const recording = await import('../bulk-run/run-recording.js');
  const prior = await recording.priorRecord(ctx, path);
  await api.request({ method: 'DELETE', path });
  ctx.info(`deleted ${rt.type} ${id}`);
  await recording.recordSingleWrite(ctx, rt, 'delete', String(id), undefined, prior);
  const deleted = { id: normalizeId(id), type: rt.type, deleted: true };
  await printJsonResult(ctx, deleted);
}

/** Options of item actions. */
interface ActionFlags {
  param?: string[];
}

export async function actionHandler(ctx: Context, rt: ResourceType, action: ActionSpec, idArg: string, flags: ActionFlags): Promise<void> {
  const id = parseId(idArg);
  const pairs: [string, string][] = [];
  for (const p of flags.param ?? []) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new UsageError(`--param "${p}": expected name=value`);
    const name = p.slice(0, eq);
    // Documented parameters are checked here; an action whose parameters the spec does not show
    // passes them on and lets the service answer.
    if (action.params.length > 0 && !action.params.includes(name)) {
      throw new UsageError(`${rt.command} ${action.command} does not accept "${name}" (accepts: ${action.params.join(', ')})`);
    }
    pairs.push([`actionParams[${name}]`, p.slice(eq + 1)]);
  }
  const api = await ctx.api();
  const path = `${rt.path}/${id}/actions/${action.name}`;
  const query = encodeQuery(pairs);
  if (ctx.globals.dryRun) {
    const url = api.resolve(path);
    url.search = query;
    return printDryRun(ctx, [{ method: 'POST', url }]);
  }
  const res = await api.request({ method: 'POST', path, query, noRetry: true });
  expectRecord(res, `${action.command} action`, false);
  await printRecord(ctx, res.doc);
  await (await import('../bulk-run/run-recording.js')).recordSingleWrite(ctx, rt, 'action', String(id), undefined, undefined, action.name);
}
