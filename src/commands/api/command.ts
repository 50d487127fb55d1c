/** `svc api <METHOD> <path>`: a raw request with the profile's token. */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';

export function registerApi(program: Command, app: App): void {
  program
    .command('api')
    .description('send a raw request to the API (path relative to the base URL)')
    .argument('<method>', 'GET, POST, PATCH, PUT, DELETE or HEAD')
    .argument('<path>', "e.g. /prospects?filter[title]=CEO (absolute URLs only on the profile's own host)")
    .option('-d, --data <json>', 'request body: JSON, @file, or - for stdin')
    .option('--paginate', 'GET: follow links.next and print every page (raw) or every record')
    .option('-i, --include', 'print the status line and headers of each answer before its body')
    .addHelpText(
      'after',
      '\nExamples:\n  $ svc api GET /prospects?page[limit]=5\n  $ svc api -i HEAD /prospects   # X-RateLimit-Remaining: requests left this hour\n  $ svc api PATCH /prospects/7 -d \'{"data":{"type":"prospect","id":7,"attributes":{"title":"CTO"}}}\'\n',
    )
    .action(async (method: string, path: string, opts: { data?: string; paginate?: boolean; include?: boolean }, cmd: Command) => {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { apiHandler } = await import('./handler.js');
      await runCommand(app, cmd, (ctx) => apiHandler(ctx, method, path, opts));
    });
}
