/**
 * The commander program: the global options, help with examples, and every command
 * registered from src/commands (wiring only; handlers load when a command runs).
 */
import { Command, Option } from 'commander';
import { registerCommands } from '../commands/index.js';
import { OUTPUT_FORMATS } from '../output/formats.js';
import type { App } from './app.js';

const EXAMPLES = `
Examples:
  $ svc --sandbox prospects list --filter title=CEO     try it against the local sandbox
  $ svc login                                           log in through your browser
  $ svc prospects list --filter title=CEO,CTO --sort -updatedAt --limit 200
  $ svc accounts get 12 --include owner
  $ svc prospects create --attr firstName=Ada --attr emails=ada@example.com --rel account=5
  $ svc sequence-states finish 88
  $ svc prospects list --all -o ndjson | jq -r .emails[0]
  $ svc enroll --sequence 3 --mailbox 1 --input prospects.csv --by email

Environment: SVC_PROFILE, SVC_BASE_URL, SVC_AUTH_URL, SVC_TOKEN, SVC_CONFIG_DIR, SVC_SANDBOX,
SVC_CLIENT_ID, SVC_CLIENT_SECRET, NO_COLOR. Exit codes: 0 ok, 1 API/network, 2 usage,
3 auth, 4 permission, 5 partial bulk run, 130 interrupted.
`;

/** Builds the whole program (resource operations only for what `app.argv` names, when given). */
export function buildProgram(app: App, version: string): Command {
  const program = new Command('svc');
  program
    .description('Command-line tool for the sales-engagement API (JSON:API v2)')
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
    .option('--dry-run', 'print the requests a write would send, send nothing')
    .option('-y, --yes', 'skip confirmations')
    .option('--sandbox', 'run against the local sandbox server (SVC_SANDBOX=1)')
    .option('--sandbox-data <file>', 'the sandbox serves this org file, e.g. a copy from `svc sandbox --from-profile`; implies --sandbox (SVC_SANDBOX_DATA)')
    .option('--timeout <seconds>', 'per-request timeout in seconds, the whole answer included (default 30)')
    .option('--max-response-mb <n>', 'largest answer read, in MB (SVC_MAX_RESPONSE_MB; default 64)')
    .addHelpText('after', EXAMPLES)
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      writeOut: (s) => app.io.stdout.write(s),
      writeErr: (s) => app.io.stderr.write(s),
    });
  registerCommands(program, app);
  return program;
}
