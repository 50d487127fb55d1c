/** `svc runs`: every write run listed, shown and undoable (records in the data directory). */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';
import type { UndoFlags } from './undo.js';

/** Registers `runs list|show|undo|prune`. */
export function registerRuns(program: Command, app: App): void {
  const runs = program
    .command('runs')
    .description('the write runs svc recorded: list them, show one, take one back (undo)')
    .addHelpText(
      'after',
      `
Every write run is recorded — bulk create/update/upsert/delete, enroll, single creates, updates
and deletes — with a before-image of what it changed, in runs/ of the data directory (owner-only,
integrity-checked). Records stay until svc runs prune removes them.

Examples:
  $ svc --sandbox runs list
  $ svc --sandbox runs show "$(svc --sandbox runs list -o raw --query '[0].id')" -o json
  $ svc --sandbox runs undo "$(svc --sandbox runs list -o raw --query '[0].id')" --plan
  $ svc runs prune --older-than 30d --dry-run
`,
    );
  runs
    .command('list')
    .description('the recorded runs of this profile, newest first: id, when, command, rows by outcome, undone or not')
    .option('--all', 'the runs of every profile')
    .action(async (flags: { all?: boolean }, cmd: Command) => {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { listHandler } = await import('./view.js');
      await runCommand(app, cmd, (ctx) => listHandler(ctx, flags));
    });
  runs
    .command('show')
    .description("a run's rows with their outcomes and before/after values (the table: the fields changed)")
    .argument('<run>', 'the run id (svc runs list)')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const { showHandler } = await import('./view.js');
      await runCommand(app, cmd, (ctx) => showHandler(ctx, id));
    });
  runs
    .command('undo')
    .description('take a run back: updates set to their prior values, creates deleted, deletes re-created, enrolments finished')
    .argument('<run>', 'the run id (svc runs list)')
    .option('--plan', 'show what the undo would do, row by row, and its request bill; send no write')
    .option('--rows <list>', 'undo only these rows of the run (e.g. 1-10,15)')
    .option('--force', 'also take back records changed since the run (default: skip them as conflicts)')
    .option('--allow-opt-in', 'also take back an opt-out the run set (optedOut and the like; kept otherwise)')
    .option('--concurrency <n>', 'requests at once (default 4, at most 32)')
    .option('--report <file>', 'one NDJSON result per row (- for stdout)')
    .option(
      '--settle <seconds>',
      'how long a write without a definite answer is looked for, and the wait before its creates in doubt are looked up (default 30)',
    )
    .option(
      '--resend-unconfirmed',
      'send a re-create again when its answer was lost (a kill) and a lookup still does not find it (default: report it unknown)',
    )
    .option('--max-failures <n>', 'stop after n rows in a row refused with the same error (default 20; 0 never stops)')
    .addHelpText(
      'after',
      `
The undo is a run of its own: journaled (kill it, run the same command again: no row is done
twice), recorded (svc runs undo <the undo's id> redoes the run). A row the API gives no way
back for (an event created: events have no delete; a task marked complete) is said, never sent.
Any profile logged in to the org a run wrote to may undo it (a single write: only its own
profile, its record names no org). Exit codes: 10 unknown run, 11 a run of another org or API
(or such a single write), 12 already undone, 13 record changed (tampered), 4 the token may not
write what the undo writes, 2 no row of the run can be taken back, or deletes without --yes off a
terminal; 5 when rows were not taken back (failed, or left as conflicts or kept opt-outs: the
error counts them, --plan lists them), and for --plan when it finds such rows (--dry-run: 0).

Taking creates back deletes records: asked first on a terminal (default no); elsewhere it needs
--yes (--plan lists them). Setting fields back, re-creating and finishing are not asked.
`,
    )
    .action(async (id: string, flags: UndoFlags, cmd: Command) => {
      const { undoHandler } = await import('./undo.js');
      await runCommand(app, cmd, (ctx) => undoHandler(ctx, id, flags));
    });
  runs
    .command('prune')
    .description("remove the records of this profile's runs older than an age")
    .option('--older-than <age>', 'e.g. 30d, 12h, 90m')
    .option('--all', 'the runs of every profile')
    .addHelpText(
      'after',
      `
Asks first on a terminal (default no); elsewhere it needs --yes. --dry-run lists the runs it would
remove and removes nothing. Kept whatever their age: a run not finished that running its command
again would continue (one run, one undo), and the run an unfinished undo takes back.
--older-than 0d takes all the others. A removed run can no longer be undone.
`,
    )
    .action(async (flags: { olderThan?: string; all?: boolean }, cmd: Command) => {
      const { pruneHandler } = await import('./prune.js');
      await runCommand(app, cmd, (ctx) => pruneHandler(ctx, flags));
    });
}
