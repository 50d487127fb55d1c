/**
 * `svc enroll --sequence ID --mailbox ID (--prospect ID... | --input FILE [--by id|email])`:
 * wiring only; the handler loads when the command runs.
 */
import type { Command } from 'commander';
import { runCommand, type App } from '../../cli/app.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** Registers `svc enroll`. */
export function registerEnroll(program: Command, app: App): void {
  program
    .command('enroll')
    .description('add prospects to a sequence (skips those already in it; resumable bulk run)')
    .requiredOption('--sequence <id>', 'sequence to enroll into')
    .requiredOption('--mailbox <id>', 'mailbox that sends the mailing steps')
    .option('--prospect <id...>', 'prospect id (repeatable, or comma-separated)', collect)
    .option('--input <file>', 'prospects from a CSV, NDJSON or JSON file (an id or email column)')
    .option('--by <key>', 'what the input gives: id (default) or email')
    .option('--concurrency <n>', 'requests at once (default 4, at most 32)')
    .option('--journal <file>', 'journal of done rows, for safe reruns (default <input>.journal.ndjson; <input>.sandbox.journal.ndjson with --sandbox)')
    .option('--report <file>', 'one NDJSON result per row (- for stdout)')
    .option('--strict', 'stop before sending anything when a row is invalid (exit 2)')
    .option('--shard <i/n>', 'do only shard i of n (rows r with (r-1) mod n = i-1)')
    .addHelpText(
      'after',
      `
Examples:
  $ svc enroll --sequence 3 --mailbox 1 --prospect 10 --prospect 11,12
  $ svc enroll --sequence 3 --mailbox 1 --input leads.csv --by email --report enroll.ndjson
  $ svc enroll --sequence 3 --mailbox 1 --input ids.txt --shard 2/4      # CI machine 2 of 4

A rerun of the same command does only what is left (journal: <input>.journal.ndjson).
Exit codes: 0 all done, 2 bad options or (with --strict) invalid rows, 5 some rows failed, 130 Ctrl-C.`,
    )
    .action((opts, c: Command) =>
      runCommand(app, c, async (ctx) => {
        // Performance machinery (README.md, Build): loaded with import() when first used.
        const { enrollHandler } = await import('./handler.js');
        await enrollHandler(ctx, opts);
      }),
    );
}
