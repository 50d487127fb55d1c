/**
 * The creates of a run that may have been done though no answer said so — the run was stopped or
 * killed after the request left, or the create was `unknown` at the end of its settle window —
 * looked up by the undo before it plans them, as a rerun's settle lookup does (bulk/rows/lookup.ts):
 * by the row's own fields (a prospect's e-mail address and names, an enrolment's prospect,
 * sequence and mailbox), from ten minutes before the run started, leaving out the records the
 * run's other rows, this undo and the other runs in the org made. One record found is the row's,
 * taken back like any the run created; none: the create was not done, nothing to undo; several:
 * not guessed at. A row with nothing to look it up by stays `cannot`, to check by hand (undo-rows.ts).
 *
 * Like a rerun, the undo looks no sooner than the settle window after the run's last write (the
 * record's time): a create whose answer was lost may still be carried out meanwhile.
 */
import fs from 'node:fs';
import { findCreated, IdSet, lookupQuery, SKEW_MS } from '../../bulk/rows/lookup.js';
import { undoBlocker } from '../../bulk/rows/undo-reach.js';
import type { JournalState } from '../../bulk/run/journal.js';
import { Stopped } from '../../bulk/run/requester.js';
import { listRunIds, peekRunMeta, readRunRecord, type RecordedRow, type RunRecord } from '../../bulk/run/run-record.js';
import type { SideOwner } from '../../bulk/run/side-owner.js';
import { resourceByType } from '../../registry/index.js';
import type { Context } from '../../runtime/context.js';
import type { BulkSession } from '../bulk-run/session.js';
import { interruptedBeforeRows } from '../shared/org-owner.js';
import { DONE, inDoubt, writeData, type LookedUp } from './undo-rows.js';

/** What a lookup needs of the undo. */
interface LookupOptions {
  session: BulkSession;
  /** The runs directory (the other runs' records). */
  dir: string;
  rec: RunRecord;
  journal: JournalState;
  /** The settle window (`--settle`), ms. */
  windowMs: number;
  /** Whether a run was made in the org of the run undone. */
  sameOrg: (owner: SideOwner) => boolean;
}

/** The creates in doubt among `rows`, looked up: key → verdict, and the requests it took. */
export async function lookUpInDoubt(
  ctx: Context,
  rows: RecordedRow[],
  o: LookupOptions,
): Promise<{ verdicts: Map<string, LookedUp>; requests: number }> {
  const verdicts = new Map<string, LookedUp>();
  const doubt = rows.filter((r) => inDoubt(r) && !DONE.has(o.journal.entries.get(r.row.key)?.status ?? '') && !undoBlocker(r.row));
  if (doubt.length === 0) return { verdicts, requests: 0 };
  const since = Date.parse(o.rec.meta.at);
  const claimed = claimedIds(o);
  let requests = 0;
  try {
    await settled(ctx, o, doubt.length);
    for (const { row } of doubt) {
      const rt = resourceByType(row.type)!;
      const pairs = lookupQuery(rt, writeData(rt, row.after ?? { attributes: {}, relationships: {} }), since);
      if (!pairs) {
        verdicts.set(row.key, { noKey: true });
        continue;
      }
      const by = pairs.map(([k]) => /^filter\[(\w+)\]/.exec(k)?.[1]).filter((k): k is string => k !== undefined && k !== 'createdAt');
      requests++;
      const mine = claimedOf(claimed, rt.type);
      const r = await findCreated(o.session.requester, rt, pairs, mine);
      if ('found' in r) {
        // Two rows alike (the same address twice in the input): one record is one row's.
        mine.add(r.found);
        verdicts.set(row.key, { found: String(r.found), by });
      } else if ('none' in r) verdicts.set(row.key, { none: true, by });
      else verdicts.set(row.key, { ambiguous: r.ambiguous.map(String), by });
    }
  } catch (err) {
    if (err instanceof Stopped) throw interruptedBeforeRows();
    throw err;
  }
  return { verdicts, requests };
}

/** Waits out the settle window after the run's last write (its record's time), saying so. */
async function settled(ctx: Context, o: LookupOptions, rows: number): Promise<void> {
  let last: number;
  try {
    last = fs.statSync(o.rec.file).mtimeMs;
  } catch {
    last = ctx.clock.now();
  }
  const wait = Math.ceil(last + o.windowMs - ctx.clock.now());
  if (wait <= 0) return;
  ctx.info(
    `${rows} create(s) of the run may have been done without an answer: looked up once the settle window after its last write is over, in ${Math.ceil(wait / 1000)} s (--settle 0 looks at once)`,
  );
  await ctx.clock.sleep(wait, ctx.signal);
  if (ctx.signal.aborted) throw new Stopped();
}

/** The ids of one type in `claimed` (ids of different types are different records). */
function claimedOf(claimed: Map<string, IdSet>, type: string): IdSet {
  let ids = claimed.get(type);
  if (!ids) claimed.set(type, (ids = new IdSet()));
  return ids;
}

/**
 * Ids no row in doubt may take, by type: those the run's rows made, those this undo made (its
 * journal), and those the other runs made in the org since shortly before this one started (a
 * rerun with a new journal made the row's record: it is that run's, not this one's).
 */
function claimedIds(o: LookupOptions): Map<string, IdSet> {
  const claimed = new Map<string, IdSet>();
  const made = (rec: RunRecord) => {
    for (const { row, done } of rec.rows.values())
      if ((row.op === 'create' || row.op === 'enroll') && done?.id !== undefined && done.id !== null)
        claimedOf(claimed, row.type).add(done.id);
  };
  made(o.rec);
  // This undo's own creates: the records it re-created (the journal says of which row).
  for (const [key, e] of o.journal.entries) {
    const row = o.rec.rows.get(key)?.row;
    if (row && e.id !== undefined && e.id !== null) claimedOf(claimed, row.type).add(e.id);
  }
  const from = Date.parse(o.rec.meta.at) - SKEW_MS;
  for (const id of listRunIds(o.dir)) {
    if (id === o.rec.meta.id) continue;
    // The first line picks the records to read whole (and check).
    const meta = peekRunMeta(o.dir, id);
    if (!meta || !(Date.parse(meta.at) >= from) || !o.sameOrg(meta.owner)) continue;
    try {
      made(readRunRecord(o.dir, id));
    } catch {
      // A record that fails its check claims nothing: `runs list` says it is broken.
    }
  }
  return claimed;
}
