/**
 * `svc enroll`: resolves the sequence and mailbox (ids, names, or a picker on a terminal),
 * checks the rows, checks that the sequence and mailbox exist, fetches the sequence's states
 * once (pages of 1,000) to skip prospects already in it, resolves e-mail addresses or checks
 * that the ids are prospects' in batches (an unknown `--prospect` id, or with `--strict` any row
 * that would fail, stops the run there), says what it will do (and asks on a terminal), then
 * enrolls the rest with the bulk engine.
 * The rows are held in memory between the summary and the run (about 100 bytes each), so that
 * the summary can count them without a second round of lookups.
 *
 * Requests: 3 (sequence, mailbox, one step of the sequence) + ⌈states in the sequence / 1,000⌉ + one per address batch
 * (`--by email`) or per 500 ids not in the sequence (`--by id`) + one per prospect to enroll; a
 * name costs one or two list requests more.
 */
import { paginate } from '../../api/paginate.js';
import { enrollPerformer, enrolmentBody } from '../../bulk/rows/enroll-perform.js';
import { emailLookup, idLookup, resolveEmails, resolveIds } from '../../bulk/rows/enroll-resolve.js';
import {
  enrollRows,
  headerless as enrollHeaderless,
  type EnrollBy,
  type EnrollItem,
  type EnrollSource,
} from '../../bulk/rows/enroll-rows.js';
import { skippedFailed, type JournalState } from '../../bulk/run/journal.js';
import { detectFormat, inspectInput } from '../../bulk/input/readers.js';
import { pagedClient, Stopped } from '../../bulk/run/requester.js';
import type { Context } from '../../runtime/context.js';
import { ApiError, InterruptedError, UsageError } from '../../errors.js';
import { printLine, refuseRunOutput } from '../shared/output.js';
import { idleSequence, summarize, summaryLines } from './summary.js';
import { mayPrompt, targetId } from './targets.js';
import { bulkSetup, holdJournal, loadJournal, type BulkFlags, type BulkSession, type BulkSetup } from '../bulk-run/session.js';
import { bulkRun } from '../bulk-run/run.js';
import { idValue } from '../../lossless-json.js';
import { failedRows, noteDialect } from '../bulk-run/input-file.js';
import { rehearsalMask } from '../shared/rehearsal.js';
import { grouped, plural } from '../../grouped.js';
import { svcAgain } from '../../runtime/svc-again.js';

/** Options of `svc enroll`. */
interface EnrollFlags extends BulkFlags {
  /** An id or a name; left out, a picker opens on a terminal. */
  sequence?: string;
  /** An id or an e-mail address; left out, a picker opens on a terminal. */
  mailbox?: string;
  prospect?: string[];
  by?: string;
  column?: string;
}

/**
 * Checks the options (before any name is looked up) and describes where the rows come from; the
 * journal's lock is taken once the input is read, before a line is said or a request sent.
 */
async function source(ctx: Context, flags: EnrollFlags, setup: BulkSetup): Promise<Omit<EnrollSource, 'sequenceId'>> {
  const prospects = (flags.prospect ?? [])
    .flatMap((p) => p.split(','))
    .map((p) => p.trim())
    .filter(Boolean);
  if (prospects.length > 0 === (flags.input !== undefined)) {
    throw new UsageError('give the prospects with --prospect ID... or --input FILE (one of the two)');
  }
  if (flags.by !== undefined && flags.by !== 'id' && flags.by !== 'email') throw new UsageError(`--by ${flags.by}: expected id or email`);
  if (flags.by !== undefined && flags.input === undefined) throw new UsageError('--by works with --input (--prospect takes ids)');
  if (flags.column !== undefined && flags.input === undefined) throw new UsageError('--column works with --input');
  const by: EnrollBy = (flags.by as EnrollBy | undefined) ?? 'id';
  if (flags.input === undefined) {
    if (flags.delimiter !== undefined || flags.ignoreColumns !== undefined || flags.encoding !== undefined)
      throw new UsageError(
        `--${flags.delimiter !== undefined ? 'delimiter' : flags.encoding !== undefined ? 'encoding' : 'ignore-columns'} works only with --input FILE`,
      );
    // Every id is checked before the first enrolment: `--prospect 5,6,abc` enrols nobody.
    const bad = prospects.filter((p) => !/^[1-9]\d*$/.test(p));
    if (bad.length)
      throw new UsageError(
        `--prospect ${bad.map((b) => `"${b}"`).join(', ')}: not a prospect id (a positive integer); nothing was enrolled`,
      );
    return { by, prospects };
  }
  const format = await detectFormat(flags.input);
  const dialect = await inspectInput(flags.input, format, setup.delimiter, setup.encoding);
  holdJournal(ctx, setup);
  noteDialect(ctx, flags.input, dialect, format);
  return { by, file: flags.input, format, dialect, ...(flags.column !== undefined ? { column: flags.column.trim() } : {}) };
}

/** Rows → work items, with what the checks and the journal decided. */
async function* items(src: EnrollSource, journal: JournalState, skipFailed: boolean): AsyncGenerator<EnrollItem> {
  for await (const { row, key, value } of enrollRows(src)) {
    const item: EnrollItem = { row, key };
    if ('problem' in value) {
      item.outcome = { status: 'failed', id: null, error: `invalid: ${value.problem}`, extra: { field: src.by }, shown: true };
      yield item;
      continue;
    }
    if ('id' in value) item.prospectId = value.id;
    else item.email = value.email;
    const e = journal.entries.get(key);
    const extra = { ...(item.prospectId ? { prospect: item.prospectId } : {}), ...(item.email ? { email: item.email } : {}) };
    if (e?.status === 'created')
      item.outcome = { status: 'skipped', id: e.id ?? null, extra: { ...extra, reason: 'enrolled by an earlier run (journal)' } };
    else if (e?.status === 'pending' || e?.status === 'unknown') item.pending = e;
    else if (e?.status === 'failed' && skipFailed) item.outcome = skippedFailed(e, extra);
    yield item;
  }
}

/**
 * Whether the sequence has a step (one step read, its order only); undefined when the token may
 * not read steps: the summary then says nothing of them rather than stopping the run.
 */
async function anyStep(session: BulkSession, sequenceId: number | string): Promise<boolean | undefined> {
  const pages = paginate(pagedClient(session.requester, session.client), 'sequenceSteps', {
    query: { extra: [['filter[sequence][id]', String(sequenceId)]], fields: { sequenceStep: ['order'] } },
    limit: 1,
  });
  try {
    for await (const page of pages) if (page.records.length > 0) return true;
    return false;
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return undefined;
    throw err;
  }
}

/** Prospect id → sequence state id, for every state of the sequence. */
async function existingStates(session: BulkSession, sequenceId: number | string): Promise<Map<number | string, number | string>> {
  const out = new Map<number | string, number | string>();
  const pages = paginate(pagedClient(session.requester, session.client), 'sequenceStates', {
    query: { extra: [['filter[sequence][id]', String(sequenceId)]], fields: { sequenceState: ['prospect'] } },
    all: true,
    pageSize: 1000,
  });
  for await (const page of pages) {
    for (const r of page.records) {
      const p = r.relationships?.['prospect']?.data;
      if (p && !Array.isArray(p)) out.set(idValue(String(p.id)), r.id);
    }
  }
  return out;
}

/** Runs `svc enroll`: the bulk skeleton (bulk-run/run.ts) filled in with enrolments. */
export async function enrollHandler(ctx: Context, flags: EnrollFlags): Promise<void> {
  refuseRunOutput(ctx, `enroll${ctx.globals.dryRun ? ' --dry-run' : ''}`, ctx.globals.dryRun, flags.report);
  const setup = bulkSetup(flags, 'enroll', { sandbox: ctx.globals.sandbox, planning: ctx.globals.dryRun });
  const checked = await source(ctx, flags, setup);
  // Checked before the names are looked up: a refusal costs no request.
  const failed = failedRows(setup, flags.input);
  // Before the first request (`--prospect` with `--journal`): a run on a journal in use sends nothing.
  holdJournal(ctx, setup);
  // Names become ids first: the sequence id is part of every row's journal key.
  const api = await ctx.api();
  const mask = await rehearsalMask(ctx);
  const sequenceId = await targetId(ctx, api, 'sequence', flags.sequence);
  const mailboxId = await targetId(ctx, api, 'mailbox', flags.mailbox);
  const src: EnrollSource = { ...checked, sequenceId };
  src.shard = setup.shard;
  const journal = await loadJournal(ctx, setup);

  const emails: string[] = [];
  // What the plan reads (through the session) and the run enrols.
  let enrolled = new Map<number | string, number | string>();
  const list: EnrollItem[] = [];
  await bulkRun(ctx, {
    setup,
    label: 'enroll',
    rows: 'rows',
    // svc runs: each row creates a sequenceState (its id is the outcome's), finished by an undo.
    records: { op: 'enroll', type: 'sequenceState' },
    ...(src.file
      ? {
          input: {
            file: src.file,
            read: { format: src.format ?? 'csv', ...(src.dialect ? { dialect: src.dialect } : {}), headerless: enrollHeaderless(src.by) },
            bareKey: src.by,
          },
        }
      : {}),
    ...(failed ? { failed } : {}),
    planInSession: true,
    async scan() {
      const scan = { total: 0, invalid: 0, blank: 0, problems: [] as string[], notes: [] as string[] };
      for await (const r of enrollRows(src, () => scan.blank++)) {
        scan.total++;
        if ('email' in r.value) emails.push(r.value.email);
        if ('problem' in r.value) {
          scan.invalid++;
          if (scan.invalid <= 20) scan.problems.push(`row ${r.row}: ${src.by}: ${r.value.problem}`);
        }
      }
      if (scan.blank) scan.notes.push(`${grouped(scan.blank)} blank ${plural(scan.blank, 'row')} (every cell empty) skipped`);
      return scan;
    },
    async plan(scan, session) {
      let sequence: Record<string, unknown>;
      let mailbox: Record<string, unknown>;
      let hasSteps: boolean | undefined;
      try {
        // Both must exist; a typo would otherwise fail every row one by one.
        sequence = attributesOf(await session!.requester.send({ method: 'GET', path: `sequences/${src.sequenceId}` }, 'read'));
        mailbox = attributesOf(await session!.requester.send({ method: 'GET', path: `mailboxes/${mailboxId}` }, 'read'));
        hasSteps = await anyStep(session!, src.sequenceId);
        enrolled = await existingStates(session!, src.sequenceId);
        const pages = pagedClient(session!.requester, session!.client);
        let work: AsyncIterable<EnrollItem> = items(src, journal, setup.skipFailed);
        // An address's prospect is read by id, so it exists; an id is checked to be a prospect's.
        work = src.by === 'email' ? resolveEmails(work, emailLookup(pages, mask, emails)) : resolveIds(work, idLookup(pages), enrolled);
        for await (const item of work) {
          // Recorded with the row: `svc runs show` names whom each row enrolled, where a
          // sequence state's id alone said nothing (a trial).
          if (!item.outcome && item.prospectId !== undefined) {
            const relationships = { prospect: String(item.prospectId), sequence: String(src.sequenceId), mailbox: String(mailboxId) };
            item.image = { op: 'enroll', type: 'sequenceState', after: { attributes: {}, relationships } };
          }
          list.push(item);
        }
      } catch (err) {
        if (err instanceof Stopped)
          throw new InterruptedError('interrupted before the first enrolment').hint('nothing was enrolled: run the same command again');
        throw err;
      }
      refuseFailing(ctx, src, setup.strict, list, scan.total);
      const plan = summarize(list, enrolled);
      showFailing(ctx, list);
      for (const line of summaryLines({
        sequenceId: src.sequenceId,
        sequence,
        hasSteps,
        mailboxId,
        mailbox,
        total: scan.total,
        plan,
        ...(mask ? { shown: (v: string) => mask.shown(v) } : {}),
      }))
        ctx.info(line);
      if (ctx.globals.dryRun) {
        await printPlan(ctx, session!, list, enrolled, src.sequenceId, mailboxId);
        return false;
      }
      if (plan.toEnroll > 0 && !ctx.globals.yes && mayPrompt(ctx)) {
        // Into a sequence that sends nothing the summary says so, and the question defaults to no.
        const idle = idleSequence(sequence, hasSteps) !== undefined;
        const ok = await (await ctx.prompter()).confirm(`Enroll ${grouped(plan.toEnroll)} prospect(s)${idle ? ' anyway' : ''}?`, !idle);
        if (!ok) {
          ctx.info('nothing was enrolled');
          return false;
        }
      }
      return true;
    },
    items: () => fromList(list),
    perform: (writes) => enrollPerformer({ sequenceId: src.sequenceId, mailboxId, enrolled, ...writes }),
  });
}

/** Unknown `--prospect` ids a refusal names; the rest are counted. */
const IDS_SHOWN = 10;

/** Rows whose reasons a `--strict` refusal gives, as the first pass gives its invalid rows. */
const STRICT_SHOWN = 20;

/**
 * Stops the run before anything is sent when rows are known to fail: an id given with
 * `--prospect` that no prospect has, as a malformed one is (the summary promised its enrolment
 * and the run enrolled the others before the server refused it, a trial), and with `--strict`
 * every row the lookups found failing (an id or address no prospect has, an address several have).
 * @throws UsageError (exit 2)
 */
function refuseFailing(ctx: Context, src: EnrollSource, strict: boolean, list: readonly EnrollItem[], total: number): void {
  if (src.prospects) {
    const unknown = [...new Set(list.filter((item) => item.unknownId).map((item) => String(item.prospectId)))];
    if (unknown.length > 0) {
      const one = unknown.length === 1;
      const more = unknown.length - IDS_SHOWN;
      const ids = unknown.slice(0, IDS_SHOWN).join(', ') + (more > 0 ? ` and ${grouped(more)} more` : '');
      const them = one ? 'it' : 'them';
      throw new UsageError(`--prospect ${ids}: no prospect has ${one ? 'this id' : 'these ids'}; nothing was enrolled`).hint(
        `leave ${them} out or correct ${them}; ${svcAgain(ctx)} prospects list --filter emails=ADDRESS finds the id of a prospect`,
      );
    }
  }
  if (!strict) return;
  const failing = list.filter((item) => item.outcome?.status === 'failed');
  if (failing.length === 0) return;
  for (const item of failing.slice(0, STRICT_SHOWN)) ctx.info(ctx.redact(`row ${item.row}: ${item.outcome!.error ?? ''}`));
  const more = failing.length - STRICT_SHOWN;
  if (more > 0) ctx.info(`… and ${grouped(more)} more ${plural(more, 'row')} that would fail`);
  throw new UsageError(
    `${grouped(failing.length)} of ${grouped(total)} ${plural(total, 'row')} would fail; nothing was enrolled (--strict)`,
  ).hint('correct or remove these rows, or leave out --strict to enroll the others (these rows are then reported failed)');
}

/** Rows whose reasons the summary gives before asking; the rest are said as the run meets them. */
const FAILING_SHOWN = 5;

/**
 * The reasons of the rows that will fail, known from the lookups (an address no prospect has, or
 * several have), said before the summary and its question rather than only after "yes" (a trial:
 * "failing checks: 4" and no why). Invalid rows were said by the first pass already. Each is
 * said once: those said here are marked shown for the run.
 */
function showFailing(ctx: Context, list: readonly EnrollItem[]): void {
  const failing = list.filter((item) => item.outcome?.status === 'failed' && !item.outcome.shown);
  for (const item of failing.slice(0, FAILING_SHOWN)) {
    ctx.info(ctx.redact(`row ${item.row}: failed: ${item.outcome!.error ?? ''}`));
    item.outcome!.shown = true;
  }
  const more = failing.length - FAILING_SHOWN;
  if (more > 0) ctx.info(`… and ${grouped(more)} more ${plural(more, 'row')} that will fail`);
}

/** `--dry-run`: what each row would do, after the read-only lookups (no enrolment is sent). */
async function printPlan(
  ctx: Context,
  session: BulkSession,
  work: Iterable<EnrollItem>,
  enrolled: Map<number | string, number | string>,
  sequenceId: number | string,
  mailboxId: number | string,
): Promise<number> {
  const url = session.client.resolve('sequenceStates').toString();
  const seen = new Set<number | string>();
  let send = 0;
  let other = 0;
  for (const item of work) {
    const line: Record<string, unknown> = { row: item.row };
    if (item.prospectId !== undefined) line.prospect = item.prospectId;
    if (item.email) line.email = item.email;
    if (item.outcome) {
      Object.assign(
        line,
        { status: item.outcome.status, id: item.outcome.id ?? null, error: item.outcome.error ?? null },
        item.outcome.extra,
      );
      other++;
    } else if (enrolled.has(item.prospectId!) || seen.has(item.prospectId!)) {
      Object.assign(line, {
        status: 'skipped',
        id: enrolled.get(item.prospectId!) ?? null,
        reason: enrolled.has(item.prospectId!) ? 'already in the sequence' : 'duplicate row',
      });
      other++;
    } else {
      seen.add(item.prospectId!);
      Object.assign(line, { method: 'POST', url, body: enrolmentBody(item.prospectId!, sequenceId, mailboxId) });
      send++;
    }
    await printLine(ctx, line);
  }
  ctx.info(`dry run: would enroll ${send} prospect(s); ${other} row(s) skipped or failing; no enrolment was sent (only lookups)`);
  return send;
}

/** The attributes of a single-resource answer. */
function attributesOf(res: { doc: { data?: unknown } }): Record<string, unknown> {
  const d = res.doc.data as { attributes?: Record<string, unknown> } | null | undefined;
  return d?.attributes ?? {};
}

/** Hands the held rows to the pool, letting each go once taken. */
async function* fromList(list: EnrollItem[]): AsyncGenerator<EnrollItem> {
  for (let i = 0; i < list.length; i++) {
    const item = list[i]!;
    (list as (EnrollItem | undefined)[])[i] = undefined;
    yield item;
  }
}
