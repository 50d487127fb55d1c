/**
 * The one builder that turns the registry into `svc <resource> <operation>` commands: only the
 * operations and actions a type allows; everything else is commander's "unknown command" with a
 * list of what the type does allow.
 */
import { Command } from 'commander';
import { ApiError } from '../../errors.js';
import { runCommand, type App } from '../../cli/app.js';
import { helpWidth } from '../../cli/help-layout.js';
import { RESOURCES, type ResourceType } from '../../registry/index.js';
import { resourceGroup } from './groups.js';
import { resourceHelp } from './help.js';
import { addBulkOptions, checkBulkOnly, runBulk, singleId } from './bulk-options.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

/**
 * Registers one command per resource type. Start-up cost: all 51 are registered (for `--help`
 * and suggestions), but their operations are built only for the types the command line names
 * (`app.argv`), or for all of them when it is not known.
 */
export function registerResourceCommands(program: Command, app: App): void {
  // Performance machinery (README.md, Build): only the named resource command is built.
  const named = app.argv && new Set(app.argv);
  // Names taken so far: built-in commands, then each resource command as it is added.
  const taken = new Set(program.commands.flatMap((c) => [c.name(), ...c.aliases()]));
  for (const rt of RESOURCES) {
    const expand = !named || named.has(rt.command) || named.has(rt.path);
    const cmd = buildResourceCommand(program, rt, app, expand, taken);
    program.addCommand(cmd);
    for (const n of [cmd.name(), ...cmd.aliases()]) taken.add(n);
  }
}

function buildResourceCommand(program: Command, rt: ResourceType, app: App, withOperations: boolean, taken: Set<string>): Command {
  const cmd = program.createCommand(rt.command);
  // What it offers is in its own help (Operations:); the list in `svc --help` stays one line or two.
  cmd.description(rt.description).helpGroup(resourceGroup(rt.type));
  // The camelCase collection name is an alias, unless a built-in command owns it (`profiles`).
  if (rt.path !== rt.command && !taken.has(rt.path)) cmd.alias(rt.path);
  cmd.argument('[operation]');
  // A command the command line does not name is only listed by `svc --help`: nothing more to build.
  if (!withOperations) return cmd;
  cmd.copyInheritedSettings(program);
  cmd.usage('<operation> [options]');
  cmd.addHelpText('after', () => resourceHelp(rt, helpWidth(app.io.columns)));
  const offered = [...rt.operations, ...rt.actions.map((a) => a.command)];
  // Without an operation the command shows its help; an operation the type does not offer is a
  // usage error that says what it does offer (`svc calls update 3`).
  // The rest of the line and unknown options are taken here rather than through
  // allowExcessArguments, which subcommands would inherit (`svc prospects get 1 2` must fail).
  cmd
    .argument('[rest...]')
    .allowUnknownOption(true)
    .action(async (op: string | undefined) => {
      if (!op) return cmd.help();
      // Performance machinery (README.md, Build): loaded with import() when first used.
      const { didYouMean } = await import('../../suggest.js');
      const message = op.startsWith('-')
        ? `unknown option '${op}' (see svc ${rt.command} --help)`
        : `${rt.command} has no operation "${op}"${didYouMean(op, offered)}: it offers ${offered.join(', ')}`;
      app.io.stderr.write(`error: ${message}\n`);
      app.exitCode = 2;
    });
  // Performance machinery (README.md, Build): read and write handlers in separate chunks.
  // Writes and reads load their own handlers: list and get skip the write path's validation and
  // schema lookups, and each is one chunk of its own (no shared chunk behind a re-export).
  // A refusal of a misspelt field name gets a "did you mean" (name-hints.ts); the module loads
  // only then.
  const hinted = async (c: Command, work: () => Promise<void>) => {
    try {
      await work();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      throw (await import('./name-hints.js')).withNameHints(err, rt, c.opts());
    }
  };
  const run = (c: Command, fn: (h: typeof import('./write-handlers.js')) => (ctx: import('../../cli/context.js').Context) => Promise<void>) =>
    runCommand(app, c, async (ctx) => hinted(c, async () => fn(await import('./write-handlers.js'))(ctx)));
  const runRead = (c: Command, fn: (h: typeof import('./read-handlers.js')) => (ctx: import('../../cli/context.js').Context) => Promise<void>) =>
    runCommand(app, c, async (ctx) => {
      // `--columns` never reaches the server: a misspelt column would be an empty one.
      if (c.opts().columns) for (const h of (await import('./name-hints.js')).nameHints(rt, { columns: c.opts().columns as string })) ctx.warn(h);
      await hinted(c, async () => fn(await import('./read-handlers.js'))(ctx));
    });

  if (rt.operations.includes('list')) {
    cmd
      .command('list')
      .description(`list ${rt.command} (one page of 50 unless --limit or --all)`)
      .option('-f, --filter <expr>', 'filter: attr=v, attr=a,b, attr=from..to, rel.id=5 (repeatable, ANDed)', collect)
      .option('-s, --sort <keys>', 'sort keys, comma-separated, - for descending (attributes marked S)')
      .option('-i, --include <paths>', 'related resources to include, comma-separated, a.b for nested')
      .option('--fields <list>', 'sparse fields: attr,attr (this type) or type=attr,attr (repeatable)', collect)
      .option('-l, --limit <n>', 'records to return (default 50)')
      .option('-a, --all', 'every record (pages of 1,000; continues by id past the 10,000 offset cap)')
      .option('--page-size <n>', 'page size asked for (up to 1000)')
      .option('--count', 'ask the service to count the records (off by default) and report it on stderr')
      .option('--new-filter-syntax', 'send newFilterSyntax=true (bracket lists and ranges; escaped , and .. in values)')
      .option('--columns <list>', 'table/csv columns, comma-separated (e.g. id,name,account.name)')
      .action((opts, c: Command) => runRead(c, (h) => (ctx) => h.listHandler(ctx, rt, opts)));
  }
  if (rt.operations.includes('get')) {
    cmd
      .command('get')
      .description(`show one ${rt.type}`)
      .argument('<id>', 'record id')
      .option('-i, --include <paths>', 'related resources to include')
      .option('--fields <list>', 'sparse fields: attr,attr or type=attr,attr (repeatable)', collect)
      .option('-w, --web', "open the record in the web app (the profile's appUrl) instead")
      .action((id: string, opts, c: Command) =>
        opts.web
          ? runCommand(app, c, async (ctx) => (await import('../config/open.js')).openRecord(ctx, rt, id))
          : runRead(c, (h) => (ctx) => h.getHandler(ctx, rt, id, opts)),
      );
  }
  if (rt.operations.includes('create')) {
    const create = cmd
      .command('create')
      .description(`create a ${rt.type}`)
      .option('--attr <k=v>', 'attribute (repeatable); k:=JSON for raw JSON values', collect)
      .option('--rel <name=id>', 'relationship: name=id, name=type:id, name=null (repeatable)', collect)
      .option('-d, --data <json>', 'record as flat JSON or a JSON:API document: JSON, @file, or - for stdin');
    addBulkOptions(create).action((opts, c: Command) =>
      run(c, (h) => (ctx) => (opts.input !== undefined ? runBulk(ctx, rt, 'create', undefined, opts) : (checkBulkOnly(opts), h.createHandler(ctx, rt, opts)))),
    );
  }
  if (rt.operations.includes('update')) {
    const update = cmd
      .command('update')
      .description(`update a ${rt.type} (sends only what is given)`)
      .argument('[id]', 'record id (or --input FILE)')
      .option('--attr <k=v>', 'attribute (repeatable); k:=JSON for raw JSON values', collect)
      .option('--rel <name=id>', 'relationship: name=id, name=type:id, name=null (repeatable)', collect)
      .option('-d, --data <json>', 'record as flat JSON or a JSON:API document: JSON, @file, or - for stdin');
    addBulkOptions(update).action((id: string | undefined, opts, c: Command) =>
      run(c, (h) => (ctx) => (opts.input !== undefined ? runBulk(ctx, rt, 'update', id, opts) : h.updateHandler(ctx, rt, singleId(rt, 'update', id, opts), opts))),
    );
  }
  if (rt.operations.includes('delete')) {
    const del = cmd
      .command('delete')
      .description(`delete a ${rt.type} (asks first on a terminal; --yes otherwise)`)
      .argument('[id]', 'record id (or --input FILE)');
    addBulkOptions(del).action((id: string | undefined, opts, c: Command) =>
      run(c, (h) => (ctx) => (opts.input !== undefined ? runBulk(ctx, rt, 'delete', id, opts) : h.deleteHandler(ctx, rt, singleId(rt, 'delete', id, opts)))),
    );
  }
  for (const action of rt.actions) {
    cmd
      .command(action.command)
      .description(action.description)
      .argument('<id>', 'record id')
      .option('-p, --param <name=value>', `action parameter, sent as actionParams[name]${action.params.length ? ` (${action.params.join(', ')})` : ''}`, collect)
      .action((id: string, opts, c: Command) => run(c, (h) => (ctx) => h.actionHandler(ctx, rt, action, id, opts)));
  }
  return cmd;
}
