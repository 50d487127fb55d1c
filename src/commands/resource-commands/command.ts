/**
 * The one builder that turns the registry into `svc <resource> <operation>` commands: only the
 * operations and actions a type allows; everything else is commander's "unknown command" with a
 * list of what the type does allow.
 */
import type { Command } from 'commander';
import { ApiError, ExitCode } from '../../errors.js';
import { runCommand, type App } from '../../runtime/app.js';
import { helpWidth } from '../../runtime/help-layout.js';
import { RESOURCES, type ResourceType } from '../../registry/index.js';
import { resourceGroup } from './groups.js';
import { resourceHelp } from './help.js';
import { addBulkOptions, checkBulkOnly, runBulk, singleId } from './bulk-options.js';
import { addKeyedOptions, runKeyed, upsertHelp } from './upsert-options.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** The options that give one record's fields: `--attr`, `--rel` and `--data` (create and update). */
function addRecordOptions(cmd: Command): Command {
  return cmd
    .option('--attr <k=v>', 'attribute (repeatable); k:=JSON for raw JSON values', collect)
    .option(
      '--rel <name=id>',
      'relationship: name=id, name=type:id, name=null, or by name: name=name:<value>, name=email:<value> (repeatable)',
      collect,
    )
    .option('-d, --data <json>', 'record as flat JSON or a JSON:API document: JSON, @file, or - for stdin');
}

/** The `list --help` lines on filter values (dates, listed values), with an example on a date field of the type. */
function datesHelp(rt: ResourceType): string {
  const field =
    rt.attributes.find((a) => a.filterable && a.type === 'date-time' && a.name === 'updatedAt') ??
    rt.attributes.find((a) => a.filterable && a.type === 'date-time');
  const lines = [''];
  // Said where it applies: a value in another case or `yes` matched nothing before it was checked.
  if (rt.attributes.some((a) => a.filterable && (a.enum || a.type === 'boolean'))) {
    lines.push('A field with listed values takes one of them, in any case; a boolean', 'takes true/false, yes/no or 1/0.', '');
  }
  lines.push(
    'Dates in filters: YYYY-MM-DD (on a date-time field: that whole day in',
    'your time zone, TZ, sent as the UTC instants it begins and ends at),',
    'YYYY-MM-DDThh:mm:ss (UTC, as the API writes it), or relative to your',
    'calendar: today, yesterday, 7d (7 days ago), 2w (2 weeks ago); on a',
    'date-time field also 2h, 30m (hours, minutes ago: sent as that UTC',
    'date-time, in a range such as 2h..). Ranges: from..to, from.., ..to.',
  );
  if (field) {
    lines.push(`  $ svc ${rt.command} list --filter ${field.name}=7d..`, `  $ svc ${rt.command} list --filter ${field.name}=yesterday`);
  }
  return `${lines.join('\n')}\n`;
}
/**
 * Registers one command per resource type. Start-up cost: all 51 are registered (for `--help`
 * and suggestions), but their operations are built only for the types the command line names
 * (`app.argv`), or for all of them when it is not known.
 */
export function registerResourceCommands(program: Command, app: App): void {
  // Performance machinery (src/README.md, Build): only the named resource command is built.
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
  // What the type offers is read from the subcommands built below, in their order: a list kept
  // apart from them left out `upsert` (a new user's trial).
  const offered = () => cmd.commands.map((c) => c.name());
  // What it offers is in its own help (Operations:); the list in `svc --help` stays one line or two.
  cmd.description(rt.description).helpGroup(resourceGroup(rt.type));
  // The camelCase collection name is an alias, unless a built-in command owns it (`profiles`).
  if (rt.path !== rt.command && !taken.has(rt.path)) cmd.alias(rt.path);
  cmd.argument('[operation]');
  // A command the command line does not name is only listed by `svc --help`: nothing more to build.
  if (!withOperations) return cmd;
  cmd.copyInheritedSettings(program);
  cmd.usage('<operation> [options]');
  cmd.addHelpText('after', () => resourceHelp(rt, offered(), helpWidth(app.io.columns)));
  // Without an operation the command shows its help; an operation the type does not offer is a
  // usage error that says what it does offer (`svc calls update 3`).
  // The rest of the line and unknown options are taken here rather than through
  // allowExcessArguments, which subcommands would inherit (`svc prospects get 1 2` must fail).
  cmd
    .argument('[rest...]')
    .allowUnknownOption(true)
    .action(async (op: string | undefined) => {
      if (!op) return cmd.help();
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { didYouMean } = await import('../../suggest.js');
      const message = op.startsWith('-')
        ? `unknown option '${op}' (see svc ${rt.command} --help)`
        : `${rt.command} has no operation "${op}"${didYouMean(op, offered())}: it offers ${offered().join(', ')}`;
      // As commander's own errors: exit 2, and the `{"errors":[...]}` line with -o json (cli/run-cli.ts).
      cmd.error(`error: ${message}`, { exitCode: ExitCode.USAGE, code: 'svc.unknownOperation' });
    });
  // Performance machinery (src/README.md, Build): read and write handlers in separate chunks.
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
  const run = (
    c: Command,
    fn: (h: typeof import('./write-handlers.js')) => (ctx: import('../../runtime/context.js').Context) => Promise<void>,
  ) => runCommand(app, c, async (ctx) => hinted(c, async () => fn(await import('./write-handlers.js'))(ctx)));
  const runRead = (
    c: Command,
    fn: (h: typeof import('./read-handlers.js')) => (ctx: import('../../runtime/context.js').Context) => Promise<void>,
  ) =>
    // `--columns` and `--fields` names are checked before sending (read-handlers: field-names.ts).
    runCommand(app, c, async (ctx) => hinted(c, async () => fn(await import('./read-handlers.js'))(ctx)));

  if (rt.operations.includes('list')) {
    cmd
      .command('list')
      .description(`list ${rt.command} (one page of 50 unless --limit or --all)`)
      .option(
        '-f, --filter <expr>',
        'filter: attr=v, attr=a,b, attr=from..to, rel.id=5 (one per field, ANDed; a bare date on a date-time field means that whole local day)',
        collect,
      )
      .option('-s, --sort <keys>', 'sort keys, comma-separated, - for descending (attributes marked S)')
      .option('-i, --include <paths>', 'related resources to include, comma-separated, a.b for nested')
      .option('--fields <list>', 'sparse fields: attr,attr (this type) or type=attr,attr (repeatable)', collect)
      .option('-l, --limit <n>', 'records to return (default 50)')
      .option('-a, --all', 'every record (pages of 1,000; continues by id past the 10,000 offset cap)')
      .option('--page-size <n>', 'page size asked for (up to 1000)')
      .option('--count', 'ask the service to count the records (off by default) and report it on stderr')
      .option('--new-filter-syntax', 'send newFilterSyntax=true (bracket lists and ranges; escaped , and .. in values)')
      .option('--columns <list>', 'table/csv columns, comma-separated (e.g. id,name,account.name: includes account)')
      .option('--bom', 'with -o csv: start with a UTF-8 byte order mark, so Excel reads accents right')
      .option(
        '--all-columns',
        'with -o csv: keep the custom fields your org does not use (left out once `svc schema pull` has cached the schema)',
      )
      .addHelpText('after', () => datesHelp(rt))
      .action((opts, c: Command) => runRead(c, (h) => (ctx) => h.listHandler(ctx, rt, opts)));
  }
  if (rt.operations.includes('list')) {
    cmd
      .command('export')
      .description(`write every ${rt.type} (or those --filter picks) to a file, in id order; resumable`)
      .argument('<file>', 'where to write (<file>.part until the export is complete)')
      .option('-f, --filter <expr>', 'filter: attr=v, attr=a,b, attr=from..to, rel.id=5 (one per field, ANDed)', collect)
      .option('--new-filter-syntax', 'send newFilterSyntax=true (bracket lists and ranges; escaped , and .. in values)')
      .option(
        '--format <fmt>',
        'csv or ndjson (default: ndjson for *.ndjson and *.jsonl files, csv for *.csv and names without an extension)',
      )
      .option('--resume', 'continue a stopped export from the record after the last one in <file>.part')
      .option('--bom', 'start a CSV file with a UTF-8 byte order mark, so Excel reads accents right (default for *.csv files)')
      .option('--no-bom', 'no byte order mark, even for a *.csv file')
      .option('--columns <list>', 'CSV columns, comma-separated (id always first)')
      .option('--all-columns', 'CSV: every field, custom fields the org does not use included')
      .option('--page-size <n>', 'records per request (up to 1000, the default)')
      .addHelpText(
        'after',
        `
CSV columns by default: id, the attributes, the relationships' ids; custom fields your org has
not labelled are left out when \`svc schema pull\` has cached the org's schema. Records come in id
order and each page is written before the next is asked for; a stopped export leaves <file>.part,
and the same command with --resume continues after its last whole record (each id exactly once;
a resume with another filter, format or columns is refused).
Progress (records, total, rate, ETA) shows on stderr when it is a terminal.

Examples:
  $ svc ${rt.command} export ${rt.command}.csv
  $ svc ${rt.command} export ${rt.command}.ndjson --filter updatedAt=2026-01-01..
  $ svc ${rt.command} export ${rt.command}.csv --resume      # after a crash or Ctrl-C`,
      )
      .action((file: string, opts, c: Command) =>
        runCommand(app, c, async (ctx) => (await import('./export-handler.js')).exportHandler(ctx, rt, file, opts)),
      );
  }
  if (rt.operations.includes('get')) {
    cmd
      .command('get')
      .description(`show one ${rt.type}`)
      .argument('<id>', 'record id')
      .option('-i, --include <paths>', 'related resources to include')
      .option('--fields <list>', 'sparse fields: attr,attr or type=attr,attr (repeatable)', collect)
      .option('--all-fields', 'table view: show null and empty fields too (hidden by default)')
      .option('-w, --web', "open the record in the web app (the profile's appUrl) instead")
      .action((id: string, opts, c: Command) =>
        opts.web
          ? runCommand(app, c, async (ctx) => (await import('../config/open.js')).openRecord(ctx, rt, id))
          : runRead(c, (h) => (ctx) => h.getHandler(ctx, rt, id, opts)),
      );
  }
  if (rt.operations.includes('create')) {
    const create = cmd.command('create').description(`create a ${rt.type}`);
    addRecordOptions(create);
    addBulkOptions(create).action((opts, c: Command) =>
      run(c, (h) => (ctx) => {
        if (opts.input !== undefined) return runBulk(ctx, rt, 'create', undefined, opts);
        checkBulkOnly(opts);
        return h.createHandler(ctx, rt, opts);
      }),
    );
  }
  if (rt.operations.includes('update')) {
    const update = cmd
      .command('update')
      .description(`update a ${rt.type} (sends only what is given)`)
      .argument('[id]', 'record id (or --input FILE)');
    addRecordOptions(update);
    addKeyedOptions(addBulkOptions(update), rt).action((id: string | undefined, opts, c: Command) =>
      run(
        c,
        (h) => (ctx) =>
          opts.match !== undefined || opts.plan
            ? runKeyed(ctx, rt, 'update', id, opts)
            : opts.input !== undefined
              ? runBulk(ctx, rt, 'update', id, opts)
              : h.updateHandler(ctx, rt, singleId(rt, 'update', id, opts), opts),
      ),
    );
  }
  if (rt.operations.includes('create') && rt.operations.includes('update')) {
    const upsert = cmd
      .command('upsert')
      .description(`create or update ${rt.command} from a file, matched by one attribute (--match)`)
      .addHelpText('after', upsertHelp(rt));
    addKeyedOptions(addBulkOptions(upsert), rt).action((opts, c: Command) =>
      run(c, () => (ctx) => runKeyed(ctx, rt, 'upsert', undefined, opts)),
    );
  }
  if (rt.operations.includes('delete')) {
    const del = cmd
      .command('delete')
      .description(`delete a ${rt.type} (asks first on a terminal; --yes otherwise)`)
      .argument('[id]', 'record id (or --input FILE)');
    addBulkOptions(del).action((id: string | undefined, opts, c: Command) =>
      run(
        c,
        (h) => (ctx) =>
          opts.input !== undefined ? runBulk(ctx, rt, 'delete', id, opts) : h.deleteHandler(ctx, rt, singleId(rt, 'delete', id, opts)),
      ),
    );
  }
  for (const action of rt.actions) {
    cmd
      .command(action.command)
      .description(action.description)
      .argument('<id>', 'record id')
      .option(
        '-p, --param <name=value>',
        `action parameter, sent as actionParams[name]${action.params.length ? ` (${action.params.join(', ')})` : ''}`,
        collect,
      )
      .action((id: string, opts, c: Command) => run(c, (h) => (ctx) => h.actionHandler(ctx, rt, action, id, opts)));
  }
  return cmd;
}
