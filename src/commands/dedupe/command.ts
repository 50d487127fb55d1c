/**
 * `svc dedupe prospects|accounts` (find duplicates in the mirror, `--plan FILE` for a merge
 * plan) and `svc dedupe apply FILE` (carry a plan out as a journaled bulk run): wiring only; the
 * handlers load when a command runs.
 */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';
import type { ApplyFlags, FindFlags } from './flags.js';

/** Registers `svc dedupe`. */
export function registerDedupe(program: Command, app: App): void {
  const dedupe = program
    .command('dedupe')
    .description('find duplicate prospects or accounts in the local mirror, and merge them through a plan you can edit');
  for (const type of ['prospect', 'account'] as const) {
    const cmd = dedupe
      .command(`${type}s`)
      .description(`clusters of likely duplicate ${type}s in the mirror (svc sync first), with why they match and a score`)
      .option(
        '--by <keys>',
        type === 'prospect'
          ? 'what to match by: email,phone,name (default all three; a name only at the same company or domain)'
          : 'name: also match by the name without its legal form (the default; accounts always match by domain)',
      )
      .option('--min-score <s>', 'least score of a match, 0 to 1 (default 0.8)');
    if (type === 'prospect') cmd.option('--region <cc>', 'country of phone numbers written without a country code (default US)');
    cmd
      .option('--keep <rule>', 'which record survives: newest, oldest, most-complete (default: most activity, then oldest)')
      .option('--plan <file>', 'also write the merge plan there (JSON: edit it, then svc dedupe apply FILE)')
      .option('--db <file|url>', 'the mirror: a file, or postgres://… (default: $SVC_DB, else the profile’s file, as svc sync writes them)')
      .option('--schema <name>', 'with --db postgres://…: the schema svc sync wrote (default: $SVC_DB_SCHEMA, else svc_<profile>)')
      .addHelpText(
        'after',
        `
Reads the mirror only (run svc sync first); nothing is sent to the API. One row per record of
each cluster, the survivor first.

Examples:
  $ svc --sandbox sync && svc --sandbox dedupe ${type}s
  $ svc dedupe ${type}s -o csv > clusters.csv
  $ svc dedupe ${type}s --plan merge.json && svc dedupe apply merge.json --plan
`,
      )
      .action(async (flags: FindFlags, c: Command) => {
        // Performance machinery (src/README.md, Build): loaded with import() when first used.
        const { findHandler } = await import('./find.js');
        await runCommand(app, c, (ctx) => findHandler(ctx, type, flags));
      });
  }
  dedupe
    .command('apply')
    .description(
      'carry out a merge plan of svc dedupe as one journaled run (fill survivors, move links, finish enrolments, delete duplicates)',
    )
    .argument('<file>', 'the plan svc dedupe … --plan FILE wrote')
    .option('--plan', 'show what the run would do and the request bill; send no write')
    .option('--tag-only', 'tag each duplicate duplicate-of-<survivor> and leave it, instead of deleting it')
    .option('--across-owners', 'also merge clusters whose records have different owners (left out by default)')
    .option('--concurrency <n>', 'clusters at once (default 4, at most 32)')
    .option('--journal <file>', 'journal of done steps, for safe reruns (default <plan>.journal.ndjson)')
    .option('--report <file>', 'one NDJSON result per cluster (- for stdout)')
    .option('--max-failures <n>', 'stop after n clusters in a row refused with the same error (default 20; 0 never stops)')
    .addHelpText(
      'after',
      `
Deleting duplicates is asked first on a terminal; elsewhere give --yes (--tag-only deletes
nothing). Before the first write each record is read again: a cluster with a record changed since the
mirror read it (its updatedAt differs), or gone, is left out and reported. A rerun of the same
command does only the steps not done (journal).

Examples:
  $ svc dedupe apply merge.json --plan
  $ svc dedupe apply merge.json --yes
  $ svc dedupe apply merge.json --tag-only
Exit codes: 0 all done, 2 a bad plan or option, 5 some clusters failed, 130 Ctrl-C.`,
    )
    .action(async (file: string, flags: ApplyFlags, c: Command) => {
      const { applyHandler } = await import('./apply.js');
      await runCommand(app, c, (ctx) => applyHandler(ctx, file, flags));
    });
}
