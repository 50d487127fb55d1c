/**
 * `svc <resource> upsert --input F --match ATTR` and `update --input F --match ATTR`: the bulk
 * skeleton (run.ts) filled in with rows matched to records by one attribute in batches, then
 * created, updated with the fields that differ, or left alone, through the same exactly-once
 * machinery as every bulk run (journal, resume, settle window, lookups). `--plan` (and
 * `--dry-run`) prints the field-level diff and the bill instead.
 */
import { claimedIds, scanInput } from '../../bulk/rows/resource-plan.js';
import { resourcePerformer } from '../../bulk/rows/resource-perform.js';
import { pagedClient } from '../../bulk/run/requester.js';
import {
  keyedItems,
  keyedLookup,
  keyedPreparer,
  matchAttribute,
  type KeyedInput,
  type KeyedItem,
  type KeyMode,
} from '../../bulk/rows/upsert-rows.js';
import type { Context } from '../../runtime/context.js';
import { PartialError, UsageError } from '../../errors.js';
import type { ResourceType } from '../../registry/index.js';
import { bulkSetup, type BulkFlags } from './session.js';
import { noteScan, readResourceInput, runSummary } from './resource-input.js';
import { heldOptInNote, tallyHeld, type HeldTally } from '../../bulk/rows/consent.js';
import { resolveNames } from './row-rel-names.js';
import { planIsText, printKeyedPlan } from './upsert-plan.js';
import { bulkRun } from './run.js';
import { refuseRunOutput } from '../shared/output.js';
import { grouped, plural } from '../../grouped.js';

/** Flags of a keyed run. */
export type KeyedFlags = BulkFlags & { input: string; match?: string; plan?: boolean; map?: string[]; whole?: boolean };

/** Runs an upsert, or an update matched by key. */
export async function keyedWriteHandler(ctx: Context, rt: ResourceType, mode: KeyMode, flags: KeyedFlags): Promise<void> {
  if (flags.match === undefined) throw new UsageError(`${rt.command} ${mode}: give --match ATTR, the attribute rows are matched by`);
  const planning = flags.plan === true || ctx.globals.dryRun;
  refuseRunOutput(ctx, `${rt.command} ${mode}${planning ? ' --plan' : ''}`, planning, flags.report);
  const match = matchAttribute(rt, flags.match);
  if (typeof match !== 'string') throw new UsageError(match.error);
  if (match === 'id' && mode === 'upsert')
    throw new UsageError(
      `${rt.command} upsert: --match id cannot create a missing record; use update --input F --match id, or match by an attribute`,
    );
  const setup = bulkSetup(flags, `${rt.command} ${mode}`, { sandbox: ctx.globals.sandbox, planning });
  // Read and checked as for create and update --input: every column resolved before anything is sent.
  const input: KeyedInput = {
    ...(await readResourceInput(ctx, rt, 'update', flags.input, setup, flags.map)),
    mode,
    match,
    ...(flags.whole ? { whole: true } : {}),
  };
  const label = `${rt.command} ${mode} by ${match}`;
  const nameLookups = await resolveNames(ctx, rt, input);
  let unchanged = 0;
  const kept: HeldTally = { rows: 0, fields: new Set() };
  const counted = async function* (items: AsyncIterable<KeyedItem>) {
    for await (const item of items) {
      if (item.plan === 'unchanged') unchanged++;
      tallyHeld(kept, item.keptOptOuts ?? []);
      yield item;
    }
  };

  await bulkRun(ctx, {
    setup,
    label,
    rows: `rows of ${flags.input}`,
    input: { file: flags.input, read: { format: input.format, dialect: input.dialect }, bareKey: 'id' },
    // The plan's text names every invalid row: on one terminal, stdout and stderr both show, and
    // each row's error showed twice (a trial).
    problemsInPlan: planning && planIsText(ctx) && ctx.io.stdoutIsTTY && ctx.io.stderrIsTTY,
    scan: () => scanInput(input, 20, keyedPreparer(input)),
    async plan(scan) {
      const summary = runSummary(setup, label, scan, 'match');
      noteScan(ctx, scan);
      if (planning) {
        ctx.info(`plan: ${summary}; nothing is written`);
        // The run also reads once whose org it writes to, for its journal (see shared/org-owner.ts).
        const bill = await printKeyedPlan(ctx, input, nameLookups + (setup.journalPath ? 1 : 0));
        // A plan ends as its run would: exit 5 when rows would fail (it exited 0, and the run
        // right after it 5: a trial). --dry-run only shows, exit 0 (the contract of --dry-run).
        const failing = bill.failed + bill.ambiguous;
        if (flags.plan && !ctx.globals.dryRun && failing > 0)
          throw new PartialError(
            `${grouped(failing)} of ${grouped(scan.total)} ${plural(scan.total, 'row')} would fail (${grouped(bill.failed)} failed, ${grouped(bill.ambiguous)} ambiguous): the run would ${failing < scan.total ? 'do the others and ' : ''}exit 5; nothing was written`,
          ).hint(`the plan names each row and why: fix them in ${flags.input} and plan again`);
        return false;
      }
      ctx.info(summary);
      return true;
    },
    async items(session) {
      const lookup = await keyedLookup(pagedClient(session.requester, session.client), input, { signal: ctx.signal });
      return counted(keyedItems(input, lookup));
    },
    perform: (writes) => resourcePerformer({ rt, op: 'update', claimed: claimedIds(input.journal), ...writes }),
    after() {
      if (kept.rows) ctx.warn(heldOptInNote(kept.rows, kept.fields, true));
      if (unchanged)
        ctx.info(`${grouped(unchanged)} ${plural(unchanged, 'row')} unchanged: the record already holds every value (not sent)`);
    },
  });
}
