/**
 * The commander program: the global options, help with examples, and every command
 * registered from src/commands (wiring only; handlers load when a command runs).
 */
import { Command, Option } from 'commander';
import { registerCommands } from '../commands/index.js';
import { OUTPUT_FORMATS } from '../output/formats.js';
import type { App } from '../runtime/app.js';
import { RESOURCE_GROUPS } from '../commands/resource-commands/groups.js';
import { COMMAND_GROUP, SETTINGS_GROUP, helpWidth, wrapBlock } from '../runtime/help-layout.js';
import { SvcCommand } from './svc-command.js';

// Each example works as written against the sandbox (`svc sandbox`, or `--sandbox`); a test runs them.
const EXAMPLES = `
Examples:
  # try it against a local sandbox, no login needed
  $ svc --sandbox prospects list --filter title=CEO --limit 5
  # log in to your organization through the browser
  $ svc login
  $ svc prospects list --filter title=CEO,CTO --sort -updatedAt --limit 20
  $ svc accounts get 3 --include owner
  $ svc prospects create --attr firstName=Ada --rel account=5
  $ svc tasks mark-complete 3 --param completionNote=done
  $ svc prospects list --all -o ndjson | jq -r .emails[0]

Environment: SVC_PROFILE, SVC_BASE_URL, SVC_AUTH_URL, SVC_TOKEN, SVC_SANDBOX,
SVC_CONFIG_DIR, SVC_CLIENT_ID, SVC_CLIENT_SECRET, NO_COLOR.
Exit codes: 0 ok, 1 API/network, 2 usage, 3 auth, 4 permission,
5 partial bulk run, 130 interrupted.
`;

/** Group order in `svc --help`: built-in commands first, then resource areas as listed. */
function groupRank(heading: string): number {
  const order = [COMMAND_GROUP, SETTINGS_GROUP, ...RESOURCE_GROUPS.map((g) => `${g}:`)];
  const i = order.indexOf(heading);
  return i < 0 ? order.length : i;
}

/** The last line of every help but `svc --help`. */
const GLOBALS_POINTER = 'Global options (--profile, --sandbox, -o, --json, -v, …): svc --help';
const GLOBAL_GROUP = 'Global options (before or after the command):';

/** Builds the whole program (resource operations only for what `app.argv` names, when given). */
export function buildProgram(app: App, version: string): Command {
  const program = new SvcCommand('svc');
  const width = helpWidth(app.io.columns);
  // Help comes in pieces (commander's text, then each addHelpText): one blank line between them,
  // whether or not a piece ends with one.
  let endedBlank = false;
  const oneBlankLine = (text: string) => {
    const out = endedBlank && text.startsWith('\n') ? text.slice(1) : text;
    if (out) endedBlank = out.endsWith('\n\n');
    return out;
  };
  program
    .description('Command-line tool for the sales-engagement API (JSON:API v2)')
    .optionsGroup(GLOBAL_GROUP)
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--profile <name>', 'profile to use (SVC_PROFILE)')
    .option('--base-url <url>', 'API root, version 2 (SVC_BASE_URL)')
    .option('--auth-url <url>', 'host root serving /oauth/authorize and /oauth/token (SVC_AUTH_URL)')
    .option('--token <token>', 'use this access token, no stored login (SVC_TOKEN)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS))
    .option('--json [fields]', 'same as -o json; with fields (a,b,c), only those')
    .option('--query <expr>', 'JMESPath expression applied to the JSON output (per record with -o ndjson; -o raw prints strings unquoted)')
    .option('--no-color', 'plain output (also NO_COLOR, and whenever stdout is not a TTY)')
    .option('-v, --verbose', 'HTTP trace on stderr, secrets redacted; stack traces on errors')
    .option('--dry-run', 'print the requests a write, get or api would send; send nothing (list and export read as usual)')
    .option('-y, --yes', 'skip confirmations')
    .option('--sandbox', 'run against the local sandbox server (SVC_SANDBOX=1)')
    .option(
      '--sandbox-data <file>',
      'the sandbox serves this org file, e.g. a copy from `svc sandbox --from-profile`; implies --sandbox (SVC_SANDBOX_DATA)',
    )
    .option('--timeout <seconds>', 'per-request timeout in seconds, the whole answer included (default 30)')
    .option('--max-response-mb <n>', 'largest answer read, in MB (SVC_MAX_RESPONSE_MB; default 64)')
    .option('--budget <amount>', 'requests this command may use per hour: a number (2000) or a share of the limit (20%) (SVC_BUDGET)')
    .option(
      '--priority <level>',
      'low, normal or high: how a long command shares the hourly limit with your other svc processes (SVC_PRIORITY)',
    )
    .option(
      '--budget-ledger <url>',
      'keep that shared hour in this PostgreSQL database (postgres://…), shared by svc on several machines (SVC_BUDGET_LEDGER)',
    )
    .commandsGroup(COMMAND_GROUP)
    .addHelpText('after', EXAMPLES)
    // Global options are listed once, in `svc --help`; every other help ends pointing there.
    .addHelpText('afterAll', ({ command }) => (command === program ? '' : `\n${GLOBALS_POINTER}`))
    .showSuggestionAfterError(true)
    .configureHelp({
      // The command column is as wide as its longest entry: names only (aliases and arguments are
      // in each command's own help), so that descriptions keep room to wrap at word boundaries.
      subcommandTerm: (cmd) => {
        const args = cmd.registeredArguments.filter((a) => a.required).map((a) => `<${a.name()}>`);
        return [cmd.name(), ...(cmd.parent === program ? [] : cmd.options.length ? ['[options]'] : []), ...args].join(' ');
      },
      groupItems<T extends Command | Option>(_unsorted: T[], visible: T[], getGroup: (item: T) => string) {
        const groups = new Map<string, T[]>();
        // Subcommands share the program's help option, and with it its group: it belongs with
        // their own options.
        const isProgram = visible.some((o) => o instanceof Option && o.long === '--profile');
        const heading = (item: T) => (!isProgram && item instanceof Option && item.long === '--help' ? 'Options:' : getGroup(item));
        for (const item of visible) groups.set(heading(item), [...(groups.get(heading(item)) ?? []), item]);
        return new Map([...groups].sort(([a], [b]) => groupRank(a) - groupRank(b)));
      },
    })
    .exitOverride()
    .configureOutput({
      // Every piece of help (commander's columns, examples, notes) wrapped to the terminal's width.
      writeOut: (s) => app.io.stdout.write(oneBlankLine(wrapBlock(s, width))),
      // commander's "(Did you mean --filter?)" line as svc's hint line: one error format.
      writeErr: (s) => app.io.stderr.write(s.replace(/^(error: .*)\n\(Did you mean (.+)\?\)\n$/, '$1\nhint: did you mean $2?\n')),
      getOutHelpWidth: () => width,
      getErrHelpWidth: () => width,
    });
  registerCommands(program, app);
  return program;
}
