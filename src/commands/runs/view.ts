/**
 * `svc runs list` and `svc runs show RUN`: the recorded runs of this profile, newest first; one
 * run's rows with their outcomes and before/after values (in every output format: a row a line,
 * values as JSON text in csv and table; the table gives an update's changed fields only, an
 * enrolment's prospect, sequence and mailbox). Nothing is sent. Pruning is prune.ts.
 */
import type { FieldValues, RunRecord } from '../../bulk/run/run-record.js';
import { findAttribute, findRelationship, resourceByType } from '../../registry/index.js';
import { changedByRun, subset } from './undo-rows.js';
import { readRunRecord } from '../../bulk/run/run-record.js';
import type { Context } from '../../runtime/context.js';
import { svcAgain } from '../../runtime/svc-again.js';
import { runsDirOf } from '../bulk-run/run-recording.js';
import { printValue } from '../shared/output.js';
import { allRuns, loadRun, runsProfileOf } from './store.js';
import { runRowsText } from '../../bulk/run/run-counts.js';
import { isUndone } from '../../bulk/run/run-record.js';
import { alignedColumns } from '../../output/aligned-columns.js';
import { relativeTime, toSecond } from '../../output/relative-time.js';
import { commandWords } from './command-words.js';
import { grouped } from '../../grouped.js';
import { idValue } from '../../lossless-json.js';

/**
 * A plain table of `rows` by `cols`: objects and lists as JSON. On a terminal it is fitted to its
 * width (output/aligned-columns.ts): the `flex` columns (a row's values) cut with … when a row
 * cannot fit otherwise, the `stack` ones (a run's rows by outcome) put under their row.
 */
function humanTable(ctx: Context, rows: Record<string, unknown>[], cols: string[], flex: string[] = [], stack: string[] = []): string {
  const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));
  const at = (names: string[]) => names.map((f) => cols.indexOf(f)).filter((i) => i >= 0);
  return alignedColumns(
    cols,
    rows.map((r) => cols.map((c) => cell(r[c]))),
    ctx.io.stdoutIsTTY && (flex.length || stack.length) ? { width: ctx.io.columns, flex: at(flex), stack: at(stack) } : undefined,
  );
}

/** A run's rows by outcome, in all its parts (bulk/run/run-counts.ts: the words and numbers its summary says). */
function rowsText(rec: RunRecord): string {
  return runRowsText(rec, grouped);
}

function state(dir: string, rec: RunRecord, read?: (id: string) => RunRecord): string {
  if (isUndone(dir, rec, read)) return `undone by ${rec.undoneBy[rec.undoneBy.length - 1]}`;
  if (rec.undoneBy.length) return 'redone';
  return rec.end ? (rec.end.interrupted ? 'interrupted' : 'done') : 'cut short';
}

/** `svc runs list`: this profile's runs, newest first. */
export async function listHandler(ctx: Context, flags: { all?: boolean }): Promise<void> {
  const dir = runsDirOf(ctx);
  const profile = await runsProfileOf(ctx);
  const rows: Record<string, unknown>[] = [];
  const runs = allRuns(dir);
  // Each record read and checked once: an undo's state reads the records of the undos of it.
  const checked = new Map(runs.flatMap((r) => ('rec' in r ? [[r.id, r.rec] as const] : [])));
  const read = (id: string): RunRecord => checked.get(id) ?? readRunRecord(dir, id);
  for (const r of runs) {
    if ('error' in r) {
      rows.push({ id: r.id, when: null, command: null, rows: null, state: 'tampered: refused' });
      continue;
    }
    if (!flags.all && r.rec.meta.profile !== profile) continue;
    rows.push({
      id: r.id,
      when: r.rec.meta.at,
      command: r.rec.meta.argv,
      rows: rowsText(r.rec),
      state: state(dir, r.rec, read),
      ...(r.rec.meta.undoes ? { undoes: r.rec.meta.undoes } : {}),
      ...(flags.all ? { profile: r.rec.meta.profile } : {}),
    });
  }
  // The runs of several profiles: whose each is (a run made after `profiles use` names it nowhere
  // in its command line, a trial).
  const cols = flags.all ? ['id', 'when', 'profile', 'command', 'rows', 'state'] : ['id', 'when', 'command', 'rows', 'state'];
  // On a terminal, what tells the runs apart in few columns: the age (`2h ago`), the command's
  // telling words (`prospects create leads.csv`: command-words.ts), a state in one word (`undone`;
  // which run undid it is in its row's command, `runs undo RUN`, and in `runs show`). The id stays
  // whole, as it is what one pastes. At 80 columns the full instant, command line and `undone by
  // RUN` wrapped every row mid-word, or left `prospects c…` and `undone …7b4ed4` (trials).
  const now = ctx.clock.now();
  const forPeople = () =>
    ctx.io.stdoutIsTTY
      ? rows.map((r) => ({
          ...r,
          when: typeof r.when === 'string' ? relativeTime(Date.parse(r.when), now) : r.when,
          command: typeof r.command === 'string' ? commandWords(r.command) : r.command,
          state: typeof r.state === 'string' ? r.state.replace(/^undone by \S+$/, 'undone') : r.state,
        }))
      : rows.map((r) => ({ ...r, when: typeof r.when === 'string' ? toSecond(r.when) : r.when }));
  await printValue(ctx, ctx.output, rows, () =>
    // The counts are never cut: they are what one reads before an undo ("2 failed" was cut to "2
    // fai…", a review). Where a row has no room for them they go on a line under it, indented.
    rows.length ? humanTable(ctx, forPeople(), cols, ['command', 'profile'], ['rows']) : 'no recorded runs\n',
  );
  if (rows.length === 0) ctx.info(`runs are recorded in ${dir} by every write run`);
}

/** `svc runs show RUN`: the run and its rows. */
export async function showHandler(ctx: Context, id: string): Promise<void> {
  const dir = runsDirOf(ctx);
  const rec = loadRun(dir, id, svcAgain(ctx));
  const rows = [...rec.rows.values()].map(({ row, done }) => ({
    row: row.row,
    op: row.op,
    type: row.type,
    id: row.op === 'create' || row.op === 'enroll' ? (done?.id ?? null) : (row.id ?? null),
    ...(row.was ? { was: row.was } : {}),
    status: done?.status ?? 'cut short',
    before: row.before ?? null,
    after: row.after ?? null,
    ...(done?.error ? { error: done.error } : {}),
    ...(done?.note ? { note: done.note } : {}),
  }));
  const m = rec.meta;
  ctx.info(
    `run ${m.id}: ${m.argv} · ${toSecond(m.at)} · profile ${m.profile} · ${m.owner.api}${m.owner.orgName ? ` (${m.owner.orgName})` : ''} · by ${m.who} · ${rowsText(rec)} · ${state(dir, rec)}${m.undoes ? ` · undoes ${m.undoes}` : ''}`,
  );
  const human = () => {
    const flat = rows.map((r) => {
      const { before, after } = changedOnly(r.type, r.id, r.before, r.after);
      return {
        ...r,
        before: fields(after ? before : identifying(r.type, before)),
        after: fields(before ? after : identifying(r.type, after)),
      };
    });
    // On a terminal the values are cut to fit its width, the widest first (a row of a create
    // was 135 columns at 80, wrapped mid-word: a trial); -o json or csv gives them whole.
    return humanTable(ctx, flat, ['row', 'op', 'type', 'id', 'status', 'before', 'after'], ['before', 'after', 'type']);
  };
  const scripted = rows.map((r) => ({
    ...r,
    id: idOf(r.id),
    ...(r.was ? { was: idValue(r.was) } : {}),
    before: numericIds(r.before),
    after: numericIds(r.after),
  }));
  await printValue(
    ctx,
    ctx.output,
    ctx.output === 'csv' ? scripted.map((r) => ({ ...r, before: json(r.before), after: json(r.after) })) : scripted,
    human,
  );
}

/**
 * An update's before and after, of the fields whose value it changed: a bulk update sent whole
 * (the README's list → edit → update) holds every attribute, and its rows were 6,600 characters
 * wide for a title changed (a trial). `-o json` and csv keep them whole.
 */
function changedOnly(type: string, id: unknown, before: FieldValues | null, after: FieldValues | null) {
  const rt = resourceByType(type);
  if (!before || !after || !rt) return { before, after };
  const changed = changedByRun(rt, before, after, String(id ?? ''));
  return { before: subset(before, changed), after: subset(after, changed) };
}

/**
 * A whole record (a delete's before, a re-create's after) by what says who it was: its values
 * that are set and that a client writes, names and e-mail addresses first. Whole, it began
 * `addedAt=null addressCity=null addressCountry…` and was cut there at 80 columns: which
 * prospect a dedupe merge had deleted could not be told (a Paris trial). -o json keeps it whole.
 */
function identifying(type: string, v: FieldValues | null): FieldValues | null {
  const rt = resourceByType(type);
  if (!v || !rt) return v;
  const empty = (x: unknown) => x === null || x === undefined || x === '' || (Array.isArray(x) && x.length === 0);
  const first = (k: string) => (/name$/i.test(k) ? 0 : findAttribute(rt, k)?.format === 'email' ? 1 : 2);
  const attributes = Object.entries(v.attributes)
    .filter(([k, x]) => !empty(x) && !findAttribute(rt, k)?.readOnly)
    .sort(([a], [b]) => first(a) - first(b));
  const relationships = Object.entries(v.relationships).filter(([k, x]) => !empty(x) && !findRelationship(rt, k)?.readOnly);
  return { attributes: Object.fromEntries(attributes), relationships: Object.fromEntries(relationships) };
}

/**
 * Ids as listings write them (lossless-json.ts): numbers, so that a script joins these rows with
 * `svc … list -o json` and a --report's ids (they were strings here: "21" against 21).
 */
const idOf = (id: string | undefined | null) => (id === undefined || id === null ? null : idValue(id));

function numericIds(v: FieldValues | undefined | null) {
  if (!v) return null;
  const relationships = Object.fromEntries(
    Object.entries(v.relationships).map(([k, r]) => [k, r === null ? null : Array.isArray(r) ? r.map(idValue) : idValue(r)]),
  );
  return { attributes: v.attributes, relationships };
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** `title="CEO" account=5`: field values for the human table. */
function fields(v: FieldValues | null): string {
  if (!v) return '';
  return Object.entries({ ...v.attributes, ...v.relationships })
    .map(([k, x]) => `${k}=${JSON.stringify(x)}`)
    .join(' ');
}
