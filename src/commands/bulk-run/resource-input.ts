/**
 * What every bulk run over a file of records (`create|update|delete --input`, `upsert`, `update
 * --match`) reads before its first pass: the file's format and dialect (said on stderr), the
 * journal of earlier runs, every column resolved (`--map` included), and on a rehearsal copy the mask of its fakes.
 */
import { detectFormat, inspectInput } from '../../bulk/input/readers.js';
import { blankNote, type ResourceInput, type ScanResult } from '../../bulk/rows/resource-plan.js';
import type { WriteOp } from '../../bulk/rows/resource-rows.js';
import type { Context } from '../../runtime/context.js';
import type { ResourceType } from '../../registry/index.js';
import { noteDialect } from './input-file.js';
import { holdJournal, loadJournal, type BulkSetup } from './session.js';
import { checkInputColumns, columnMap } from './input-columns.js';
import { rehearsalMask } from '../shared/rehearsal.js';
import { grouped, plural } from '../../grouped.js';

/** The input of a run over `file`; a delete reads ids only (no columns to resolve, nothing to mask). */
export async function readResourceInput(
  ctx: Context,
  rt: ResourceType,
  op: WriteOp,
  file: string,
  setup: BulkSetup,
  map?: readonly string[],
): Promise<ResourceInput> {
  const format = await detectFormat(file);
  const dialect = await inspectInput(file, format, setup.delimiter, setup.encoding);
  // Once the input is known readable, before a line is said: a run on a journal in use says only that.
  holdJournal(ctx, setup);
  noteDialect(ctx, file, dialect, format);
  const journal = await loadJournal(ctx, setup);
  const input: ResourceInput = { rt, op, file, format, shard: setup.shard, journal, skipFailed: setup.skipFailed, dialect };
  if (setup.allowOptIn) input.allowOptIn = true;
  if (op === 'delete') return input;
  // Every column resolved before anything is sent: labels as column names, custom values checked.
  const cols = await checkInputColumns(ctx, rt, file, format, dialect, setup.ignoreColumns, columnMap(map));
  input.skipColumns = cols.skip;
  if (cols.view) input.names = cols.view;
  const mask = await rehearsalMask(ctx);
  if (mask) input.mask = mask;
  return input;
}

/**
 * What a run over a file says after its first pass, besides its summary line: the CSV rows shorter
 * than the header, read with their last cells empty as Excel writes rows past the 16th (a line
 * break outside quotes makes short rows too, and those are garbage, a review: so the rows are
 * named). The consent values a plain update leaves out are said by the run once it has read the
 * records (bulk/rows/consent.ts), not here: a file that holds what the records hold changes none.
 */
export function noteScan(ctx: Context, scan: ScanResult): void {
  const p = scan.padded;
  if (p.rows)
    ctx.warn(
      `${grouped(p.rows)} ${plural(p.rows, 'row')} shorter than the header (row ${p.first.join(', ')}${p.rows > p.first.length ? ', …' : ''}): ${p.rows === 1 ? 'its' : 'their'} last cells read as empty, as Excel leaves them out; a line break outside quotes would split a row so: check with --dry-run`,
    );
}

/** `prospects create (shard 1/2): 10 rows: 8 to create, 1 done by earlier runs, 1 invalid`: what a run over a file will do. */
export function runSummary(setup: BulkSetup, label: string, scan: ScanResult, todo: string): string {
  const shardNote = setup.shard ? ` (shard ${setup.shard.index}/${setup.shard.count})` : '';
  return `${label}${shardNote}: ${grouped(scan.total)} ${plural(scan.total, 'row')}: ${scan.todo} to ${todo}, ${scan.done} done by earlier runs, ${scan.invalid} invalid${blankNote(scan.blank)}`;
}
