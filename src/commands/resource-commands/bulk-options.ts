/**
 * The `--input` side of `create`, `update` and `delete`: the bulk options, and the choice
 * between one record (an id, flags) and a bulk run (a file). The bulk handler loads only when
 * a bulk run starts.
 */
import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import type { ResourceType } from '../../registry/index.js';
import type { BulkFlags } from '../bulk-run/session.js';

type Op = 'create' | 'update' | 'delete';

/**
 * Adds `--input`, `--concurrency`, `--journal`, `--report`, `--strict`, `--shard`, `--settle`, `--resend-unconfirmed`,
 * `--skip-failed`, `--max-failures`, `--failed`, `--map`, `--ignore-columns`, `--delimiter`, `--encoding`.
 */
export function addBulkOptions(cmd: Command): Command {
  return cmd
    .option(
      '--input <file>',
      'bulk: rows from a CSV, NDJSON or JSON file (the record shape of list output; a relationship cell may name its record: name:<value> or email:<value>)',
    )
    .option('--concurrency <n>', 'bulk: requests at once (default 4, at most 32)')
    .option(
      '--journal <file>',
      'bulk: journal of done rows, for safe reruns (default <input>.journal.ndjson; <input>.sandbox.journal.ndjson with --sandbox)',
    )
    .option('--report <file>', 'bulk: one NDJSON result per row (- for stdout)')
    .option('--strict', 'bulk: stop before sending anything when a row is invalid (exit 2)')
    .option('--shard <i/n>', 'bulk: do only shard i of n (rows r with (r-1) mod n = i-1)')
    .option('--settle <seconds>', 'bulk: how long a write without a definite answer is looked for (default 30)')
    .option(
      '--resend-unconfirmed',
      'bulk: send a create again when its answer was lost and a lookup still finds nothing after --settle (default: report it unknown)',
    )
    .option('--skip-failed', 'bulk: skip rows an earlier run recorded as failed (default: try them again)')
    .option('--max-failures <n>', 'bulk: stop after n rows in a row refused with the same error (default 20; 0 never stops)')
    .option('--failed <file>', "bulk: write the failed rows there, in the input's format and columns plus an error column")
    .option(
      '--map <header=field>',
      'bulk: read a column as this field or custom-field label ("Lead Score=custom2"; repeatable), or a JSON file {"Header": "field"}',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--ignore-columns <a,b>', 'bulk: input columns to leave out (unknown columns are refused otherwise)')
    .option('--delimiter <c>', 'bulk: CSV delimiter (default: sniffed from the header line: , ; or tab)')
    .option('--encoding <name>', 'bulk: text encoding of the input: utf-8, windows-1252, utf-16le, utf-16be (default: detected)');
}

const BULK_ONLY = [
  'concurrency',
  'journal',
  'report',
  'strict',
  'shard',
  'settle',
  'resendUnconfirmed',
  'skipFailed',
  'maxFailures',
  'failed',
  'ignoreColumns',
  'delimiter',
  'encoding',
  'map',
] as const;

/** The record id of a single update or delete; a usage error when it is missing or doubled. */
export function singleId(rt: ResourceType, op: Op, id: string | undefined, flags: BulkFlags & { map?: string[] }): string {
  if (id === undefined) throw new UsageError(`${rt.command} ${op}: give the record id, or --input FILE for many records`);
  checkBulkOnly(flags);
  return id;
}

/** Options that mean nothing without `--input`. */
export function checkBulkOnly(flags: BulkFlags & { map?: string[] }): void {
  const stray = BULK_ONLY.find((k) => flags[k] !== undefined);
  if (stray) throw new UsageError(`--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} works only with --input FILE`);
}

/** Runs the bulk form after checking that it is not mixed with the single-record form. */
export async function runBulk(
  ctx: Context,
  rt: ResourceType,
  op: Op,
  id: string | undefined,
  flags: BulkFlags & { input: string; attr?: string[]; rel?: string[]; data?: string; map?: string[] },
): Promise<void> {
  if (id !== undefined) throw new UsageError(`${rt.command} ${op}: give either a record id or --input, not both`);
  if (flags.attr?.length || flags.rel?.length || flags.data !== undefined) {
    throw new UsageError('--input cannot be combined with --attr, --rel or --data: the file gives every field');
  }
  // Performance machinery (src/README.md, Build): loaded with import() when first used.
  const { bulkWriteHandler } = await import('../bulk-run/resource-run.js');
  await bulkWriteHandler(ctx, rt, op, flags);
}
