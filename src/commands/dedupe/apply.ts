/**
 * `svc dedupe apply FILE`: a merge plan carried out as one bulk run — the skeleton of every bulk
 * run (bulk-run/run.ts: journal, resume after a kill, `--plan` with the request bill, report,
 * exit codes) filled in with clusters. A cluster is a row; its steps are done in order, each
 * journaled on its own (`<cluster>/<step>`: `pending` as it leaves, then done), so that a rerun
 * after a kill does every step once and goes on where the run stopped:
 *
 * 1. `fill`: PATCH the survivor with the plan's `fill` values;
 * 2. per duplicate, `move:<type>:<id>`: PATCH each linked record (e-mail addresses, phone numbers,
 *    tasks, opportunity roles; an account's prospects) to point at the survivor — those of the
 *    plan, then those linked to the duplicate since the mirror (listed now, one request a type);
 * 3. per duplicate, `finish:<state>`: its active sequence states, read again, finished
 *    (`POST /sequenceStates/{id}/actions/finish`);
 * 4. per duplicate, `delete:<id>` (or `tag:<id>` with `--tag-only`: tagged `duplicate-of-<survivor>`).
 *
 * Every step is idempotent (the same PATCH twice is one change; a record already deleted, an
 * enrolment already finished, a linked record gone are done), so the one step a kill can leave
 * in doubt is sent again on the rerun without harm.
 *
 * Before the first write, the records of every cluster not yet started are read again: a cluster
 * with a record changed since the mirror read it (`updatedAt` differs) or gone is left out and
 * reported, as is one whose records have different owners (unless `--across-owners`).
 */
import fs from 'node:fs';
import { confirmOrYes } from '../shared/confirm.js';
import { encodeQuery } from '../../api/query.js';
import { apiTime } from '../../api-time.js';
import type { Outcome, WorkItem } from '../../bulk/run/engine.js';
import { isFatal } from '../../bulk/run/engine.js';
import type { JournalState } from '../../bulk/run/journal.js';
import { AnswerLost, pagedClient, Stopped, type Requester } from '../../bulk/run/requester.js';
import { ApiError, InterruptedError, NetworkError, UsageError } from '../../errors.js';
import { unreadableFile } from '../../unreadable-file.js';
import { writeOut } from '../../output/io.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { paginate } from '../../api/paginate.js';
import { bulkRun } from '../bulk-run/run.js';
import { printPlan, refuseRunOutput } from '../shared/output.js';
import { bulkSetup, loadJournal, readThrough, runOwnerOf, type BulkSession, type SessionWrites } from '../bulk-run/session.js';
import { ownerApi } from '../shared/org-owner.js';
import type { SideOwner } from '../../bulk/run/side-owner.js';
import { othersMayWrite } from '../../private-file.js';
import type { ApplyFlags } from './flags.js';
import type { MergePlan, PlanCluster } from './plan.js';
import type { FieldValues, RunRecord, RunRecordWriter } from '../../bulk/run/run-record.js';
import { imageOf } from '../../bulk/rows/run-recorder.js';
import { resourceByType } from '../../registry/index.js';
import { recordStep, type StepImage } from './apply-record.js';
import { previewLines, type ClusterPreview } from './apply-preview.js';
import { grouped } from '../../grouped.js';

/** The API path of each type a merge writes. */
const PATHS: Record<string, string> = {
  prospect: 'prospects',
  account: 'accounts',
  emailAddress: 'emailAddresses',
  phoneNumber: 'phoneNumbers',
  task: 'tasks',
  opportunityProspectRole: 'opportunityProspectRoles',
};

/** One step of a cluster's merge. */
interface Step {
  key: string;
  method: 'PATCH' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  /** Done when the API answers 404 (the record is gone) or 422 (an enrolment no longer active). */
  goneIsDone: boolean;
  /** Its before-image for `svc runs undo`, when known without a read (a tag: the tags just read). */
  image?: StepImage;
}

/** The run's record, and the unfinished run's it continues (whose steps keep their first image). */
interface StepRecord {
  writer: RunRecordWriter;
  had: RunRecord | undefined;
}

/** A cluster for the workers. */
interface ClusterItem extends WorkItem {
  cluster: PlanCluster;
  /** An earlier run did some of its steps: its records' `updatedAt` are this run's own doing. */
  started: boolean;
}

/**
 * A plan made from the mirror of another org (another profile's, the sandbox beside a real one)
 * names other records by the same ids: its writes would merge strangers. Refused in one line
 * before any record is read; the `updatedAt` check caught it only by luck, and reported every
 * cluster as "changed since the mirror read them" (a trial).
 */
function refuseOtherOrg(ctx: Context, file: string, plan: MergePlan, owner: SideOwner): void {
  const made = plan.org;
  // The mirror's identity as `svc sync` wrote it (commands/sync/mirror-file.ts): the same owner read.
  const here = { baseUrl: ownerApi(owner), id: owner.org ?? '', name: owner.orgName ?? '' };
  if (!made || (made.baseUrl === here.baseUrl && made.id === here.id)) return;
  const org = (o: typeof here) => `org "${o.name || o.id}"${o.name && o.id ? ` (${o.id})` : ''} at ${o.baseUrl}`;
  throw new UsageError(
    `${file} was made from a mirror of ${org(made)}, not ${org(here)}: its ids are that org's; nothing was written`,
  ).hint(
    `run the plan with the profile it was made with, or make one for this org: ${svcAgain(ctx)} sync, then ${svcAgain(ctx)} dedupe ${plan.type}s --plan FILE`,
  );
}

/** Reads and checks the plan file; `svc` is how hints write svc (runtime/svc-again.ts). */
function readPlan(file: string, svc: string): MergePlan {
  let text: string;
  let st: fs.Stats;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      st = fs.fstatSync(fd);
      text = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    throw unreadableFile('plan', file, err, `make one with ${svc} dedupe prospects --plan FILE (or accounts)`);
  }
  // Another user who may write the plan could swap a survivor for its duplicate or add strangers
  // to a cluster: apply would delete whom they chose (svc writes plans 0600).
  // A colleague's plan (another owner) is theirs to hand on: only who may write it counts.
  if (othersMayWrite(st))
    throw new UsageError(
      `${file}: others may write it (mode ${(st.mode & 0o777).toString(8)}): a plan apply carries out must be yours alone`,
    ).hint(`check it has not been changed, then chmod 600 ${file}`);
  let plan: MergePlan;
  try {
    plan = JSON.parse(text) as MergePlan;
  } catch (err) {
    throw new UsageError(`${file}: not JSON (${(err as Error).message})`).hint(
      `make the plan again with ${svc} dedupe prospects --plan FILE`,
    );
  }
  if (
    plan?.plan !== 'svc dedupe' ||
    plan.version !== 1 ||
    (plan.type !== 'prospect' && plan.type !== 'account') ||
    !Array.isArray(plan.clusters)
  )
    throw new UsageError(`${file}: not a merge plan of svc dedupe (version 1)`).hint(`make one with ${svc} dedupe prospects --plan FILE`);
  const seen = new Map<number, number>();
  for (const [i, c] of plan.clusters.entries()) checkCluster(c, i, file, seen);
  return plan;
}

const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

/** One cluster of an edited plan: ids, each record in one cluster only, moves of types apply moves. */
function checkCluster(c: PlanCluster, i: number, file: string, seen: Map<number, number>): void {
  const where = `${file}: cluster ${c?.cluster ?? i + 1}`;
  if (!c || !isId(c.survivor?.id) || !Array.isArray(c.duplicates))
    throw new UsageError(`${where}: needs survivor.id and a duplicates list`);
  c.fill ??= {};
  if (typeof c.fill !== 'object' || Array.isArray(c.fill)) throw new UsageError(`${where}: fill must be an object`);
  for (const m of [c.survivor, ...c.duplicates]) {
    if (!isId(m?.id)) throw new UsageError(`${where}: a duplicate without a valid id`);
    if (seen.has(m.id))
      throw new UsageError(`${where}: record ${m.id} is also in cluster ${seen.get(m.id)}`).hint('a record may be in one cluster only');
    seen.set(m.id, c.cluster ?? i + 1);
    m.updatedAt ??= null;
  }
  for (const d of c.duplicates) {
    d.move ??= {};
    const bad = Object.entries(d.move).find(([t, ids]) => !PATHS[t] || !Array.isArray(ids) || !ids.every(isId));
    if (bad) throw new UsageError(`${where}: duplicate ${d.id}: move.${bad[0]}: not a list of ids of a type apply moves`);
  }
}

/** The fixed steps of a cluster (the finishes of enrolments are read at run time). */
function steps(plan: MergePlan, c: PlanCluster): { before: Step[]; perDuplicate: Map<number, Step[]> } {
  const path = PATHS[plan.type]!;
  const sid = c.survivor.id;
  const before: Step[] = [];
  const attributes = Object.fromEntries(Object.entries(c.fill).map(([k, v]) => [k, v?.value ?? null]));
  if (Object.keys(attributes).length)
    before.push({
      key: 'fill',
      method: 'PATCH',
      path: `${path}/${sid}`,
      body: { data: { type: plan.type, id: sid, attributes } },
      goneIsDone: false,
    });
  const perDuplicate = new Map<number, Step[]>();
  for (const d of c.duplicates)
    perDuplicate.set(
      d.id,
      Object.entries(d.move).flatMap(([t, ids]) => ids.map((id) => moveStep(plan.type, t, id, sid))),
    );
  return { before, perDuplicate };
}

/** Moving a linked record (`t` `id`) to the survivor: a PATCH of its relationship to the merged type. */
function moveStep(type: MergePlan['type'], t: string, id: number, sid: number): Step {
  const rel = type === 'account' ? 'account' : 'prospect';
  return {
    key: `move:${t}:${id}`,
    method: 'PATCH',
    path: `${PATHS[t]}/${id}`,
    body: { data: { type: t, id, relationships: { [rel]: { data: { type, id: sid } } } } },
    goneIsDone: true,
  };
}

/** The types linked to a merged record that move, and the relationship that links them. */
const LINKED: Record<MergePlan['type'], readonly string[]> = {
  prospect: ['emailAddress', 'phoneNumber', 'task', 'opportunityProspectRole'],
  account: ['prospect'],
};

/**
 * The records linked to a duplicate now, by type, beyond those of the plan: linked since the
 * mirror read them, they would otherwise lose their link when the duplicate is deleted. A type
 * the API does not let us list this way is left to the plan.
 */
async function linkedSince(
  r: Requester,
  type: MergePlan['type'],
  dupId: number,
  sid: number,
  planned: Record<string, number[]>,
): Promise<Step[]> {
  const out: Step[] = [];
  const rel = type === 'account' ? 'account' : 'prospect';
  for (const t of LINKED[type]) {
    let ids: number[];
    try {
      const query = encodeQuery([
        [`filter[${rel}][id]`, String(dupId)],
        ['page[limit]', '1000'],
        [`fields[${t}]`, ''],
      ]);
      const res = await r.send({ method: 'GET', path: PATHS[t]!, query }, 'read');
      ids = (Array.isArray(res.doc.data) ? res.doc.data : []).map((d) => Number(d.id));
    } catch (err) {
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 401 && err.status !== 429) continue;
      throw err;
    }
    for (const id of ids) if (!(planned[t] ?? []).includes(id)) out.push(moveStep(type, t, id, sid));
  }
  return out;
}

const DONE = new Set(['updated', 'deleted', 'created']);

/** Runs `svc dedupe apply FILE`. */
export async function applyHandler(ctx: Context, file: string, flags: ApplyFlags): Promise<void> {
  const planning = flags.plan === true || ctx.globals.dryRun;
  refuseRunOutput(ctx, `dedupe apply${planning ? ' --plan' : ''}`, planning, flags.report);
  const plan = readPlan(file, svcAgain(ctx));
  const path = PATHS[plan.type]!;
  const setup = bulkSetup({ ...flags, input: file }, `dedupe apply ${path}`, { sandbox: ctx.globals.sandbox, planning });
  const journal = await loadJournal(ctx, setup);
  const tagOnly = flags.tagOnly === true;
  const list: ClusterItem[] = plan.clusters.map((c, i) => item(plan, c, i + 1, journal, flags.acrossOwners === true));
  const bill = { clusters: 0, fills: 0, moves: 0, finishes: 0, deletes: 0, tags: 0, lookups: 0, requests: 0 };
  const label = `dedupe apply ${path}`;
  // A rerun continues the record of the run it finishes (killed, stopped, failed: the skeleton's
  // bulk-run/run-continue.ts finds it by the journal): one apply, one undo.
  await bulkRun(ctx, {
    setup,
    label,
    rows: `clusters of ${file}`,
    // A cluster is several writes: the summary counts clusters merged, then the writes as `svc runs list` does.
    rowsAre: { noun: 'cluster', done: 'merged', keyOf: (k) => k.split('/')[0]! },
    planInSession: true,
    // The journal is opened once the deletes are agreed to: a "no" or a refusal without --yes
    // left `<plan>.journal.ndjson` beside the plan though nothing was written.
    sideFilesAfterPlan: true,
    scan: async () => ({
      total: list.length,
      invalid: 0,
      blank: 0,
      problems: [],
    }),
    async plan(_scan, session) {
      try {
        if (plan.org) {
          // The run's owner read (made once a run): the org the plan's ids must be of.
          if (!setup.owner) bill.lookups++;
          refuseOtherOrg(ctx, file, plan, await runOwnerOf(ctx, setup, readThrough(session!.requester)));
        }
        bill.lookups += await checkCurrent(session!, plan, list);
      } catch (err) {
        if (err instanceof Stopped)
          throw new InterruptedError('interrupted before the first merge').hint('nothing was written: run the same command again');
        throw err;
      }
      const summary = `dedupe apply ${file}: ${leftOut(ctx, list)}`;
      countBill(bill, plan, list, journal, tagOnly);
      // Each fill, move and delete reads its record first, for its before-image (svc runs undo).
      bill.lookups += bill.fills + bill.moves + bill.deletes;
      bill.requests = bill.lookups + bill.fills + bill.moves + bill.finishes + bill.deletes + bill.tags;
      const billLine = `bill: ${grouped(bill.requests)} request(s): ${grouped(bill.lookups)} read(s), ${grouped(bill.fills)} fill(s), ${grouped(bill.moves)} move(s), ${grouped(bill.finishes)} enrolment(s) finished (as the mirror saw them), ${tagOnly ? `${grouped(bill.tags)} tag(s)` : `${grouped(bill.deletes)} delete(s)`}`;
      if (flags.plan || ctx.globals.dryRun) {
        ctx.info(`plan: ${summary}; nothing is written`);
        const previews = list.filter((it) => !it.outcome).map((it) => preview(plan, it, tagOnly, session!));
        // As every --plan: a line per cluster with -o ndjson, one document with -o json, and
        // otherwise (a terminal) lines to read; the bill on stderr in every case.
        if (!(await printPlan(ctx, ctx.output, previews, bill, 'clusters'))) {
          const root = session!.client.resolve('').toString();
          const lines = previewLines(plan.type, previews, root);
          if (lines.length) await writeOut(ctx.io.stdout, ctx.redact(lines.join('\n')) + '\n');
        }
        ctx.info(billLine);
        return false;
      }
      ctx.info(summary);
      ctx.info(billLine);
      return confirmDeletes(ctx, bill.deletes);
    },
    items: () => fromList(list),
    perform: (writes, record, continued) => performer(plan, journal, tagOnly, writes, record && { writer: record, had: continued }),
  });
}

/** Says each cluster left out and why; @returns the counts for the summary line. */
function leftOut(ctx: Context, list: ClusterItem[]): string {
  const left = { todo: 0, done: 0, owners: 0, changed: 0 };
  for (const it of list) {
    if (!it.outcome) {
      left.todo++;
      continue;
    }
    const why = String(it.outcome.extra?.['reason']);
    // A cluster merged by an earlier run is only counted: a line each drowned the summary of a
    // rerun after Ctrl-C (32 lines in a Paris trial; thousands for a large plan).
    if (why.startsWith('merged')) {
      left.done++;
      continue;
    }
    if (why.startsWith('owners')) left.owners++;
    else left.changed++;
    ctx.info(`cluster ${it.cluster.cluster} (survivor ${it.cluster.survivor.id}) left out: ${why}`);
  }
  return [
    `${grouped(left.todo)} cluster(s) to merge`,
    left.done ? `${grouped(left.done)} merged by an earlier run` : '',
    left.changed ? `${grouped(left.changed)} left out (changed since the mirror or gone)` : '',
    left.owners ? `${grouped(left.owners)} left out (owners differ: --across-owners)` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/** Deleting duplicates is asked on a terminal and needs --yes elsewhere, as every bulk delete (tagging is not). */
async function confirmDeletes(ctx: Context, deletes: number): Promise<boolean> {
  return (
    deletes === 0 ||
    confirmOrYes(ctx, {
      refuse: `delete ${deletes} duplicate(s)`,
      hints: ['preview with --plan, then run again with --yes (or --tag-only to tag the duplicates and keep them)'],
      question: `Merge, deleting ${grouped(deletes)} duplicate(s)?`,
      declined: 'nothing was written',
    })
  );
}

/** Adds the requests of the clusters to do (steps an earlier run did are not counted) to `bill`. */
function countBill(bill: Record<string, number>, plan: MergePlan, list: ClusterItem[], journal: JournalState, tagOnly: boolean): void {
  for (const it of list) {
    if (it.outcome) continue;
    bill.clusters!++;
    const s = steps(plan, it.cluster);
    const todo = (k: string) => !DONE.has(journal.entries.get(`${it.key}/${k}`)?.status ?? '');
    bill.fills! += s.before.filter((x) => todo(x.key)).length;
    for (const d of it.cluster.duplicates) {
      bill.moves! += s.perDuplicate.get(d.id)!.filter((x) => todo(x.key)).length;
      // Records linked to the duplicate since the mirror: one list request per linked type.
      bill.lookups! += LINKED[plan.type].length;
      if (plan.type === 'prospect') {
        bill.lookups!++;
        bill.finishes! += (d.finish ?? []).filter((f) => todo(`finish:${f}`)).length;
      }
      const last = tagOnly ? `tag:${d.id}` : `delete:${d.id}`;
      if (!todo(last)) continue;
      if (tagOnly) {
        bill.tags!++;
        bill.lookups!++;
      } else bill.deletes!++;
    }
  }
}

/** A cluster as a row: decided at once when an earlier run merged it or its owners differ. */
function item(plan: MergePlan, c: PlanCluster, row: number, journal: JournalState, acrossOwners: boolean): ClusterItem {
  const key = `${plan.type}:${c.survivor.id}`;
  const it: ClusterItem = { row, key, cluster: c, started: false };
  const done = journal.entries.get(key);
  if (done && DONE.has(done.status)) {
    it.outcome = { status: 'skipped', id: c.survivor.id, extra: { reason: 'merged by an earlier run (journal)' } };
    return it;
  }
  for (const k of journal.entries.keys()) if (k.startsWith(`${key}/`)) it.started = true;
  const owners = new Set([c.survivor, ...c.duplicates].map((m) => m.ownerId ?? null));
  if (owners.size > 1 && !acrossOwners && !it.started)
    it.outcome = {
      status: 'skipped',
      id: c.survivor.id,
      extra: { reason: `owners differ (${[...owners].join(', ')}): give --across-owners to merge them` },
    };
  return it;
}

/** Reads every record of the clusters not yet started; leaves out those changed or gone. @returns requests sent */
async function checkCurrent(session: BulkSession, plan: MergePlan, list: ClusterItem[]): Promise<number> {
  const ids = new Set<number>();
  for (const it of list) if (!it.outcome && !it.started) for (const m of [it.cluster.survivor, ...it.cluster.duplicates]) ids.add(m.id);
  const { now, requests } = await updatedAtNow(session, plan.type, [...ids]);
  for (const it of list) {
    if (it.outcome || it.started) continue;
    const members = [it.cluster.survivor, ...it.cluster.duplicates];
    const gone = members.filter((m) => !now.has(m.id)).map((m) => m.id);
    const changed = members.filter((m) => now.has(m.id) && !sameInstant(now.get(m.id)!, m.updatedAt)).map((m) => m.id);
    const reason = [
      changed.length ? `changed since the mirror read them: ${changed.join(', ')}` : '',
      gone.length ? `gone: ${gone.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    if (reason) it.outcome = { status: 'skipped', id: it.cluster.survivor.id, extra: { reason } };
  }
  return requests;
}

/**
 * Whether two `updatedAt`s are one instant: a mirror on PostgreSQL gives back a `timestamptz` in
 * its own spelling (`…T10:00:00Z` for the API's `…T10:00:00`, which is UTC without a zone).
 */
function sameInstant(a: string | null, b: string | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const t = apiTime(a);
  return !Number.isNaN(t) && t === apiTime(b);
}

/** The `updatedAt` of each record of `ids` now (a record that is gone is not in the map), read 100 at a time. */
async function updatedAtNow(
  session: BulkSession,
  type: MergePlan['type'],
  ids: number[],
): Promise<{ now: Map<number, string | null>; requests: number }> {
  const now = new Map<number, string | null>();
  let requests = 0;
  const client = pagedClient(session.requester, session.client);
  for (let i = 0; i < ids.length; i += 100) {
    const extra: [string, string][] = [['filter[id]', ids.slice(i, i + 100).join(',')]];
    // Only named accounts are in the index unless asked for both.
    if (type === 'account') extra.push(['filter[named]', 'true,false']);
    for await (const page of paginate(client, PATHS[type]!, {
      query: { extra, fields: { [type]: ['updatedAt'] } },
      all: true,
      pageSize: 100,
    })) {
      requests++;
      for (const r of page.records) now.set(Number(r.id), (r.attributes?.['updatedAt'] as string | null | undefined) ?? null);
    }
  }
  return { now, requests };
}

/** What `--plan` prints for a cluster: the requests it would send. */
function preview(plan: MergePlan, it: ClusterItem, tagOnly: boolean, session: BulkSession): ClusterPreview {
  const s = steps(plan, it.cluster);
  const url = (p: string) => session.client.resolve(p).toString();
  const req = (x: Step) => ({ step: x.key, method: x.method, url: url(x.path), ...(x.body ? { body: x.body } : {}) });
  const out: ClusterPreview['requests'] = s.before.map(req);
  for (const d of it.cluster.duplicates) {
    out.push(...s.perDuplicate.get(d.id)!.map(req));
    for (const f of d.finish ?? [])
      out.push({ step: `finish:${f}`, method: 'POST', url: url(`sequenceStates/${f}/actions/finish`), note: 'if still active' });
    out.push(
      tagOnly
        ? {
            step: `tag:${d.id}`,
            method: 'PATCH',
            url: url(`${PATHS[plan.type]}/${d.id}`),
            note: `tags + duplicate-of-${it.cluster.survivor.id}`,
          }
        : { step: `delete:${d.id}`, method: 'DELETE', url: url(`${PATHS[plan.type]}/${d.id}`) },
    );
  }
  return {
    cluster: it.cluster.cluster,
    survivor: it.cluster.survivor.id,
    duplicates: it.cluster.duplicates.map((d) => d.id),
    requests: out,
  };
}

/** Sends a step's request; a POST (an action) as a write that may not be repeated blindly. */
function sendStep(r: Requester, x: Step, beforeSend: () => void) {
  return r.send({ method: x.method, path: x.path, ...(x.body ? { body: x.body } : {}) }, x.method === 'POST' ? 'create' : 'idempotent', {
    beforeSend,
  });
}

/**
 * Does the steps of one cluster: each unless an earlier run recorded it done, journaled pending
 * as it leaves and done (or failed) after; a step whose record is gone is done.
 */
function stepper(journal: JournalState, w: SessionWrites, it: ClusterItem, record: StepRecord | undefined) {
  const counts = { sent: 0 };
  const run = async (x: Step): Promise<void> => {
    const k = `${it.key}/${x.key}`;
    const before = journal.entries.get(k)?.status;
    if (before && DONE.has(before)) return;
    // Each step is a row of the run's record (svc runs undo), its before-image written before it leaves.
    // A step the unfinished run recorded keeps its image (read before its first attempt, not now).
    const done = record ? await recordStep(record.writer, w.requester, { row: it.row, key: k }, x, record.had?.rows.get(k)) : () => {};
    try {
      await sendStep(w.requester, x, () => w.journal?.write({ key: k, row: it.row, status: 'pending' }));
      counts.sent++;
    } catch (err) {
      stepFailed(err, x, w, { key: k, row: it.row }, done);
    }
    w.journal?.write({ key: k, row: it.row, status: x.method === 'DELETE' ? 'deleted' : 'updated' });
    done(x.method === 'DELETE' ? 'deleted' : 'updated');
  };
  return { run, counts };
}

/**
 * A step's error: returns when it means the step is done (its record gone, an enrolment no longer
 * active); otherwise journals and records it failed (unknown when the answer was lost) and throws.
 */
function stepFailed(
  err: unknown,
  x: Step,
  w: SessionWrites,
  at: { key: string; row: number },
  done: (s: string, e?: string) => void,
): void {
  const gone = err instanceof ApiError && (err.status === 404 || (err.status === 422 && x.method === 'POST'));
  if (gone && x.goneIsDone) return;
  if (err instanceof ApiError || err instanceof NetworkError || err instanceof AnswerLost) {
    w.journal?.write({ ...at, status: 'failed', error: w.describe(err).error });
    done(err instanceof AnswerLost ? 'unknown' : 'failed', w.describe(err).error);
  }
  throw err;
}

/** After its linked records moved: a duplicate's active enrolments finished, then it is deleted or tagged. */
async function retire(plan: MergePlan, w: SessionWrites, run: (x: Step) => Promise<void>, dupId: number, sid: number, tagOnly: boolean) {
  const path = PATHS[plan.type]!;
  if (plan.type === 'prospect')
    for (const { id, whose } of await activeStatesOf(w.requester, dupId))
      await run({
        key: `finish:${id}`,
        method: 'POST',
        path: `sequenceStates/${id}/actions/finish`,
        goneIsDone: true,
        // Whose enrolment it is, kept in the record: the delete that follows takes the state with
        // the prospect, and the undo, which re-creates the prospect, names the enroll that puts it
        // back (`runs undo`: "To enrol … again"); it named STATE-ID and a state that was gone.
        image: { op: 'finish', type: 'sequenceState', id: String(id), before: whose },
      });
  if (!tagOnly) return run({ key: `delete:${dupId}`, method: 'DELETE', path: `${path}/${dupId}`, goneIsDone: true });
  const had = await currentTags(w.requester, path, dupId);
  const tag = `duplicate-of-${sid}`;
  if (had === undefined) return;
  const tags = had ?? [];
  if (tags.includes(tag)) return;
  await run({
    key: `tag:${dupId}`,
    method: 'PATCH',
    path: `${path}/${dupId}`,
    body: { data: { type: plan.type, id: dupId, attributes: { tags: [...tags, tag] } } },
    goneIsDone: true,
    image: {
      op: 'update',
      type: plan.type,
      id: String(dupId),
      before: { attributes: { tags: had }, relationships: {} },
      after: { attributes: { tags: [...tags, tag] }, relationships: {} },
    },
  });
}

/** The outcome of a cluster stopped by a step's error (a fatal error or Ctrl-C stops the run instead). */
function stepFailure(err: unknown, w: SessionWrites, sid: number, extra: Record<string, unknown>): Outcome {
  if (err instanceof Stopped || isFatal(err)) throw err;
  if (err instanceof AnswerLost)
    return {
      status: 'unknown',
      id: sid,
      error: `${err.message}: a step's answer was lost; run the same command again to finish the cluster (every step is safe to repeat)`,
      extra,
    };
  if (!(err instanceof ApiError || err instanceof NetworkError)) throw err;
  return { status: 'failed', id: sid, error: w.describe(err).error, extra };
}

/** The function the workers call for each cluster: survivor filled, then per duplicate its links moved and it retired. */
function performer(
  plan: MergePlan,
  journal: JournalState,
  tagOnly: boolean,
  w: SessionWrites,
  record: StepRecord | undefined,
): (it: ClusterItem) => Promise<Outcome> {
  return async (it) => {
    const c = it.cluster;
    const sid = c.survivor.id;
    const extra = { survivor: sid, duplicates: c.duplicates.map((d) => d.id) };
    const { run, counts } = stepper(journal, w, it, record);
    const s = steps(plan, c);
    try {
      for (const x of s.before) await run(x);
      for (const d of c.duplicates) {
        for (const x of s.perDuplicate.get(d.id)!) await run(x);
        for (const x of await linkedSince(w.requester, plan.type, d.id, sid, d.move)) await run(x);
        await retire(plan, w, run, d.id, sid, tagOnly);
      }
    } catch (err) {
      return stepFailure(err, w, sid, extra);
    }
    return { status: 'updated', id: sid, extra: { ...extra, requests: counts.sent, ...(tagOnly ? { tagged: true } : { deleted: true }) } };
  };
}

/** Of a sequence state, the ids the undo's way to enrol again names. */
const WHOSE: FieldValues = { attributes: {}, relationships: { prospect: null, sequence: null, mailbox: null } };

/** The active sequence states of a prospect, read now (the mirror's may be old), with their prospect, sequence and mailbox ids. */
async function activeStatesOf(r: Requester, prospectId: number): Promise<{ id: number; whose: FieldValues }[]> {
  const query = encodeQuery([
    ['filter[prospect][id]', String(prospectId)],
    ['filter[state]', 'active'],
    ['page[limit]', '100'],
    ['fields[sequenceState]', `state,${Object.keys(WHOSE.relationships).join(',')}`],
  ]);
  const res = await r.send({ method: 'GET', path: 'sequenceStates', query }, 'read');
  const data = Array.isArray(res.doc.data) ? res.doc.data : [];
  return data.map((d) => ({ id: Number(d.id), whose: imageOf(d, resourceByType('sequenceState'), WHOSE) }));
}

/** A record's tags now (null when it has none: kept as such for an undo); undefined when it is gone. */
async function currentTags(r: Requester, path: string, id: number): Promise<string[] | null | undefined> {
  try {
    const res = await r.send(
      { method: 'GET', path: `${path}/${id}`, query: encodeQuery([[`fields[${path === 'accounts' ? 'account' : 'prospect'}]`, 'tags']]) },
      'read',
    );
    const d = res.doc.data as { attributes?: { tags?: unknown } } | null;
    return Array.isArray(d?.attributes?.tags) ? (d.attributes.tags as string[]) : null;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

/** Hands the held clusters to the pool. */
async function* fromList(list: ClusterItem[]): AsyncGenerator<ClusterItem> {
  for (const it of list) yield it;
}
