/**
 * `svc <resource> create|update|delete --input FILE`: checks every row, then does them with the
 * bulk engine (see src/bulk/ and the README, "Bulk runs and enroll").
 */
import { blankNote, claimedIds, headerlessIds, resourceItems, scanInput, type ResourceInput } from '../../bulk/rows/resource-plan.js';
import { resourcePerformer } from '../../bulk/rows/resource-perform.js';
import type { WriteOp } from '../../bulk/rows/resource-rows.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { writeOut } from '../../output/io.js';
import type { ResourceType } from '../../registry/index.js';
import { bulkSetup, finishRun, runRows, sessionWrites, type BulkFlags } from './session.js';
import { startFileRun, writeFailedRows } from './input-file.js';
import { readResourceInput } from './resource-input.js';
import { resolveNames } from './row-rel-names.js';

const VERB: Record<WriteOp, string> = { create: 'create', update: 'update', delete: 'delete' };

/** Runs a bulk create, update or delete. */
export async function bulkWriteHandler(
  ctx: Context,
  rt: ResourceType,
  op: WriteOp,
  flags: BulkFlags & { input: string; map?: string[] },
): Promise<void> {
  const label = `${rt.command} ${VERB[op]}`;
  const setup = bulkSetup(flags, label, ctx.globals.sandbox);
  const input = await readResourceInput(ctx, rt, op, flags.input, setup, flags.map);
  const { format, dialect, journal } = input;
  if (op !== 'delete') await resolveNames(ctx, rt, input);

  const scan = await scanInput(input);
  for (const c of scan.ignoredColumns)
    ctx.warn(`column "${c}" is left out: only ${c.split('.')[0]} or ${c.split('.')[0]}.id sets a relationship`);
  const shardNote = setup.shard ? ` (shard ${setup.shard.index}/${setup.shard.count})` : '';
  if (scan.invalid > 0) {
    for (const p of scan.problems) ctx.info(`${p}`);
    if (scan.invalid > scan.problems.length) ctx.info(`… and ${scan.invalid - scan.problems.length} more invalid rows`);
    if (setup.strict) {
      throw new UsageError(`${scan.invalid} of ${scan.total} rows of ${flags.input} are invalid; nothing was sent (--strict)`);
    }
  }
  const plan = `${label}${shardNote}: ${scan.total} rows: ${scan.todo} to ${VERB[op]}, ${scan.done} done by earlier runs, ${scan.invalid} invalid${blankNote(scan.blank)}`;

  if (ctx.globals.dryRun) {
    ctx.info(`dry run: ${plan}; nothing is sent`);
    await printPlan(ctx, input);
    return;
  }
  if (op === 'delete' && scan.todo > 0 && !(await confirmDelete(ctx, rt, scan.todo))) {
    ctx.info('not deleted');
    return;
  }
  ctx.info(plan);

  const { session, failed } = await startFileRun(ctx, setup, label, scan.total, flags.input);
  try {
    // Aborted by the pool when the run stops for an error every row would meet.
    const halt = new AbortController();
    const result = await runRows(ctx, session, setup, {
      halt,
      items: resourceItems(input),
      perform: resourcePerformer({
        rt,
        op,
        claimed: claimedIds(journal),
        ...sessionWrites(ctx, session, setup, halt),
      }),
    });
    session.progress.stop();
    await writeFailedRows(
      ctx,
      failed,
      flags.input,
      { format, dialect, headerless: headerlessIds(op) },
      'id',
      result.interrupted || result.tripped !== undefined,
    );
    finishRun(ctx, session, setup, label, result, scan.total, scan.blank);
  } finally {
    await session.close();
  }
}

/** `--dry-run`: one NDJSON line per row on stdout with the request it would send. */
async function printPlan(ctx: Context, input: ResourceInput): Promise<void> {
  const api = await ctx.api();
  for await (const item of resourceItems(input)) {
    const line: Record<string, unknown> = { row: item.row };
    if (item.write) {
      line.method = item.write.method;
      line.url = api.resolve(item.write.path).toString();
      if (item.write.body) line.body = item.write.body;
      if (item.pending) line.note = 'an earlier run was stopped while creating this row: it is looked up first';
    } else if (item.outcome) {
      line.status = item.outcome.status;
      if (item.outcome.id !== undefined && item.outcome.id !== null) line.id = item.outcome.id;
      if (item.outcome.error) line.error = item.outcome.error;
      if (item.outcome.extra) Object.assign(line, item.outcome.extra);
    }
    await writeOut(ctx.io.stdout, JSON.stringify(line) + '\n');
  }
}

async function confirmDelete(ctx: Context, rt: ResourceType, count: number): Promise<boolean> {
  if (ctx.globals.yes) return true;
  if (!ctx.io.stdinIsTTY || !ctx.io.stderrIsTTY) {
    throw new UsageError(`refusing to delete ${count} ${rt.command} without --yes (not an interactive terminal)`);
  }
  return (await ctx.prompter()).confirm(`Delete ${count} ${rt.command}?`, false);
}
