/** `svc api [METHOD] <path>`: a raw request with the profile's token. */
import { type Command, Option } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';
import type { ApiFlags } from './handler.js';

export function registerApi(program: Command, app: App): void {
  program
    .command('api')
    .description('send a raw request to the API (path relative to the base URL)')
    .usage('[options] [method] <path>')
    // The method may be left out, as with `gh api`: GET, or POST with -d.
    .argument('[method]', 'GET, POST, PATCH, PUT, DELETE or HEAD (GET when left out, POST with -d)')
    .argument('[path]', "e.g. /prospects?filter[title]=CEO (absolute URLs only on the profile's own host)")
    .option('-X, --method <method>', 'the method, as gh api and curl take it')
    .option('-d, --data <json>', 'request body: JSON, @file, or - for stdin')
    .option('--paginate', 'GET: follow links.next and print every page (raw) or every record')
    .option('-i, --include', 'print the status line and headers of each answer before its body')
    // gh's and curl's flags that svc api has another way for: refused with the way (ApiFlags).
    .addOption(new Option('--jq <expr>').hideHelp())
    .addOption(new Option('-H, --header <header>').hideHelp())
    .addOption(new Option('-f, --field <field>').hideHelp())
    .addOption(new Option('-F, --raw-field <field>').hideHelp())
    .addHelpText(
      'after',
      '\nExamples:\n  $ svc api GET /prospects?page[limit]=5\n  $ svc api -i HEAD /prospects   # X-RateLimit-Remaining: requests left this hour\n  $ svc api PATCH /prospects/7 -d \'{"data":{"type":"prospect","id":7,"attributes":{"title":"CTO"}}}\'\n',
    )
    .action(async (method: string | undefined, path: string | undefined, opts: ApiFlags, cmd: Command) => {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { apiHandler } = await import('./handler.js');
      await runCommand(app, cmd, (ctx) => apiHandler(ctx, method, path, opts));
    });
}
