/**
 * `svc enroll --sequence <id or name> --mailbox <id or e-mail> (--prospect ID... | --input FILE [--by id|email])`:
 * wiring only; the handler loads when the command runs.
 */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';
import { addRunOptions } from '../bulk-run/options.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** Registers `svc enroll`. */
export function registerEnroll(program: Command, app: App): void {
  const cmd = program
    .command('enroll')
    .description('add prospects to a sequence (skips those already in it; resumable bulk run)')
    .option('--sequence <id or name>', 'sequence to enroll into: its id or its name (a list to search on a terminal when left out)')
    .option(
      '--mailbox <id or e-mail>',
      'mailbox that sends the mailing steps: its id or address (a list to search on a terminal when left out)',
    )
    .option('--prospect <id...>', 'prospect id (repeatable, or comma-separated)', collect)
    .option('--input <file>', 'prospects from a CSV, NDJSON or JSON file (an id or email column)')
    .option('--by <key>', 'what the input gives: id (default) or email')
    .option('--column <name>', 'the input column holding the ids or addresses, when its name is not id, email, E-mail…');
  addRunOptions(cmd, {
    prefix: '',
    write: 'an enrolment',
    resend: 'send an enrolment again when its answer was lost and it is still not in the sequence after --settle',
    ignoreColumns: 'enroll reads only the id or email column',
    map: false,
  })
    .addHelpText(
      'after',
      `
Examples:
  $ svc enroll --sequence 3 --mailbox 1 --prospect 10 --prospect 11,12
  $ svc enroll --sequence 3 --mailbox 1 --input leads.csv --by email --report enroll.ndjson
  $ svc enroll --sequence "Outbound Enterprise" --mailbox olive.owner@acme-rockets.test --input leads.csv --by email
  $ svc enroll --sequence 3 --mailbox 1 --input ids.txt --shard 2/4      # CI machine 2 of 4

A value of digits only is an id. Names match whole, case ignored; a name that matches no
record or several is refused (exit 2)
with the candidates and their ids. On a terminal (not in CI), a left-out --sequence or --mailbox
opens a list to search (a sequence that is off is marked so).

Before the first write, enroll prints the sequence, the mailbox, the rows, how many are already
enrolled, how many it will enroll, why the first failing rows will fail, and a delivery
forecast; on a terminal it asks to go on (--yes skips the question). A sequence that is off or has no steps sends nothing: the summary
says so instead, and the question defaults to no. The forecast uses the mailbox's maxMailingsPerDay (D) and
maxMailingsPerWeek: with W = min(maxMailingsPerWeek, 7 × D), N new enrolments need
7 × ⌊N / W⌋ + ⌈(N mod W) / D⌉ days (7 × (N / W − 1) + ⌈W / D⌉ when W divides N), today being
day 1, assuming the mailbox sends nothing else and each first step is an e-mail due at once.

A rerun of the same command does only what is left (journal: <input>.journal.ndjson).
Exit codes: 0 all done, 2 bad options or (with --strict) invalid rows, 5 some rows failed, 130 Ctrl-C.`,
    )
    .action((opts, c: Command) =>
      runCommand(app, c, async (ctx) => {
        // Performance machinery (src/README.md, Build): loaded with import() when first used.
        const { enrollHandler } = await import('./handler.js');
        await enrollHandler(ctx, opts);
      }),
    );
}
