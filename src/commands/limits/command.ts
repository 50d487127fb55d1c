/** `svc limits`: the hour's requests now — used, left, reset, and which svc processes hold what. */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';

export function registerLimits(program: Command, app: App): void {
  program
    .command('limits')
    .description("show the hour's rate limit: used, left, reset, and which of your svc processes hold what")
    .option('--refresh', "ask the server (one request) even when the shared ledger knows the hour's count")
    .addHelpText(
      'after',
      `
Every svc process of a user shares one budget per API (the API allows 10,000
requests an hour): interactive commands go first, long ones (bulk runs, syncs,
long listings) share the rest by --priority, each within its --budget. This
shows the ledger they share (with --budget-ledger, the one in PostgreSQL that
svc on other machines share too); when it does not know the current hour yet,
one request asks the server.

Examples:
  $ svc limits
  $ svc limits -o json
  $ svc --budget 20% --priority low prospects upsert --input leads.csv --match email
`,
    )
    .action(async (flags: { refresh?: boolean }, cmd: Command) => {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { limitsHandler } = await import('./handler.js');
      await runCommand(app, cmd, (ctx) => limitsHandler(ctx, flags));
    });
}
