/** `svc sql`: read-only SQL over the local mirror `svc sync` keeps. */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';
import type { SqlFlags } from './handler.js';

/** Registers `sql`. */
export function registerSql(program: Command, app: App): void {
  program
    .command('sql')
    .description('run read-only SQL against the local mirror of the org (made by svc sync)')
    .argument('[statement]', 'one SELECT (or WITH …) statement; else -f FILE, else stdin')
    .option('-f, --file <file>', 'read the statement from a file')
    .option('-p, --param <name=value>', 'bind :name to value (repeatable); values are bound, never pasted into the SQL', collect)
    .option('--tables', 'list the tables and views with their row counts')
    .option('--columns <table>', "list a table's columns, their types and custom-field labels")
    .option(
      '--db <file|url>',
      'the mirror file, or postgres://USER@HOST/DB (default: $SVC_DB, else the profile’s file, as svc sync writes it)',
    )
    .option('--schema <name>', 'with --db postgres://…: the schema svc sync wrote (default: $SVC_DB_SCHEMA, else svc_<profile>)')
    .option('--bom', 'with -o csv: start with a UTF-8 byte order mark, so Excel reads accents right')
    .addHelpText(
      'after',
      `
Names: tables are the resource paths in snake_case (prospects, sequence_states), columns the
attributes in snake_case (first_name), to-one relationships <name>_id (account_id); the view
<table>_labelled names custom fields by their labels.

Examples:
  $ svc --sandbox sync && svc --sandbox sql "select title, count(*) from prospects group by 1 order by 2 desc limit 5"
  $ svc sql "select * from prospects where title = :t" -p t=CEO -o csv > ceos.csv
  $ svc sql -f weekly.sql -o json | jq .
  $ svc sql --columns prospects
  $ svc sql --db postgres://analyst@db.example.com/sales --schema acme "select count(*) from prospects"
`,
    )
    .action(async (statement: string | undefined, flags: SqlFlags, cmd: Command) => {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { sqlHandler } = await import('./handler.js');
      await runCommand(app, cmd, (ctx) => sqlHandler(ctx, statement, flags));
    });
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
