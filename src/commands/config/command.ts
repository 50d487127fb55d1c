/**
 * `svc config get|set|list`, `svc alias set|list|delete`, `svc open <type> <id>`: wiring only;
 * the handlers load when a command runs.
 */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';
import { SETTINGS_GROUP } from '../../runtime/help-layout.js';
import { OUTPUT_FORMATS } from '../../output/formats.js';

type Handlers = () => Promise<typeof import('./handlers.js')>;

/** Registers `config`, `alias` and `open` (in the "Login and settings" group of `svc --help`). */
export function registerSettings(program: Command, app: App): void {
  const handlers: Handlers = () => import('./handlers.js');
  // Performance machinery (src/README.md, Build): subcommands built only for the command argv names.
  const named = (name: string) => !app.argv || app.argv.includes(name);
  const config = program
    .command('config')
    .helpGroup(SETTINGS_GROUP)
    .description("this profile's defaults: output format, page size, concurrency, web-app address");
  if (named('config')) configSubcommands(app, config, handlers);
  const alias = program.command('alias').helpGroup(SETTINGS_GROUP).description('saved command lines of this profile, run as svc NAME');
  if (named('alias')) aliasSubcommands(app, program, alias, handlers);
  program
    .command('open')
    .helpGroup(SETTINGS_GROUP)
    .description("open a record in the web app (the profile's appUrl)")
    .argument('<type>', 'resource type, e.g. prospects')
    .argument('<id>', 'record id')
    .option('--no-browser', 'print the address only')
    .addHelpText('after', "\nExamples:\n  $ svc config set appUrl 'https://app.example.com/{path}/{id}'\n  $ svc open prospects 12\n")
    .action((type: string, id: string, opts: { browser?: boolean }, c: Command) =>
      runCommand(app, c, async (ctx) => {
        const { openRecord, resourceNamed } = await import('./open.js');
        await openRecord(ctx, resourceNamed(type), id, opts);
      }),
    );
}

function configSubcommands(app: App, config: Command, handlers: Handlers): void {
  config.addHelpText(
    'after',
    `
Keys: output, pageSize, concurrency, appUrl. A flag on the command line wins.

Examples:
  $ svc config set output csv
  $ svc config set pageSize 200
  $ svc config set appUrl 'https://app.example.com/{path}/{id}'
  $ svc config set output ''          # back to the built-in default
`,
  );
  config
    .command('get')
    .description('print the value of one setting')
    .argument('<key>', 'output, pageSize, concurrency or appUrl')
    .action((key: string, _o: unknown, c: Command) =>
      runCommand(app, c, async (ctx) => (await handlers()).configGet(ctx, key, OUTPUT_FORMATS)),
    );
  config
    .command('set')
    .description('set a setting of this profile (an empty value removes it)')
    .argument('<key>', 'output, pageSize, concurrency or appUrl')
    .argument('<value>', 'its value')
    .action((key: string, value: string, _o: unknown, c: Command) =>
      runCommand(app, c, async (ctx) => (await handlers()).configSet(ctx, key, value, OUTPUT_FORMATS)),
    );
  config
    .command('list')
    .description("this profile's settings")
    .action((_o: unknown, c: Command) => runCommand(app, c, async (ctx) => (await handlers()).configList(ctx, OUTPUT_FORMATS)));
}

function aliasSubcommands(app: App, program: Command, alias: Command, handlers: Handlers): void {
  alias.addHelpText(
    'after',
    `
An alias runs only when its name is not an svc command; words after it are appended.

Examples:
  $ svc alias set ceos 'prospects list --filter title=CEO'
  $ svc ceos --limit 5
`,
  );
  const builtIns = () => program.commands.flatMap((c) => [c.name(), ...c.aliases()]);
  alias
    .command('set')
    .description('save a command line under a name')
    .argument('<name>', 'the alias')
    .argument('<command line>', 'what it runs, quoted (without "svc")')
    .action((name: string, line: string, _o: unknown, c: Command) =>
      runCommand(app, c, async (ctx) => (await handlers()).aliasSet(ctx, name, line, builtIns())),
    );
  alias
    .command('list')
    .description("this profile's aliases")
    .action((_o: unknown, c: Command) => runCommand(app, c, async (ctx) => (await handlers()).aliasList(ctx)));
  alias
    .command('delete')
    .description('remove an alias')
    .argument('<name>', 'the alias')
    .action((name: string, _o: unknown, c: Command) => runCommand(app, c, async (ctx) => (await handlers()).aliasDelete(ctx, name)));
}
