/**
 * The `--input` side of `create`, `update` and `delete`: the bulk options, and the choice
 * between one record (an id, flags) and a bulk run (a file). The bulk handler loads only when
 * a bulk run starts.
 */
import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import type { ResourceType } from '../../registry/index.js';
import type { ResourceRunFlags } from '../bulk-run/resource-run.js';
import type { BulkFlags } from '../bulk-run/session.js';
import { addRunOptions } from '../bulk-run/options.js';

type Op = 'create' | 'update' | 'delete';

/**
 * Adds `--input`, `--concurrency`, `--journal`, `--report`, `--strict`, `--shard`, `--settle`, `--resend-unconfirmed`,
 * `--skip-failed`, `--max-failures`, `--failed`, `--map`, `--ignore-columns`, `--delimiter`, `--encoding`.
 */
export function addBulkOptions(cmd: Command): Command {
  cmd.option(
    '--input <file>',
    'bulk: rows from a CSV, NDJSON or JSON file (the record shape of list output; a relationship cell may name its record: name:<value> or email:<value>)',
  );
  return addRunOptions(cmd, {
    prefix: 'bulk: ',
    write: 'a write',
    resend: 'send a create again when its answer was lost and a lookup still finds nothing after --settle',
    ignoreColumns: 'unknown columns are refused otherwise',
    map: true,
  });
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
  'allowOptIn',
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
  flags: ResourceRunFlags & { attr?: string[]; rel?: string[]; data?: string },
): Promise<void> {
  if (id !== undefined) throw new UsageError(`${rt.command} ${op}: give either a record id or --input, not both`);
  if (flags.attr?.length || flags.rel?.length || flags.data !== undefined) {
    throw new UsageError('--input cannot be combined with --attr, --rel or --data: the file gives every field');
  }
  // Performance machinery (src/README.md, Build): loaded with import() when first used.
  const { bulkWriteHandler } = await import('../bulk-run/resource-run.js');
  await bulkWriteHandler(ctx, rt, op, flags);
}
