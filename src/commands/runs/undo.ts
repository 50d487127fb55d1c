/**
 * `svc runs undo RUN [--plan] [--rows …] [--force]`: takes a recorded run back, as a bulk run of
 * its own (the skeleton of commands/bulk-run/run.ts: plan, journal, resume after a kill with no
 * row done twice, progress, report) — recorded like any run, so that it can be undone too (a
 * redo). Every check comes before anything is sent but the one read that says whose the token
 * is: the run exists and its record is intact, it was made against this API and org (with this
 * profile, or with any when its record names the org), it is not undone already, and the token may write what the undo writes.
 */
import { parseRoot } from '../../auth/whoami.js';
import { confirmOrYes } from '../shared/confirm.js';
import { svcAgain } from '../../runtime/svc-again.js';
import { quoteWord } from '../../shell-words.js';
import { resourcePerformer } from '../../bulk/rows/resource-perform.js';
import { IdSet } from '../../bulk/rows/lookup.js';
import { isFatal, type Outcome, type Parked } from '../../bulk/run/engine.js';
import { RunRecordWriter, type RunRecord } from '../../bulk/run/run-record.js';
import { AnswerLost } from '../../bulk/run/requester.js';
import { ownerKey, type SideOwner } from '../../bulk/run/side-owner.js';
import { ApiError, ExitCode, NetworkError, PartialError, RunRecordError, SvcError, UsageError } from '../../errors.js';
import { stdoutWidth, writeOut } from '../../output/io.js';
import { fitLines, terminalSafe } from '../../output/terminal-text.js';
import { resourceByType, type ResourceType } from '../../registry/index.js';
import type { Context } from '../../runtime/context.js';
import { runsDirOf } from '../bulk-run/run-recording.js';
import { bulkRun } from '../bulk-run/run.js';
import { runSummaryWanted } from '../bulk-run/run-summary.js';
import { bulkSetup, holdJournal, loadJournal, type BulkFlags, type BulkSession } from '../bulk-run/session.js';
import { runOwner } from '../shared/org-owner.js';
import { PLAN_FORMATS, printPlan, refuseRunOutput } from '../shared/output.js';
import { toSecond } from '../../output/relative-time.js';
import { checkNotUndone, loadRun, openUndoOf } from './store.js';
import {
  enrolAgainHint,
  enrolRecreatedLines,
  goneStatesText,
  idsToRead,
  rowsToUndo,
  undoItem,
  type CurrentRecord,
  type LookedUp,
  type UndoItem,
} from './undo-rows.js';
import { lookUpInDoubt } from './undo-lookup.js';
import { readRecords } from '../../bulk/rows/run-recorder.js';
import { undoBlocker } from '../../bulk/rows/undo-reach.js';
import { runFile } from '../../bulk/run/run-record.js';
import { Relinks, withKnownIds } from './undo-relink.js';
import { grouped, plural } from '../../grouped.js';
import { idValue } from '../../lossless-json.js';
import { labelledName } from '../../org-schema/custom-values.js';

/** Flags of `runs undo`. */
export type UndoFlags = Pick<BulkFlags, 'concurrency' | 'report' | 'settle' | 'resendUnconfirmed' | 'maxFailures'> & {
  plan?: boolean;
  rows?: string;
  force?: boolean;
  allowOptIn?: boolean;
};

/**
 * `svc runs undo ID` again, with `more` (`--force`): the user's flags that decide what it does or
 * whether it runs kept — `--yes` (off a terminal an undo that deletes is refused without it: a CI
 * run's hint dropped it and exited 2 when pasted, a trial), `--force`, `--allow-opt-in`,
 * `--resend-unconfirmed`, and `--rows` unless the hint means the rows it left out. Tuning
 * (`--concurrency`, `--settle`, `--max-failures`, `--report`) goes: a rerun works without it.
 * `--plan` goes too: the hint says what the command does, not what it would do.
 */
function undoAgain(ctx: Context, id: string, flags: UndoFlags, more: string[], keepRows = true): string {
  const words = [svcAgain(ctx), 'runs', 'undo', id];
  if (keepRows && flags.rows !== undefined) words.push('--rows', quoteWord(flags.rows));
  if (flags.force && !more.includes('--force')) words.push('--force');
  if (flags.allowOptIn && !more.includes('--allow-opt-in')) words.push('--allow-opt-in');
  if (flags.resendUnconfirmed) words.push('--resend-unconfirmed');
  words.push(...more);
  if (ctx.globals.yes) words.push('--yes');
  return words.join(' ');
}

/** `--rows 1-10,15`: row numbers of the run. */
function parseRows(v: string | undefined): ReadonlySet<number> | undefined {
  if (v === undefined) return undefined;
  const out = new Set<number>();
  for (const part of v.split(',').map((p) => p.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m || Number(m[1]) < 1 || (m[2] !== undefined && Number(m[2]) < Number(m[1])) || Number(m[2] ?? m[1]) - Number(m[1]) > 10_000_000)
      throw new UsageError(`--rows ${v}: expected row numbers and ranges, e.g. --rows 1-10,15`);
    for (let i = Number(m[1]); i <= Number(m[2] ?? m[1]); i++) out.add(i);
  }
  return out;
}

/**
 * Whether two owners are one place: the API (a local sandbox by its instance, whose port may
 * change) and the org — each compared when both say it (a single write records the base URL only).
 */
function samePlace(a: SideOwner, b: SideOwner): boolean {
  const inst = a.instance !== undefined && b.instance !== undefined;
  const org = a.org !== undefined && b.org !== undefined;
  const key = (o: SideOwner) =>
    ownerKey({ api: o.api, command: '', ...(inst ? { instance: o.instance! } : {}), ...(org ? { org: o.org! } : {}) });
  return key(a) === key(b);
}

/**
 * The org a run was made in, as a person tells it from the one reached now: its name, and where
 * it is when the two have the same name (every local sandbox org is "Acme Rockets (sandbox)": a
 * Paris trial read "made in another org (Acme Rockets (sandbox))" while in Acme Rockets (sandbox)).
 */
function orgWords(was: SideOwner, now: SideOwner): string {
  const where = (o: SideOwner) => (o.instance !== undefined ? `sandbox org ${o.instance}` : `${o.api}${o.org ? ` org ${o.org}` : ''}`);
  const name = was.orgName ?? was.org ?? was.instance ?? was.api;
  if (was.orgName === undefined || was.orgName !== now.orgName) return name;
  return `${name} at ${where(was)}, not the one reached now at ${where(now)}`;
}

function elsewhere(rec: RunRecord, what: string, fix: string): RunRecordError {
  return new RunRecordError(`run ${rec.meta.id} was made ${what}; refused`, ExitCode.RUN_ELSEWHERE).hint(`nothing was sent; ${fix}`);
}

/** The scopes the undo's writes need that the token lacks (none when the server does not say). */
function missingScopes(granted: string[] | undefined, rows: ReturnType<typeof rowsToUndo>): string[] {
  if (!granted) return [];
  const has = new Set(granted);
  const need = new Set<string>();
  for (const { row } of rows) {
    const rt = resourceByType(row.type);
    // A row the undo cannot take back sends nothing, so it needs no scope.
    if (!rt || undoBlocker(row)) continue;
    // Taking a create back deletes; the rest write (an update set back, a re-create, an action).
    const level = row.op === 'create' ? 'delete' : 'write';
    if (!has.has(`${rt.path}.all`) && !has.has(`${rt.path}.${level}`)) need.add(`${rt.path}.${level}`);
  }
  return [...need];
}

/**
 * Refuses, before anything is sent, an undo of which no row can be taken back: every row is a
 * write its type offers no way back for (an event created: events have no delete). It used to
 * send the DELETE, meet a 405, and say that running it again would do the rest.
 */
function refuseNothingToTakeBack(ctx: Context, rec: RunRecord, rows: ReturnType<typeof rowsToUndo>): void {
  const why = rows.map(({ row }) => undoBlocker(row));
  if (rows.length === 0 || why.some((w) => w === undefined)) return;
  throw new UsageError(`run ${rec.meta.id} cannot be taken back: ${[...new Set(why)].join('; ')}`).hint(
    `nothing was sent; ${svcAgain(ctx)} runs undo ${rec.meta.id} --plan says why row by row`,
  );
}

/**
 * Taking creates back deletes records: asked on a terminal (default no) and refused elsewhere
 * without --yes, as `delete` and a bulk delete are (a trial's undo off a terminal deleted the
 * records of a create run unasked). Set-backs, re-creates and finishes are not asked, as an
 * update is not. Called after the plan's reads: the count is the records it would delete.
 */
async function confirmDeletes(ctx: Context, id: string, deletes: number): Promise<boolean> {
  return (
    deletes === 0 ||
    confirmOrYes(ctx, {
      refuse: `delete ${grouped(deletes)} record(s) the run created`,
      hints: [`nothing was written; see them with ${svcAgain(ctx)} runs undo ${id} --plan, then run again with --yes`],
      question: `Undo run ${id}, deleting ${grouped(deletes)} record(s) it created?`,
      declined: 'not deleted: nothing was written',
    })
  );
}

/** Runs `svc runs undo`. */
export async function undoHandler(ctx: Context, id: string, flags: UndoFlags): Promise<void> {
  const planning = flags.plan === true || ctx.globals.dryRun;
  // The undo's own data, the ids of the records it re-created, is a table too: `type,old,new` with -o csv.
  refuseRunOutput(ctx, `runs undo${planning ? ' --plan' : ''}`, planning, flags.report, planning ? PLAN_FORMATS : [...PLAN_FORMATS, 'csv']);
  const dir = runsDirOf(ctx);
  const rec = loadRun(dir, id, svcAgain(ctx));
  const only = parseRows(flags.rows);
  const conn = await ctx.connection();
  // A run belongs to the org it wrote to, not to a profile's name: a teammate's run, or one of a
  // profile since removed, is undone from any profile whose token reaches that org (checked below,
  // by the one read). A record that names only the API (a single write: its org was not asked)
  // cannot be told from a run in another org of that API: only its own profile undoes it.
  const otherProfile = rec.meta.profile !== conn.profileName;
  const namesOrg = rec.meta.owner.instance !== undefined || rec.meta.owner.org !== undefined;
  if (otherProfile && !namesOrg) {
    const own = `svc --profile ${rec.meta.profile}`;
    const exists = (await ctx.config()).get(rec.meta.profile) !== undefined;
    throw elsewhere(
      rec,
      `with the profile "${rec.meta.profile}" (this is "${conn.profileName}"), and its record names the API, not the org`,
      exists
        ? `undo it with that profile: ${own} runs undo ${id}`
        : `the profile "${rec.meta.profile}" is removed: log in again under that name to the same org (${own} login --base-url ${rec.meta.owner.api}), then: ${own} runs undo ${id}`,
    );
  }
  if (rec.meta.owner.instance === undefined && !samePlace({ api: rec.meta.owner.api, command: '' }, { api: conn.baseUrl, command: '' }))
    throw elsewhere(
      rec,
      `against ${rec.meta.owner.api} (this profile now talks to ${conn.baseUrl})`,
      `undo it against that API (--base-url ${rec.meta.owner.api})`,
    );
  checkNotUndone(dir, rec, svcAgain(ctx));
  const rows = rowsToUndo(rec, only);
  const plan = flags.plan === true || ctx.globals.dryRun;
  if (!plan) refuseNothingToTakeBack(ctx, rec, rows);

  const label = `runs undo ${id}`;
  const setup = bulkSetup({ ...flags, journal: runFile(dir, id).replace(/\.run\.ndjson$/, '.undo.journal.ndjson') } as BulkFlags, label, {
    sandbox: ctx.globals.sandbox,
    planning,
  });
  // Before the read below: an undo whose journal another undo is writing sends nothing.
  holdJournal(ctx, setup);
  // One read says whose the token is, the org it writes to and the scopes it has.
  let rootDoc: unknown;
  setup.owner = await runOwner(ctx, label, async (url) => {
    rootDoc = (await (await ctx.api()).request({ method: 'GET', path: url, signal: ctx.signal })).doc;
    return rootDoc;
  });
  // From another profile, the token must say its org: one that does not cannot be told from another.
  const orgUnsaid =
    otherProfile &&
    ((rec.meta.owner.instance !== undefined && setup.owner.instance === undefined) ||
      (rec.meta.owner.org !== undefined && setup.owner.org === undefined));
  if (orgUnsaid || !samePlace(rec.meta.owner, setup.owner))
    throw elsewhere(
      rec,
      `in another org (${orgWords(rec.meta.owner, setup.owner)})`,
      otherProfile
        ? `undo it with a profile logged in to that org (it was made with "${rec.meta.profile}")`
        : rec.meta.owner.instance !== undefined && ctx.globals.sandbox
          ? // Two sandbox orgs: the data directory's, and the one a running `svc sandbox` serves (used first).
            'it is another local sandbox org than --sandbox reaches now: a running `svc sandbox` serves its own org; stop it (or give --sandbox-data the org file the run wrote to)'
          : 'undo it with the profile and API it was made with',
    );
  const root = rootDoc !== undefined ? parseRoot(rootDoc) : undefined;
  const scopes = root?.scopes;
  // Whose token this is: a conflict names a record's updater, "you" when it is this user.
  const me = root?.user?.id !== undefined ? String(root.user.id) : undefined;
  const missing = missingScopes(scopes, rows);
  if (missing.length)
    throw new SvcError(`the token may not make this undo's writes: it lacks ${missing.join(', ')}`, ExitCode.PERMISSION).hint(
      `nothing was sent; log in with them: ${svcAgain(ctx)} login --scopes "${[...(scopes ?? []), ...missing].join(' ')}"`,
    );
  const journal = await loadJournal(ctx, setup);
  const continued = openUndoOf(dir, rec);

  let items: UndoItem[] = [];
  let relinks: Relinks | undefined;
  /** Rows the finished undo left as they were (conflicts, opt-outs kept): it ends with exit 5 after the summary. */
  let left: Left | undefined;
  // Ids as listings write them (numbers): a script joins the mapping with `svc … list -o json`.
  const mapping: Recreated[] = [];
  await bulkRun(ctx, {
    setup,
    label,
    rows: `rows of run ${id}`,
    planInSession: true,
    // The question (deletes) comes after the plan's reads: a "no" or a refusal leaves no journal.
    sideFilesAfterPlan: true,
    recordMeta: { undoes: id },
    ...(continued ? { recordInto: continued } : {}),
    async scan() {
      const notes = [
        `run ${id}: ${rec.meta.argv} (${toSecond(rec.meta.at)})${rec.end ? '' : '; its record was cut short (the run was killed): the rows it holds are undone'}`,
      ];
      if (otherProfile)
        notes.push(`made with the profile "${rec.meta.profile}"; undone with "${conn.profileName}", logged in to the same org`);
      if (continued) notes.push(`continuing the unfinished undo ${continued.meta.id}`);
      return { total: rows.length, invalid: 0, blank: 0, problems: [], notes };
    },
    async plan(_scan, session) {
      // Creates that may have been done without an answer are looked up first: what is found is read with the rest.
      const looked = await lookUpInDoubt(ctx, rows, {
        session: session!,
        dir,
        rec,
        journal,
        windowMs: setup.settleMs,
        sameOrg: (owner) => samePlace(rec.meta.owner, owner),
      });
      const reads = await readCurrent(session!, rows, looked.verdicts);
      reads.requests += looked.requests;
      items = withKnownIds(rows, rec, journal).map((r) =>
        undoItem(r, reads.current, journal, flags.force === true, flags.allowOptIn === true, me, looked.verdicts.get(r.row.key)),
      );
      const keptOptOuts = items.filter((i) => i.keptOptOuts?.length);
      if (keptOptOuts.length)
        ctx.warn(
          `${grouped(keptOptOuts.length)} ${keptOptOuts.length === 1 ? 'record keeps' : 'records keep'} an opt-out the undo would take back (${[...new Set(keptOptOuts.flatMap((i) => i.keptOptOuts!))].join(', ')}): --allow-opt-in takes ${keptOptOuts.length === 1 ? 'it' : 'them'} back`,
        );
      relinks = new Relinks(items, rec, journal);
      const n = (a: UndoItem['action']) => items.filter((i) => i.action === a && !i.outcome).length;
      // An enrolment is taken back by finishing it (what it sent stays sent), and enroll skips a
      // prospect with any state in the sequence: the usual redo (another mailbox) then skipped
      // everyone, with nothing saying why (a trial). Finished ones it cannot make active again
      // are said once with a count and the same way on (they were said per row, 174 times, with
      // a `sequence-states create` the API refuses: a trial).
      const finishing = () => {
        const toFinish = items.filter((i) => i.action === 'finish' && !i.outcome);
        if (toFinish.length)
          ctx.info(
            `a finished enrolment stays in its sequence: enroll skips those prospects there. ${enrolAgainHint(
              svcAgain(ctx),
              toFinish.map((i) => i.finished!),
            )}`,
          );
        cannotRestore(ctx, items, relinks!);
      };
      if (plan) {
        await printUndoPlan(ctx, items, reads.requests);
        finishing();
        // A plan ends as its run would (exit 5 where rows would be left or fail); --dry-run
        // only shows, exit 0 (the contract of --dry-run).
        const would = leftRows(items, items.filter((i) => i.outcome?.status === 'failed').length);
        if (!ctx.globals.dryRun && would.count) throw wouldLeave(ctx, id, flags, would, items.length);
        return false;
      }
      const conflicts = items.filter((i) => i.action === 'conflict').length;
      ctx.info(
        `${label}: ${n('set back')} to set back, ${n('delete')} to delete, ${n('re-create')} to re-create, ${n('finish')} to finish${conflicts ? `, ${conflicts} conflicts (skipped; --force takes them back)` : ''}`,
      );
      finishing();
      return confirmDeletes(ctx, id, n('delete'));
    },
    async *items() {
      yield* relinks!.order(items);
    },
    perform(writes) {
      const claimed = new IdSet();
      for (const e of journal.entries.values()) if (e.id !== undefined && e.id !== null) claimed.add(e.id);
      const byType = new Map<string, ReturnType<typeof resourcePerformer>>();
      const performerOf = (rt: ResourceType) => {
        let p = byType.get(rt.type);
        if (!p) byType.set(rt.type, (p = resourcePerformer({ rt, op: 'update', claimed, ...writes })));
        return p;
      };
      /** An item action (finish, pause, resume): a rerun reads the state first, so a lost answer is not sent blindly again. */
      const act = async (item: UndoItem): Promise<Outcome> => {
        const { id, name } = item.act!;
        const rt = resourceByType(item.type)!;
        try {
          await writes.requester.send({ method: 'POST', path: `${rt.path}/${id}/actions/${name}` }, 'idempotent', {
            beforeSend: () => writes.leaving(item.key),
          });
          return { status: 'updated', id, extra: { action: name } };
        } catch (err) {
          if (err instanceof AnswerLost)
            return {
              status: 'failed',
              id,
              error: `${err.message}: a rerun reads the state and sends the ${name} only if it is still needed`,
            };
          if (isFatal(err) || !(err instanceof ApiError || err instanceof NetworkError)) throw err;
          return { status: 'failed', id, error: writes.describe(err).error };
        }
      };
      return async (item: UndoItem): Promise<Outcome | Parked> => {
        if (item.act) return act(item);
        // A link back to a record this undo re-creates waits for its new id (undo-relink.ts).
        const ready = await relinks!.relink(item);
        if (typeof ready === 'string') return { status: 'failed', id: item.id, error: ready };
        let out: Outcome | Parked;
        try {
          out = await performerOf(resourceByType(item.type)!)(ready as never);
        } catch (err) {
          relinks!.settled(item, undefined);
          throw err;
        }
        const note = (o: Outcome): Outcome => {
          if (item.action === 're-create') relinks!.settled(item, o.status === 'created' ? String(o.id) : undefined);
          if (item.action !== 're-create' || o.status !== 'created') return o;
          if (item.id !== null) mapping.push({ type: item.type, old: idValue(item.id), new: idValue(String(o.id)) });
          const lost = item.diff?.map((d) => d.field) ?? [];
          return {
            ...o,
            extra: { ...o.extra, was: item.id, ...(lost.length ? { note: `not restored (read-only): ${lost.join(', ')}` } : {}) },
          };
        };
        return 'parked' in out ? { parked: out.parked.then(note) } : note(out);
      };
    },
    recorded(record, result) {
      const c = result.counts;
      const conflicts = items.filter((i) => i.action === 'conflict').length;
      const whole =
        !only &&
        !result.interrupted &&
        !result.tripped &&
        c.failed + c.unknown === 0 &&
        conflicts === 0 &&
        !items.some((i) => i.keptOptOuts);
      // Conflicts and records deleted since are said row by row (the first 20; --report has every row).
      const said = items.filter((i) => i.action === 'conflict' || i.action === 'gone');
      // What the API gives no write for (a finished enrolment) is said before the run (cannotRestore).
      for (const i of said.slice(0, 20))
        ctx.info(ctx.redact(`row ${i.row}: ${i.action}: ${i.type} ${i.id}: ${String(i.outcome?.extra?.reason ?? '')}`));
      if (said.length > 20) ctx.info(`… and ${said.length - 20} more (--report FILE gives one line per row)`);
      // What no re-create can give back, said once for all (the API has no write for it).
      if (mapping.length)
        ctx.info(
          `${mapping.length} record(s) re-created under new ids: their read-only history (createdAt, counters) starts anew${mapping.some((m) => m.type === 'prospect') ? "; a deleted prospect's enrolments and mailings are gone and its calls stay without a prospect" : ''}`,
        );
      enrolRecreated(ctx, items, relinks!);
      // The run's own error ends the command when rows failed or it stopped (finishRun): the
      // rows left are said beside it. Otherwise they are the error, after the summary (exit 5).
      const ends = result.interrupted || result.tripped !== undefined || c.failed + c.unknown > 0;
      if (!ends) {
        const l = leftRows(items, 0);
        if (l.count) left = l;
      } else if (conflicts) ctx.info(`${conflicts} conflict(s): changed since the run, left as they are (--force takes them back)`);
      // The run is undone once every row is: then a second undo is refused (undo this one to redo).
      if (whole) {
        const w = RunRecordWriter.append(dir, loadRun(dir, id, svcAgain(ctx)), () => ctx.clock.now());
        try {
          w.write({ k: 'undone', by: recordIdOf(record), at: new Date(ctx.clock.now()).toISOString() });
        } finally {
          w.close();
        }
      } else if (!result.interrupted && (ends || (only !== undefined && !left))) {
        // Rows held for an opt-out wait for the flag: the same command again did nothing (a review).
        const flag = items.some((i) => i.keptOptOuts) ? ' --allow-opt-in' : '';
        // Conflicts alone are skipped by a rerun too: promised the rest, it did nothing (a trial).
        const rerunDoesMore = only !== undefined || result.tripped !== undefined || c.failed + c.unknown > 0 || flag !== '';
        if (rerunDoesMore)
          ctx.info(
            `run ${id} is partly undone: ${undoAgain(ctx, id, flags, flag ? [flag] : [], false)} again does the rest (rows done are not done again)`,
          );
        else
          ctx.info(
            `run ${id} is partly undone: run again, it skips the ${conflicts} conflict(s) again; ${undoAgain(ctx, id, flags, ['--force'])} takes them back (--rows N --force: only the rows you checked)`,
          );
      }
    },
    // With the summary for scripts, the mapping is its `recreated` (one JSON document on stdout).
    after: () => (runSummaryWanted(ctx) ? undefined : printMapping(ctx, mapping, flags.report === '-')),
    summaryExtra: () => ({ recreated: mapping }),
  });
  if (left) throw partlyUndone(ctx, id, flags, left, items.length);
}

/** Rows an undo leaves as they were: conflicts (changed since the run), opt-outs kept, and `failed` more. */
interface Left {
  conflicts: number;
  keptOptOuts: number;
  failed: number;
  count: number;
}

function leftRows(items: UndoItem[], failed: number): Left {
  const conflicts = items.filter((i) => i.action === 'conflict').length;
  const keptOptOuts = items.filter((i) => i.keptOptOuts?.length).length;
  return { conflicts, keptOptOuts, failed, count: conflicts + keptOptOuts + failed };
}

/** `2 conflicts (changed since the run), 1 keeping an opt-out`: what the left rows are. */
function leftText(l: Left): string {
  return [
    l.conflicts ? `${grouped(l.conflicts)} ${plural(l.conflicts, 'conflict')} (changed since the run)` : '',
    l.keptOptOuts ? `${grouped(l.keptOptOuts)} keeping an opt-out` : '',
    l.failed ? `${grouped(l.failed)} that would fail` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/** The ways to take the rows left back, as hints. */
function leftHints(err: SvcError, ctx: Context, id: string, flags: UndoFlags, l: Left): SvcError {
  if (l.conflicts)
    err.hint(`${undoAgain(ctx, id, flags, ['--force'])} takes the conflicts back (--rows N --force: only the rows you checked)`);
  if (l.keptOptOuts) err.hint(`${undoAgain(ctx, id, flags, ['--allow-opt-in'])} takes the opt-outs back`);
  return err;
}

/**
 * A finished undo that left rows as they were ends with exit 5, as a bulk run with failed rows
 * does: it exited 0 after a line a script never reads (a trial). Said with the count and the
 * way to see each row.
 */
function partlyUndone(ctx: Context, id: string, flags: UndoFlags, l: Left, total: number): SvcError {
  const err = new PartialError(
    `run ${id} is ${l.count < total ? 'partly undone' : 'not undone'}: ${grouped(l.count)} of ${grouped(total)} ${plural(total, 'row')} not taken back: ${leftText(l)}`,
  ).hint(`see them row by row: ${svcAgain(ctx)} runs undo ${id} --plan (or --report FILE)`);
  leftHints(err, ctx, id, flags, l);
  if (flags.rows !== undefined)
    err.hint(`the rows --rows left out are not undone either: ${undoAgain(ctx, id, flags, [], false)} again does them`);
  return err;
}

/** A `--plan` that finds rows the undo would leave or fail on ends with exit 5, as the undo would. */
function wouldLeave(ctx: Context, id: string, flags: UndoFlags, l: Left, total: number): SvcError {
  const err = new PartialError(
    `the undo of run ${id} would leave ${grouped(l.count)} of ${grouped(total)} ${plural(total, 'row')} as they are: ${leftText(l)}; nothing was written`,
  ).hint('the plan names each row and why');
  return leftHints(err, ctx, id, flags, l);
}

/**
 * Finished enrolments the undo cannot make active again (the API has no write for it), said once
 * with a count, the first ids and the way on: skipped, not failed. A state still there is deleted,
 * then its prospect enrolled (enrolAgainHint); one gone with its prospect needs only the enroll,
 * of the prospect's new id where this undo re-creates it (said after the run: enrolRecreated).
 */
function cannotRestore(ctx: Context, items: UndoItem[], relinks: Relinks): void {
  const cannot = cannotItems(items);
  if (cannot.length === 0) return;
  const ids = cannot.slice(0, 10).map((i) => i.id ?? '?');
  const list = `sequenceState ${ids.join(', ')}${cannot.length > ids.length ? `, … (${grouped(cannot.length - ids.length)} more)` : ''}`;
  const kept = cannot.filter((i) => !i.finished!.gone).map((i) => i.finished!);
  const gone = cannot.filter((i) => i.finished!.gone).map((i) => i.finished!);
  const ways = [
    kept.length ? enrolAgainHint(svcAgain(ctx), kept) : '',
    gone.length ? goneStatesText(svcAgain(ctx), gone, (p) => relinks.recreates('prospect', p)) : '',
  ].filter(Boolean);
  ctx.info(
    ctx.redact(
      `cannot restore ${grouped(cannot.length)} finished ${cannot.length === 1 ? 'enrolment' : 'enrolments'} (${list}): the API cannot make a finished sequence state active again; skipped, not failed. ${ways.join(' ')}`,
    ),
  );
}

/** The rows of finished enrolments the undo skips because it cannot restore them. */
function cannotItems(items: UndoItem[]): UndoItem[] {
  return items.filter((i) => i.action === 'cannot' && i.finished && i.outcome?.status === 'skipped');
}

/** After the undo: the enroll of each re-created prospect whose finished enrolment went with it, by its new id. */
function enrolRecreated(ctx: Context, items: UndoItem[], relinks: Relinks): void {
  const gone = cannotItems(items)
    .filter((i) => i.finished!.gone)
    .map((i) => i.finished!);
  for (const line of enrolRecreatedLines(svcAgain(ctx), gone, (p) => relinks.newIdOf('prospect', p))) ctx.info(ctx.redact(line));
}

function recordIdOf(w: RunRecordWriter): string {
  return w.file.replace(/^.*[\\/]/, '').replace(/\.run\.ndjson$/, '');
}

/** The records the undo's rows touch, as they are now: one read per 100 of a type. */
async function readCurrent(
  session: BulkSession,
  rows: ReturnType<typeof rowsToUndo>,
  /** What the lookups of creates in doubt found: their records are read too. */
  lookups: ReadonlyMap<string, LookedUp>,
): Promise<{ current: Map<string, CurrentRecord>; requests: number }> {
  const current = new Map<string, CurrentRecord>();
  let requests = 0;
  for (const [type, ids] of idsToRead(rows, lookups)) {
    const rt = resourceByType(type);
    if (!rt) continue;
    const found = await readRecords(session.requester, rt, ids);
    requests += Math.ceil(ids.length / 100);
    for (const [id, r] of found) current.set(`${type}:${id}`, r);
  }
  return { current, requests };
}

/** Old → new ids of the re-created records: on stdout, the data of the undo. */
/** A record an undo re-created: its type, the id it had and the one it has now. */
interface Recreated {
  type: string;
  old: number | string;
  new: number | string;
}

async function printMapping(ctx: Context, mapping: Recreated[], reportToStdout: boolean): Promise<void> {
  if (mapping.length === 0) return;
  // stdout holds the report's lines (`--report -`): the mapping, in them as each row's new id, goes
  // to stderr for people rather than into the middle of a script's NDJSON.
  if (reportToStdout) {
    for (const m of mapping) ctx.info(`re-created ${m.type} ${m.old} as ${m.new}`);
    return;
  }
  if (ctx.output === 'json') return writeOut(ctx.io.stdout, `${JSON.stringify({ recreated: mapping }, null, 2)}\n`);
  if (ctx.output === 'ndjson') return writeOut(ctx.io.stdout, mapping.map((m) => JSON.stringify(m)).join('\n') + '\n');
  if (ctx.output === 'csv')
    return writeOut(ctx.io.stdout, `type,old,new\n${mapping.map((m) => `${m.type},${m.old},${m.new}`).join('\n')}\n`);
  await writeOut(ctx.io.stdout, mapping.map((m) => `${m.type} ${m.old} → ${m.new}`).join('\n') + '\n');
}

const show = (v: unknown) => (v === null || v === undefined ? '(empty)' : JSON.stringify(v));

/** `--plan`: per row what the undo does (old → new), then the bill: the requests the undo sends. */
async function printUndoPlan(ctx: Context, items: UndoItem[], reads: number): Promise<void> {
  const count = (a: UndoItem['action']) => items.filter((i) => i.action === a && !i.outcome).length;
  const writes = items.filter((i) => !i.outcome && (i.write || i.act)).length;
  const bill = {
    setBack: count('set back'),
    deletes: count('delete'),
    recreates: count('re-create'),
    finishes: count('finish'),
    actions: count('pause') + count('resume'),
    conflicts: items.filter((i) => i.action === 'conflict').length,
    nothingToDo: items.filter((i) => i.action === 'nothing to do' || i.action === 'gone').length,
    cannot: items.filter((i) => i.action === 'cannot').length,
    // The undo asks whose the token is once, reads the records (100 a request) and writes each row.
    reads: reads + 1,
    writes,
    requests: reads + 1 + writes,
  };
  const lines = items.map((i) => ({
    row: i.row,
    action: i.action,
    type: i.type,
    // A number, as listings, --report and runs show write an id.
    id: i.id === null ? null : idValue(i.id),
    ...(i.diff ? { changes: i.diff } : {}),
    ...(i.outcome?.extra?.reason ? { reason: i.outcome.extra.reason } : {}),
    ...(i.outcome?.error ? { reason: i.outcome.error } : {}),
  }));
  // --query and --json fields shape the plan as they shape every JSON result (they were ignored).
  if (await printPlan(ctx, ctx.output, lines, bill)) return;
  // A custom field by its label too, from the profile's cached schema (no pull for a plan), as
  // the run's own plan names it.
  const schema = await (await ctx.orgSchema()).cached();
  const field = (type: string, name: string) => labelledName(name, schema?.types[type]?.customFields[name]?.label);
  const out: string[] = [];
  for (const l of lines) {
    out.push(`row ${l.row}: ${l.action} ${l.type} ${l.id ?? ''}${l.reason ? `: ${l.reason}` : ''}`);
    if (l.action === 'set back') for (const c of l.changes ?? []) out.push(`  ${field(l.type, c.field)}: ${show(c.old)} → ${show(c.new)}`);
    // A conflict is not a change the undo makes: `old → new` read as one (it is someone's since the run).
    if (l.action === 'conflict')
      for (const c of l.changes ?? []) out.push(`  ${field(l.type, c.field)}: the run wrote ${show(c.old)}, now ${show(c.new)}: kept`);
  }
  const n = grouped;
  out.push(
    `bill: ${n(bill.setBack)} set back, ${n(bill.deletes)} deleted, ${n(bill.recreates)} re-created, ${n(bill.finishes)} finished, ${n(bill.actions)} paused or resumed, ${n(bill.conflicts)} conflicts (skipped), ${n(bill.nothingToDo)} with nothing to do, ${n(bill.cannot)} that cannot be undone; ` +
      `${n(bill.requests)} requests (${n(bill.reads)} reads + ${n(bill.writes)} writes)`,
  );
  // Each line made safe on its own: a value's newline is shown escaped, the lines between rows stay
  // lines; on a terminal each is broken between words to its width.
  const width = stdoutWidth(ctx.io);
  await writeOut(ctx.io.stdout, out.map((l) => fitLines(ctx.redact(terminalSafe(l)), width)).join('\n') + '\n');
}
