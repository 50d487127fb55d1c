/**
 * `--match` and `--plan` of `update --input` and `upsert`, and the choice between them and the
 * other forms. The keyed handler loads only when a keyed run starts.
 */
import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import type { ResourceType } from '../../registry/index.js';
import type { KeyedFlags } from '../bulk-run/upsert-run.js';

/** Adds `--match ATTR` and `--plan`, and `--allow-opt-in` for a type with consent attributes (bulk/rows/consent.ts). */
export function addKeyedOptions(cmd: Command, rt: ResourceType): Command {
  const consent = rt.attributes.filter((a) => a.optOut !== undefined).map((a) => a.name);
  if (consent.length) cmd.option('--allow-opt-in', `bulk: send values that take back an opt-out (${consent.join(', ')})`);
  return cmd
    .option(
      '--match <attr>',
      'bulk: match rows to records by this filterable attribute (prospects: emails; accounts: domain or name; id); unchanged rows are not sent',
    )
    .option(
      '--plan',
      'bulk: read the matched records and print the fields each row would change and the bill; nothing is written (update without --match: by id, every row sent); exit 5 when rows would fail',
    );
}

/** A good `--match` for the examples of a type. */
function exampleMatch(rt: ResourceType): string {
  if (rt.type === 'prospect') return 'emails';
  if (rt.type === 'account') return 'domain';
  return rt.attributes.find((a) => a.filterable && !a.readOnly && a.type === 'string')?.name ?? 'name';
}

/** The help text after the options of `upsert`. */
export function upsertHelp(rt: ResourceType): string {
  const m = exampleMatch(rt);
  return `
A row whose ${m} matches no record is created, exactly one is updated with the fields that
differ (a row that changes nothing is not sent), several are reported ambiguous and left alone.
Matches are read in batches: N rows take at most N + ⌈N/100⌉ + 3 requests. Journal, resume and
--settle work as for create --input.

Examples:
  $ svc ${rt.command} upsert --input ${rt.command}.csv --match ${m} --plan
  $ svc ${rt.command} upsert --input ${rt.command}.csv --match ${m}
  $ svc ${rt.command} update --input ${rt.command}.csv --match ${m}     # update only`;
}

/** Runs upsert or update by key after checking the form. */
export async function runKeyed(
  ctx: Context,
  rt: ResourceType,
  mode: 'upsert' | 'update',
  id: string | undefined,
  flags: Omit<KeyedFlags, 'input'> & { input?: string; attr?: string[]; rel?: string[]; data?: string },
): Promise<void> {
  const input = flags.input;
  if (input === undefined)
    throw new UsageError(`${rt.command} ${mode}: give --input FILE${mode === 'update' ? ' with --match and --plan' : ''}`);
  if (id !== undefined) throw new UsageError(`${rt.command} ${mode}: give either a record id or --input, not both`);
  if (flags.attr?.length || flags.rel?.length || flags.data !== undefined) {
    throw new UsageError('--input cannot be combined with --attr, --rel or --data: the file gives every field');
  }
  // A plan of a plain bulk update reads the records by the ids of its rows, and shows each row
  // sent as the file gives it, as that run does (--match id is the run that skips unchanged rows).
  if (flags.match === undefined && mode === 'update' && flags.plan) flags = { ...flags, match: 'id', whole: true };
  if (flags.match === undefined) {
    throw new UsageError(`${rt.command} ${mode}: give --match ATTR, the attribute rows are matched by (e.g. --match ${exampleMatch(rt)})`);
  }
  const { keyedWriteHandler } = await import('../bulk-run/upsert-run.js');
  await keyedWriteHandler(ctx, rt, mode, { ...flags, input });
}
