/**
 * `svc <resource> create|update|delete --input FILE`: the bulk skeleton (run.ts) filled in with
 * the rows of a file of records, checked in a first pass, then sent one request each (see
 * src/bulk/ and the README, "Bulk runs and enroll").
 */
import { claimedIds, headerlessIds, resourceItems, scanInput, type ResourceInput } from '../../bulk/rows/resource-plan.js';
import { confirmOrYes } from '../shared/confirm.js';
import { resourcePerformer } from '../../bulk/rows/resource-perform.js';
import type { WriteOp } from '../../bulk/rows/resource-rows.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { printLine, refuseRunOutput } from '../shared/output.js';
import { secretsMasked, type ResourceType } from '../../registry/index.js';
import { bulkSetup, type BulkFlags } from './session.js';
import { noteScan, readResourceInput, runSummary } from './resource-input.js';
import { resolveNames } from './row-rel-names.js';
import { bulkRun } from './run.js';
import { heldChangeNote, heldChanges, heldOptInNote, tallyHeld, unreadHeldNote, type HeldTally } from '../../bulk/rows/consent.js';

const VERB: Record<WriteOp, string> = { create: 'create', update: 'update', delete: 'delete' };

/** Flags of `create|update|delete --input`. */
export type ResourceRunFlags = BulkFlags & { input: string; map?: string[] };

/** Runs a bulk create, update or delete. */
export async function bulkWriteHandler(ctx: Context, rt: ResourceType, op: WriteOp, flags: ResourceRunFlags): Promise<void> {
  const label = `${rt.command} ${VERB[op]}`;
  refuseRunOutput(ctx, `${label}${ctx.globals.dryRun ? ' --dry-run' : ''}`, ctx.globals.dryRun, flags.report);
  const setup = bulkSetup(flags, label, { sandbox: ctx.globals.sandbox, planning: ctx.globals.dryRun });
  const input = await readResourceInput(ctx, rt, op, flags.input, setup, flags.map);
  if (op !== 'delete') await resolveNames(ctx, rt, input);
  // The consent values an update left out of its rows, by the records the run reads for their
  // before-images: taken back from an opt-out (warned), changed otherwise (said), the same (nothing).
  const back: HeldTally = { rows: 0, fields: new Set() };
  const other: HeldTally = { rows: 0, fields: new Set() };

  await bulkRun(ctx, {
    setup,
    label,
    rows: `rows of ${flags.input}`,
    input: { file: flags.input, read: { format: input.format, dialect: input.dialect, headerless: headerlessIds(op) }, bareKey: 'id' },
    async scan() {
      const scan = await scanInput(input);
      // A file of e-mail addresses given to delete failed row by row, exit 5, a journal written
      // (a trial): refused whole instead, with the way to the ids.
      if (op === 'delete' && scan.total > 0 && scan.invalid === scan.total && scan.problems.every((p) => /: id: missing/.test(p)))
        throw new UsageError(`--input ${flags.input}: no row carries a record id, which delete rows need; nothing was sent`).hint(
          `to delete by another column (e-mail), find the ids first: ${svcAgain(ctx)} ${rt.command} list --filter FIELD=VALUE --columns id -o csv, or ${svcAgain(ctx)} sync and ${svcAgain(ctx)} sql`,
        );
      for (const c of scan.ignoredColumns)
        ctx.warn(`column "${c}" is left out: only ${c.split('.')[0]} or ${c.split('.')[0]}.id sets a relationship`);
      return scan;
    },
    async plan(scan) {
      const plan = runSummary(setup, label, scan, VERB[op]);
      noteScan(ctx, scan);
      if (ctx.globals.dryRun) {
        if (scan.heldOptIns.rows) ctx.trace(unreadHeldNote(scan.heldOptIns.rows, scan.heldOptIns.fields));
        ctx.info(`dry run: ${plan}; nothing is sent`);
        await printPlan(ctx, rt, input);
        return false;
      }
      if (
        op === 'delete' &&
        scan.todo > 0 &&
        !(await confirmOrYes(ctx, {
          refuse: `delete ${scan.todo} ${rt.command}`,
          question: `Delete ${scan.todo} ${rt.command}?`,
          declined: 'not deleted',
        }))
      )
        return false;
      ctx.info(plan);
      return true;
    },
    items: () => resourceItems(input),
    onRead(item, record) {
      const held = item.write?.heldOptIns;
      if (!held || !record) return;
      const c = heldChanges(rt, held, record);
      tallyHeld(back, c.back);
      tallyHeld(other, c.other);
    },
    after() {
      if (back.rows) ctx.warn(heldOptInNote(back.rows, back.fields, true));
      if (other.rows) ctx.info(heldChangeNote(other.rows, other.fields));
    },
    perform: (writes, _record, continued) =>
      resourcePerformer({
        rt,
        op,
        claimed: claimedIds(input.journal),
        ...writes,
        ...(continued ? { readBefore: (key: string) => continued.rows.get(key)?.row.before !== undefined } : {}),
      }),
  });
}

/** A row's request body as a dry run prints it: secret values as `***` (printed in clear, a review). */
function maskedBody(rt: ResourceType, body: unknown): unknown {
  const data = (body as { data?: { attributes?: Record<string, unknown> } } | null)?.data;
  if (!data?.attributes) return body;
  return { ...(body as object), data: { ...data, attributes: secretsMasked(rt, data.attributes) } };
}

/** `--dry-run`: one NDJSON line per row on stdout with the request it would send. */
async function printPlan(ctx: Context, rt: ResourceType, input: ResourceInput): Promise<void> {
  const api = await ctx.api();
  for await (const item of resourceItems(input)) {
    const line: Record<string, unknown> = { row: item.row };
    if (item.write) {
      line.method = item.write.method;
      line.url = api.resolve(item.write.path).toString();
      if (item.write.body) line.body = maskedBody(rt, item.write.body);
      if (item.pending) line.note = 'an earlier run was stopped while creating this row: it is looked up first';
    } else if (item.outcome) {
      line.status = item.outcome.status;
      if (item.outcome.id !== undefined && item.outcome.id !== null) line.id = item.outcome.id;
      if (item.outcome.error) line.error = item.outcome.error;
      if (item.outcome.extra) Object.assign(line, item.outcome.extra);
    }
    await printLine(ctx, line);
  }
}
