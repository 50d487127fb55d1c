/**
 * `svc <resource> upsert --input F --match ATTR` and `update --input F --match ATTR`: rows matched
 * to records by one attribute in batches, then created, updated with the fields that differ, or
 * left alone, through the same exactly-once machinery as every bulk run (journal, resume, settle
 * window, lookups). `--plan` (and `--dry-run`) prints the field-level diff and the bill instead.
 */
import { blankNote, claimedIds, scanInput } from '../../bulk/rows/resource-plan.js';
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
import { UsageError } from '../../errors.js';
import type { ResourceType } from '../../registry/index.js';
import { bulkSetup, finishRun, runRows, sessionWrites, type BulkFlags } from './session.js';
import { startFileRun, writeFailedRows } from './input-file.js';
import { readResourceInput } from './resource-input.js';
import { resolveNames } from './row-rel-names.js';
import { printKeyedPlan } from './upsert-plan.js';

/** Flags of a keyed run. */
export type KeyedFlags = BulkFlags & { input: string; match?: string; plan?: boolean; map?: string[] };

/** Runs an upsert, or an update matched by key. */
export async function keyedWriteHandler(ctx: Context, rt: ResourceType, mode: KeyMode, flags: KeyedFlags): Promise<void> {
  if (flags.match === undefined) throw new UsageError(`${rt.command} ${mode}: give --match ATTR, the attribute rows are matched by`);
  const match = matchAttribute(rt, flags.match);
  if (typeof match !== 'string') throw new UsageError(match.error);
  if (match === 'id' && mode === 'upsert')
    throw new UsageError(
      `${rt.command} upsert: --match id cannot create a missing record; use update --input F --match id, or match by an attribute`,
    );
  const setup = bulkSetup(flags, `${rt.command} ${mode}`, ctx.globals.sandbox);
  // Read and checked as for create and update --input: every column resolved before anything is sent.
  const input: KeyedInput = { ...(await readResourceInput(ctx, rt, 'update', flags.input, setup, flags.map)), mode, match };
  const { format, dialect, journal } = input;
  const label = `${rt.command} ${mode} by ${match}`;
  const nameLookups = await resolveNames(ctx, rt, input);

  const scan = await scanInput(input, 20, keyedPreparer(input));
  if (scan.invalid > 0) {
    for (const p of scan.problems) ctx.info(p);
    if (scan.invalid > scan.problems.length) ctx.info(`… and ${scan.invalid - scan.problems.length} more invalid rows`);
    if (setup.strict)
      throw new UsageError(`${scan.invalid} of ${scan.total} rows of ${flags.input} are invalid; nothing was sent (--strict)`);
  }
  const shardNote = setup.shard ? ` (shard ${setup.shard.index}/${setup.shard.count})` : '';
  const summary = `${label}${shardNote}: ${scan.total} rows: ${scan.todo} to match, ${scan.done} done by earlier runs, ${scan.invalid} invalid${blankNote(scan.blank)}`;
  if (flags.plan || ctx.globals.dryRun) {
    ctx.info(`plan: ${summary}; nothing is written`);
    // The run also reads once whose org it writes to, for its journal (see shared/org-owner.ts).
    await printKeyedPlan(ctx, input, nameLookups + (setup.journalPath ? 1 : 0));
    return;
  }
  ctx.info(summary);

  const { session, failed } = await startFileRun(ctx, setup, label, scan.total, flags.input);
  try {
    const halt = new AbortController();
    const lookup = await keyedLookup(pagedClient(session.requester, session.client), input, { signal: ctx.signal });
    let unchanged = 0;
    const counted = async function* (items: AsyncIterable<KeyedItem>) {
      for await (const item of items) {
        if (item.plan === 'unchanged') unchanged++;
        yield item;
      }
    };
    const result = await runRows(ctx, session, setup, {
      halt,
      items: counted(keyedItems(input, lookup)),
      perform: resourcePerformer({
        rt,
        op: 'update',
        claimed: claimedIds(journal),
        ...sessionWrites(ctx, session, setup, halt),
      }),
    });
    session.progress.stop();
    await writeFailedRows(ctx, failed, flags.input, { format, dialect }, 'id', result.interrupted || result.tripped !== undefined);
    if (unchanged) ctx.info(`${unchanged.toLocaleString('en-US')} rows unchanged: the record already holds every value (not sent)`);
    finishRun(ctx, session, setup, label, result, scan.total, scan.blank);
  } finally {
    await session.close();
  }
}
