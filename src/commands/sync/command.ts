/** `svc sync [TYPE…]`: the org as a local SQLite mirror, kept current, deletes included. */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';
import type { SyncFlags } from './handler.js';

/** Registers `sync`. */
export function registerSync(program: Command, app: App): void {
  program
    .command('sync')
    .description('copy the org into a SQLite file (or PostgreSQL with --db) and keep it current, deletes included; query it with svc sql')
    .argument('[types...]', 'resource types to mirror (default: the ones sales ops asks about)')
    .option(
      '--db <file|url>',
      'the mirror file, or postgres://USER@HOST/DB for a team mirror (default: $SVC_DB, else one file per profile in the data directory)',
    )
    .option('--schema <name>', 'with --db postgres://…: the schema to mirror into (default: $SVC_DB_SCHEMA, else svc_<profile>)')
    .option('--status', 'say where the mirror is, how old each table is and how many rows it holds; send nothing')
    .option('--all-types', 'every type this token can read')
    .option('--reconcile', 'also compare every table with the ids the API lists, to find deletes no event told of')
    .option('--rebuild', 'start the mirror afresh (one of another org or svc version); drops only its own tables')
    .option('--plan', 'say how many requests a sync would need (one count request per type), and stop')
    .addHelpText(
      'after',
      `
The first run reads every record in id order; later runs read what changed since the last one
(by updatedAt) and remove what was deleted (events, and a check of ids every day or with
--reconcile). Each page is committed with its place: Ctrl-C and a rerun continue. With the
global --budget (2000, or 20% of the hour) it stops when the hour's budget is spent (exit 5).

Examples:
  $ svc --sandbox sync
  $ svc sync prospects accounts --plan
  $ svc sync --status
  $ svc sync --db postgres://sync@db.example.com/sales --schema acme
  $ svc sql "select title, count(*) from prospects group by 1 order by 2 desc limit 5"
`,
    )
    .action(async (types: string[], flags: SyncFlags, cmd: Command) => {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { syncHandler } = await import('./handler.js');
      await runCommand(app, cmd, (ctx) => syncHandler(ctx, types, flags));
    });
}
